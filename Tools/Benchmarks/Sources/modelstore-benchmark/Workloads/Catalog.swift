/// Every workload, in issue order. Workloads 6 and 8 come in two variants
/// each, listed under the same number (`--workload 6` runs both).
enum Catalog {
    static func all(_ scale: Scale) -> [any Workload] {
        [
            InsertWorkload(),
            FetchWorkload(),
            UpdateWorkload(),
            LookupWorkload(),
            SaveOneWorkload(),
            PredicateFetchWorkload(path: .index, rows: scale.largeRows),
            PredicateFetchWorkload(path: .scan, rows: scale.largeRows),
            RelationshipsWorkload(),
            EnumerateWorkload(rows: max(1, scale.largeRows / 10)),
            EnumerateWorkload(rows: scale.largeRows),
            OpenContainerWorkload(),
            PropertySetWorkload(),
            MigrationWorkload(),
            ToManyAppendWorkload(),
            ReadersWhileWritingWorkload(),
            ConcurrentSavesWorkload(),
            MergeCostWorkload(),
        ]
    }
}
