import Foundation
import ModelStore

/// 15 (issue 20). Merge cost: one context saves `mergedChanges` changed objects, and
/// a second context of the container, holding every one of the N rows as
/// an object, merges that save (`processPendingChanges()`). Reported: the
/// merge's time, and its ratio to the save's (both timed in the same run);
/// the target is a merge that follows the changes, not the objects it
/// holds: under 2× the save.
///
/// ModelStore only: raw C and GRDB have no second context to bring up to
/// date (an app using them re-reads what it shows, or observes a query).
struct MergeCostWorkload: Workload {
    let number = 15
    let title = "Merge a save of K changes into a context holding N objects"
    let target = Target.withinReference(2, reference: "the save")

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let k = scale.mergedChanges
        return [
            Case(contender: .modelStore) { scratch in
                let container = try Fixture.itemStore(scratch, rows: n)
                let holder = ModelContext(container)
                let held = try holder.fetch(FetchDescriptor<Item>())
                let saver = ModelContext(container)
                var descriptor = FetchDescriptor<Item>()
                descriptor.fetchLimit = k
                let changed = try saver.fetch(descriptor)
                var inside: InsideMeasurement?
                return Trial(run: {
                    for item in changed { item.rank += 1 }
                    let start = monotonicSeconds()
                    try saver.save()
                    let saved = monotonicSeconds()
                    holder.processPendingChanges()
                    let merged = monotonicSeconds()
                    inside = InsideMeasurement(seconds: merged - saved, reference: saved - start)
                }, check: {
                    try expect(holder.lastFaultError == nil, true, "no merge error in the holding context")
                    try expect(held.count, n, "objects held")
                    let checksum = held.reduce(0) { $0 &+ Dataset.checksum($1) }
                    try expect(checksum, Dataset.checksum(rows: n) &+ 13 &* k, "checksum of the held objects after the merge")
                    try expect(held.prefix(k).allSatisfy { !$0.hasChanges }, true, "merged objects without unsaved changes")
                    try Fixture.expectContents(path: scratch.storePath, rows: n, checksum: Dataset.checksum(rows: n) &+ 13 &* k)
                }, measuredInside: { inside ?? InsideMeasurement(seconds: 0, reference: 0) })
            }
        ]
    }
}
