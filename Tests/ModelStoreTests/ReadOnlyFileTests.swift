import Foundation
import Testing
@testable import ModelStore

/// A store file or folder this user cannot write: a read-only container
/// reads it (immutable when SQLite cannot create the `-shm` beside it), and
/// a writable one is refused at open, naming what is not writable.
///
/// Root ignores file permissions, so each test's body runs in a child
/// process (an exit test) that becomes uid and gid 65534 when the tests run
/// as root; as any other user, the permissions alone do it.
@Suite("Read-only store files")
struct ReadOnlyFileTests {
    /// A store of one trip, made writable by nobody but root (file 0444,
    /// folder `folderMode`); its path.
    private static func readOnlyStore(folderMode: Int, directory: TemporaryDirectory) throws -> String {
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
            context.insert(makeTrip())
            try context.save()
        }
        let path = url.path(percentEncoded: false)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the container closed the store")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: folderMode], ofItemAtPath: directory.url.path(percentEncoded: false))
        return path
    }

    @Test("a read-only container fetches from a store in a folder this user cannot write", arguments: [0o555, 0o777])
    func readOnlyContainerReads(folderMode: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.readOnlyStore(folderMode: folderMode, directory: directory)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path(percentEncoded: false)) }
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [path = path as String] in
            asUnprivilegedUser {
                let configuration = ModelConfiguration(url: URL(filePath: path), allowsSave: false)
                let context = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
                let trips = try context.fetch(FetchDescriptor<Trip>())
                guard trips.map(\.name) == ["Lisbon"] else { throw ReadOnlyFileFailure("fetched \(trips.map(\.name))") }
                trips[0].name = "Porto"
                do {
                    try context.save()
                    throw ReadOnlyFileFailure("the save succeeded")
                } catch ModelStoreError.readOnlyStore(let named) where named == path {}
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message == "", "the child process failed: \(message)")
    }

    @Test("a writable container on a file or folder this user cannot write is refused at open, naming it")
    func writableContainerIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.readOnlyStore(folderMode: 0o777, directory: directory)
        let readOnlyFolder = try TemporaryDirectory()
        let folder = readOnlyFolder.url.path(percentEncoded: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer {
            for url in [directory.url, readOnlyFolder.url] {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path(percentEncoded: false))
            }
        }
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [path = path as String, folder = folder as String] in
            asUnprivilegedUser {
                do {
                    _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: URL(filePath: path)))
                    throw ReadOnlyFileFailure("a read-only file opened for writing")
                } catch ModelStoreError.cannotOpen(let named, let reason) where named == path {
                    guard reason.contains("the file is not writable by this user") else { throw ReadOnlyFileFailure(reason) }
                }
                // A new store in a folder this user cannot write.
                do {
                    _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: URL(filePath: folder + "/new.store")))
                    throw ReadOnlyFileFailure("a store was created in a read-only folder")
                } catch ModelStoreError.cannotOpen(_, let reason) {
                    guard reason.contains("its folder \(folder) is not writable by this user") else { throw ReadOnlyFileFailure(reason) }
                }
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message == "", "the child process failed: \(message)")
    }
}

extension ReadOnlyFileTests {
    @Test(
        "a container of several configurations reads a read-only store in a folder this user cannot write, beside a writable one or alone",
        arguments: [false, true])
    func readOnlyPartOfSeveralConfigurations(everyPartReadOnly: Bool) async throws {
        let readOnlyFolder = try TemporaryDirectory()
        let writableFolder = try TemporaryDirectory()
        let memos = readOnlyFolder.file("memos.store")
        let journeys = (everyPartReadOnly ? readOnlyFolder : writableFolder).file("journeys.store")
        // Each store made alone, so in WAL mode, as an app of one configuration leaves it.
        do {
            let context = ModelContext(try ModelContainer(for: Split.Memo.self, configurations: ModelConfiguration(url: memos)))
            context.insert(Split.Memo(text: "call the hotel"))
            try context.save()
        }
        if everyPartReadOnly {
            let context = ModelContext(try ModelContainer(for: Split.Journey.self, configurations: ModelConfiguration(url: journeys)))
            context.insert(Split.Journey(name: "Lisbon"))
            try context.save()
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: journeys.path(percentEncoded: false))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: memos.path(percentEncoded: false))
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnlyFolder.url.path(percentEncoded: false))
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: writableFolder.url.path(percentEncoded: false))
        defer {
            for url in [readOnlyFolder.url, writableFolder.url] {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path(percentEncoded: false))
            }
        }
        let memosPath = memos.path(percentEncoded: false)
        let journeysPath = journeys.path(percentEncoded: false)
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [memosPath = memosPath as String, journeysPath = journeysPath as String, everyPartReadOnly = everyPartReadOnly as Bool] in
            asUnprivilegedUser {
                let container = try ModelContainer(
                    for: Schema([Split.Journey.self, Split.Item.self, Split.Memo.self]),
                    configurations: ModelConfiguration(
                        "journeys", schema: Schema([Split.Journey.self]), url: URL(filePath: journeysPath), allowsSave: !everyPartReadOnly),
                    ModelConfiguration("memos", schema: Schema([Split.Memo.self]), url: URL(filePath: memosPath), allowsSave: false))
                let context = ModelContext(container)
                let texts = try context.fetch(FetchDescriptor<Split.Memo>()).map(\.text)
                guard texts == ["call the hotel"] else { throw ReadOnlyFileFailure("fetched memos \(texts)") }
                if everyPartReadOnly {
                    let names = try context.fetch(FetchDescriptor<Split.Journey>()).map(\.name)
                    guard names == ["Lisbon"] else { throw ReadOnlyFileFailure("fetched journeys \(names)") }
                } else {
                    context.insert(Split.Journey(name: "Faro"))
                    try context.save()
                    let count = try ModelContext(container).fetchCount(FetchDescriptor<Split.Journey>())
                    guard count == 1 else { throw ReadOnlyFileFailure("\(count) journeys saved") }
                }
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message == "", "the child process failed: \(message)")
    }
}

/// Runs `body` as a user for whom file permissions count: uid and gid
/// 65534 when this process runs as root, this process's user otherwise.
/// For an exit test: any error is printed on stderr, and the process exits
/// with a failure.
private func asUnprivilegedUser(_ body: () throws -> Void) {
    do {
        if getuid() == 0 {
            guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else {
                throw ReadOnlyFileFailure("cannot become uid 65534: \(String(cString: strerror(errno)))")
            }
        }
        try body()
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

private struct ReadOnlyFileFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ReadOnlyFileTests {
    /// The folder whose write permission opening checks: a plain path's is
    /// what comes before its last slash; the others are Foundation's answer.
    @Test func folderOfAStorePath() {
        #expect(FileAccess.folder(of: "/var/lib/app/trips.store") == "/var/lib/app")
        #expect(FileAccess.folder(of: "data/trips.store") == "data")
        #expect(FileAccess.folder(of: "trips.store") == ".")
        #expect(FileAccess.folder(of: "/trips.store") == "/")
        #expect(FileAccess.folder(of: "/var/lib//trips.store") == "/var/lib")
        #expect(FileAccess.folder(of: "/var/lib/app/") == "/var/lib")
    }

    /// A path through a regular file is not there, whoever asks: opening
    /// says SQLite cannot open it, not that something is not writable.
    @Test func pathThroughAFileIsNotCalledUnwritable() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("plain.txt")
        try Data("not a folder".utf8).write(to: file)
        let store = file.appending(path: "trips.store").path(percentEncoded: false)
        #expect(FileAccess.reasonNotWritable(store, creating: true) == nil)
        #expect(FileAccess.reasonNotWritable(store, creating: false) == nil)
        let error = #expect(throws: ModelStoreError.self) {
            try ModelContainer(for: MergeBook.self, configurations: ModelConfiguration(url: URL(filePath: store)))
        }
        #expect(error?.localizedDescription.contains("not writable") == false)
    }
}
