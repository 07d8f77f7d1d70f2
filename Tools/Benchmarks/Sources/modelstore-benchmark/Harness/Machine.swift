import Foundation

/// The machine a run measured, so that runs can be compared.
struct Machine: Codable {
    var processors: Int
    var cpuModel: String
    var operatingSystem: String
    var kernel: String

    static func current() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let kernel = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? ""
        return Machine(
            processors: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: field("model name", in: cpuinfo, separator: ":") ?? "unknown",
            operatingSystem: field("PRETTY_NAME", in: osRelease, separator: "=") ?? "unknown",
            kernel: kernel.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func field(_ name: String, in text: String, separator: Character) -> String? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: separator, maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
            return parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
