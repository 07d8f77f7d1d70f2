#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import ModelStore
import Testing

/// Runs store-tool with standard error on a pseudo-terminal and standard
/// output in a file (as `store-tool … > file` in a shell), and returns what
/// each received.
func runWithTerminalStderr(_ arguments: [String]) throws -> ToolRun {
    let binary = try #require(storeToolBinary)
    let terminalCalls = try #require(PseudoTerminal.calls, "the C library has no pseudo-terminal calls")
    let master = terminalCalls.open(O_RDWR | O_NOCTTY)
    try #require(master >= 0 && terminalCalls.grant(master) == 0 && terminalCalls.unlock(master) == 0, "no pseudo-terminal")
    defer { close(master) }
    let name = try #require(terminalCalls.name(master).map { String(cString: $0) })
    let terminal = open(name, O_RDWR | O_NOCTTY)
    try #require(terminal >= 0)
    let outputFile = testRoot.appending(path: "stdout-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: testRoot, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: outputFile.path(percentEncoded: false), contents: nil)
    let output = try FileHandle(forWritingTo: outputFile)
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    close(terminal)
    try output.close()
    // The terminal's buffer is small: read it while the tool runs.
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { break }  // EIO once the tool has closed the terminal
        received += buffer[0..<count]
    }
    process.waitUntilExit()
    let stdout = try String(contentsOf: outputFile, encoding: .utf8)
    return ToolRun(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: received, as: UTF8.self))
}

/// The C library's pseudo-terminal calls, which the Glibc module does not
/// import (they need `_XOPEN_SOURCE`), looked up by name.
enum PseudoTerminal {
    struct Calls {
        let open: @convention(c) (Int32) -> Int32
        let grant: @convention(c) (Int32) -> Int32
        let unlock: @convention(c) (Int32) -> Int32
        let name: @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    }

    static let calls: Calls? = {
        let library = dlopen(nil, RTLD_NOW)
        guard let open = dlsym(library, "posix_openpt"), let grant = dlsym(library, "grantpt"),
            let unlock = dlsym(library, "unlockpt"), let name = dlsym(library, "ptsname")
        else { return nil }
        return Calls(
            open: unsafeBitCast(open, to: (@convention(c) (Int32) -> Int32).self),
            grant: unsafeBitCast(grant, to: (@convention(c) (Int32) -> Int32).self),
            unlock: unsafeBitCast(unlock, to: (@convention(c) (Int32) -> Int32).self),
            name: unsafeBitCast(name, to: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self))
    }()
}

/// Long commands show progress on stderr when it is a terminal, erased at
/// the end, and print nothing extra when it is piped.
@Suite("store-tool: progress on a terminal, nothing extra when piped")
struct ProgressTests {
    /// The trip fixture with 2,500 more stops on Reykjavik.
    func bigFixture() throws -> Fixture {
        let fixture = try Fixture()
        let context = try fixture.context()
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Reykjavik" })).first)
        trip.stops = (1...2500).map { Stop(title: "stop \($0)") }
        try context.save()
        return fixture
    }

    @Test("export, import, list and delete --where show progress on a terminal and erase it")
    func progressOnATerminal() throws {
        let fixture = try bigFixture()
        let file = fixture.file("stops.jsonl")
        let export = try runWithTerminalStderr(["export", fixture.path, "Stop", "--format", "jsonl", "--output", file])
        #expect(export.status == 0)
        #expect(export.stderr.contains("\rexport: Stop 1000/2503"), "\(export.stderr.debugDescription)")
        #expect(export.stderr.hasSuffix("\r\u{1B}[K"), "the line is erased at the end: \(export.stderr.debugDescription)")

        let imported = try runWithTerminalStderr(["import", fixture.path, file, "--dry-run"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("\rimport: checking 1000"), "\(imported.stderr.debugDescription)")
        #expect(imported.stderr.contains("\rimport: inserting 1000/2503"), "\(imported.stderr.debugDescription)")
        #expect(imported.stdout.hasPrefix("dry run: would import 2503 objects"))

        let list = try runWithTerminalStderr(["list", fixture.path, "Stop", "--format", "csv"])
        #expect(list.status == 0)
        #expect(list.stderr.contains("\rlist: Stop 2000"), "\(list.stderr.debugDescription)")
        #expect(list.lines.count == 2504)

        let delete = try runWithTerminalStderr(["delete", fixture.path, "Stop", "--where", #"title startswith "stop""#, "--yes"])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(delete.stderr.contains("delete: finding the objects of Stop…"), "\(delete.stderr.debugDescription)")
        #expect(delete.stderr.contains("delete: deleting 2500 objects…"), "\(delete.stderr.debugDescription)")
        #expect(delete.stdout.contains("deleted 2500 objects"))
        #expect(try fixture.run("count", fixture.path, "Stop").stdout == "3\n")
    }

    @Test("piped, the same commands print nothing on stderr")
    func nothingWhenPiped() throws {
        let fixture = try bigFixture()
        let file = fixture.file("stops.jsonl")
        for arguments in [
            ["export", fixture.path, "Stop", "--format", "jsonl", "--output", file], ["import", fixture.path, file, "--dry-run"],
            ["export", fixture.path], ["list", fixture.path, "Stop"], ["backup", fixture.path, fixture.file("copy.store")],
            ["check", fixture.path], ["delete", fixture.path, "Stop", "--where", #"title startswith "stop""#, "--yes"],
        ] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stderr.isEmpty, "\(arguments): \(run.stderr)")
        }
    }
}
