import CSQLiteBench
import Foundation

/// Peak resident memory of a timed part, from Linux's /proc.
///
/// Before the timed part, freed heap is returned to the system
/// (`malloc_trim`) and the peak is reset to the current RSS by writing "5" to
/// /proc/self/clear_refs; after it, VmHWM is the peak. Where clear_refs is not
/// writable, VmHWM is the process's peak since start, which `canReset` says.
enum Memory {
    nonisolated(unsafe) private static var resetWorks: Bool?

    /// True when the peak can be reset before each timed part.
    static var canReset: Bool {
        if let resetWorks { return resetWorks }
        let works = FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs") && writeClearRefs()
        resetWorks = works
        return works
    }

    /// Resets the peak to the current RSS (when the system allows it).
    static func resetPeak() {
        malloc_trim(0)
        if canReset { _ = writeClearRefs() }
    }

    /// VmHWM in bytes, or nil where /proc is missing.
    static func peakBytes() -> Int? { statusField("VmHWM:") }

    /// Minor page faults of the process so far: pages the system mapped in
    /// on first touch (fresh heap among them). Nil where getrusage fails.
    static func minorFaults() -> Int? {
        var usage = rusage()
        guard getrusage(Int32(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
        return usage.ru_minflt
    }

    /// VmRSS in bytes.
    static func currentBytes() -> Int? { statusField("VmRSS:") }

    private static func writeClearRefs() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let kilobytes = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
