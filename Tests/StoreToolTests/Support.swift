import Foundation
import ModelStore
import Testing

/// The folder that holds every test's temporary folder; removed at exit.
let testRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appending(path: "store-tool-tests-\(getpid())")
    atexit {
        try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appending(path: "store-tool-tests-\(getpid())"))
    }
    return root
}()

/// The built store-tool binary: next to the test bundle in the build products folder.
let storeToolBinary: URL? = {
    var folder = URL(filePath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appending(path: "store-tool")
        if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return nil
}()

/// What one run of store-tool printed and how it exited.
struct ToolRun {
    let status: Int32
    let stdout: String
    let stderr: String
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
}

/// A fresh folder with a store of the test models: three trips, three stops.
struct Fixture {
    /// Keeps the contexts of fetched objects alive: objects load their
    /// relationships through their context.
    final class Contexts { var all: [ModelContext] = [] }
    let contexts = Contexts()
    let folder: URL
    let store: URL
    var path: String { store.path(percentEncoded: false) }

    init(populated: Bool = true) throws {
        folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appending(path: "trips.store")
        let container = try ModelContainer(for: Trip.self, Traveler.self, configurations: ModelConfiguration(url: store))
        let context = ModelContext(container)
        guard populated else {
            try context.save()
            return
        }
        let lisbon = Trip(name: "Lisbon", destination: "Portugal", startDate: Date(timeIntervalSince1970: 1_749_513_600))
        lisbon.budget = Budget(amount: 900, currency: "EUR")
        lisbon.tags = ["city", "food"]
        lisbon.stops = [Stop(title: "Belém"), Stop(title: "Alfama")]
        let kyoto = Trip(name: "Kyoto", destination: "Japan", startDate: Date(timeIntervalSince1970: 1_759_363_200))
        kyoto.status = .booked
        kyoto.stops = [Stop(title: "Fushimi Inari")]
        let reykjavik = Trip(name: "Reykjavik", destination: "Iceland", startDate: Date(timeIntervalSince1970: 1_771_545_600))
        let ana = Traveler(name: "Ana")
        ana.trips = [lisbon, kyoto]
        for trip in [lisbon, kyoto, reykjavik] { context.insert(trip) }
        context.insert(ana)
        try context.save()
    }

    func file(_ name: String) -> String { folder.appending(path: name).path(percentEncoded: false) }

    /// Runs store-tool with these arguments; stdin is empty.
    func run(_ arguments: String...) throws -> ToolRun { try runTool(Array(arguments)) }

    func runTool(_ arguments: [String]) throws -> ToolRun { try Self.runTool(arguments) }

    /// Runs store-tool with these arguments; stdin is empty, stdout and stderr are pipes.
    static func runTool(_ arguments: [String]) throws -> ToolRun {
        let binary = try #require(storeToolBinary, "store-tool must be built next to the tests")
        return try runProcess(binary, arguments)
    }

    /// Runs `executable` with these arguments; stdin is empty, stdout and stderr are pipes.
    static func runProcess(_ executable: URL, _ arguments: [String]) throws -> ToolRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read before waiting, so that a large output cannot fill the pipe.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A context on the store, to check what the tool left in it.
    func context() throws -> ModelContext {
        ModelContext(try ModelContainer(for: Trip.self, Traveler.self, configurations: ModelConfiguration(url: store)))
    }

    func trips() throws -> [Trip] {
        let context = try context()
        contexts.all.append(context)
        return try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
    }
}
