import Foundation

/// The table printed on the terminal.
enum Report {
    static func table(_ workloads: [WorkloadResults]) -> String {
        var rows: [[String]] = [["#", "workload", "contender", "median", "ratio", "vs ref", "peak MiB", "faults", "target", "result"]]
        for workload in workloads {
            var first = true
            let shown = shownContenders(workload)
            // The contender the target is about: the first shown (ModelStore,
            // on SQLite or on PostgreSQL).
            let subject = shown.first
            for contender in shown {
                let result = workload.contenders.first { $0.contender == contender }
                var row = [first ? "\(workload.number)" : "", first ? workload.title : "", contender.rawValue]
                if let result, result.failures.isEmpty, let seconds = result.medianSeconds {
                    let isBaseline = contender == workload.baseline
                    row.append(formatDuration(seconds))
                    row.append(isBaseline ? "1 (baseline)" : result.medianRatio.map { formatRatio($0) + "×" } ?? "—")
                    row.append(result.medianReferenceRatio.map { formatRatio($0) + "×" } ?? "—")
                    row.append(result.medianPeakBytes.map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "—")
                    row.append(result.medianPageFaults.map(formatCount) ?? "—")
                } else if let result, !result.failures.isEmpty {
                    row += ["FAILED", "", "", "", ""]
                } else {
                    row += ["—", "—", "—", "—", "—"]
                }
                if contender == subject {
                    row.append(workload.target + (workload.baseline == .rawC || workload.target.hasPrefix("<") ? "" : " vs \(workload.baseline.rawValue)"))
                    row.append(workload.targetMet.map { $0 ? "pass" : "MISS" } ?? "—")
                } else {
                    row += ["", ""]
                }
                rows.append(row)
                first = false
            }
        }
        return align(rows, rightAligned: [3, 4, 5, 6, 7])
    }

    /// Every contender of the workload's kind, "—" for those that cannot do
    /// it; "ModelStore, faulting" only where the workload has it (7). A
    /// PostgreSQL workload (`--postgres`) shows its two contenders only.
    private static func shownContenders(_ workload: WorkloadResults) -> [ContenderName] {
        let present = Set(workload.contenders.map(\.contender))
        if workload.baseline == .rawPostgres { return [.modelStorePostgres, .rawPostgres] }
        let modelStore: [ContenderName] = present.contains(.modelStoreFaulting) ? [.modelStore, .modelStoreFaulting] : [.modelStore]
        let raw: [ContenderName] = present.contains(.rawCWithState) ? [.rawC, .rawCWithState] : [.rawC]
        let sqlite: [ContenderName] = raw + [.grdbStatement, .grdbRecord]
        let objects: [ContenderName] = [.observable, .plainClass]
        return present.isDisjoint(with: objects) ? modelStore + sqlite : modelStore + objects + sqlite
    }

    private static func align(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                let pad = String(repeating: " ", count: widths[column] - text.count)
                return rightAligned.contains(column) ? pad + text : text + pad
            }.joined(separator: "  ").replacing(/\s+$/, with: "")
        }.joined(separator: "\n")
    }
}

/// "123 ms", "12.3 ms", "0.456 ms", "1.23 s": three significant digits.
func formatDuration(_ seconds: Double) -> String {
    if seconds >= 10 { return String(format: "%.1f s", seconds) }
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    let ms = seconds * 1000
    if ms >= 100 { return String(format: "%.0f ms", ms) }
    if ms >= 10 { return String(format: "%.1f ms", ms) }
    if ms >= 1 { return String(format: "%.2f ms", ms) }
    return String(format: "%.3f ms", ms)
}

func formatRatio(_ ratio: Double) -> String {
    ratio >= 10 ? String(format: "%.1f", ratio) : String(format: "%.2f", ratio)
}

func formatNumber(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}

/// "1,000,000": a count with thousands separators.
func formatCount(_ count: Int) -> String {
    let digits = Array(String(count.magnitude))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return count < 0 ? "-" + text : text
}
