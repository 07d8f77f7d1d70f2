import Foundation
import Testing

/// True when `MODELSTORE_STRESS=1`: the suites run their large figures.
let isStressRun = ProcessInfo.processInfo.environment["MODELSTORE_STRESS"] == "1"

/// The folder that holds every test's temporary folder; removed at exit.
private let testRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appending(path: "modelstore-reliability-\(getpid())")
    atexit {
        try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appending(path: "modelstore-reliability-\(getpid())"))
    }
    return root
}()

/// A fresh temporary folder.
func temporaryFolder() throws -> URL {
    let folder = testRoot.appending(path: UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// The built worker binary: next to the test bundle in the build products folder.
let workerBinary: URL? = {
    var folder = URL(filePath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appending(path: "ReliabilityWorker")
        if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return nil
}()

/// A running worker, whose output is read line by line as it comes.
final class WorkerProcess {
    private let process = Process()
    private let output = Pipe()
    private var pending = Data()
    private var ended = false
    /// Every line read so far.
    private(set) var lines: [String] = []

    /// Starts the worker with these arguments; stdin is empty, stderr goes to the test's.
    init(_ arguments: [String]) throws {
        let binary: URL = try #require(workerBinary, "ReliabilityWorker must be built next to the tests")
        process.executableURL = binary
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The next line the worker prints, waiting for it; nil when its output ends.
    func nextLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                lines.append(line)
                return line
            }
            if ended { return nil }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { ended = true } else { pending.append(chunk) }
        }
    }

    /// Kills the worker with SIGKILL: no cleanup of any kind runs in it.
    func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Reads the rest of the output and waits for the worker to end.
    /// - Returns: true when SIGKILL ended it.
    @discardableResult
    func finish() -> (killed: Bool, status: Int32) {
        while nextLine() != nil {}
        process.waitUntilExit()
        return (process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, process.terminationStatus)
    }

    /// Runs the worker to its end and returns its lines; records an issue
    /// unless it exits with status 0.
    static func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let worker = try WorkerProcess(arguments)
        let (_, status) = worker.finish()
        #expect(status == 0, "the worker exited with \(status): \(worker.lines.suffix(5))", sourceLocation: sourceLocation)
        return worker.lines
    }
}

/// A pause of a random length up to `limit`, to pick the moment of a kill
/// (it waits for nothing).
func pause(upTo limit: Duration) {
    let microseconds = limit.components.seconds * 1_000_000 + limit.components.attoseconds / 1_000_000_000_000
    guard microseconds > 0 else { return }
    usleep(UInt32(clamping: Int64.random(in: 0...microseconds)))
}
