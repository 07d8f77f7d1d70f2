import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of one test's own, for what must not happen to the
/// shared server of `MODELSTORE_POSTGRES_URL` while other suites use it in
/// parallel: a restart.
///
/// `withCluster` makes it in a fresh temporary folder (initdb, trust
/// authentication, `fsync=off`: throwaway data), starts it on 127.0.0.1 and
/// a free port, and stops it and removes the folder when the body returns
/// or throws. The server programs are those `.ci/postgres-cluster.sh` finds,
/// which `start_postgres_cluster` exports: `MODELSTORE_POSTGRES_BIN` (their
/// folder) and, as root, `MODELSTORE_POSTGRES_RUN_AS` (the user they run
/// as; initdb refuses root). Without them the tests that need a cluster
/// are disabled with a reason, except in CI (`CI` set), where they run and
/// fail, saying so: CI skips nothing.
final class PostgresTestCluster {
    static let binDirectory = environment("MODELSTORE_POSTGRES_BIN")
    static let runAs = environment("MODELSTORE_POSTGRES_RUN_AS")

    /// The condition of `.enabled(if:)` for the tests that need a cluster.
    static var isEnabled: Bool { binDirectory != nil || PostgresTestDatabase.isInCI }
    static let disabledReason: Comment =
        "MODELSTORE_POSTGRES_BIN is not set: source .ci/postgres-cluster.sh and run start_postgres_cluster"

    /// Why the cluster could not be made or changed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The folder of the cluster: its data, its socket, its log.
    let folder: URL
    /// The port it listens on, on 127.0.0.1.
    private(set) var port = 0
    private let programs: URL
    private var data: String { folder.appending(path: "data").path }
    private var log: String { folder.appending(path: "server.log").path }

    /// The cluster's database as a URL for `PostgresConfiguration`, connecting
    /// as the superuser `postgres`.
    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Runs `body` with a new, started cluster, stopped and removed
    /// afterwards, whether `body` returns or throws.
    /// - Throws: `Failure` naming the step that failed (with the server's
    ///   log), or what `body` throws.
    static func withCluster<T>(_ body: (PostgresTestCluster) throws -> T) throws -> T {
        guard let binDirectory else {
            throw Failure(
                description: "CI is set but MODELSTORE_POSTGRES_BIN is not: .ci/postgres-cluster.sh did not find "
                    + "PostgreSQL's server programs, or start_postgres_cluster was not run")
        }
        let cluster = try PostgresTestCluster(programs: URL(filePath: binDirectory))
        defer { cluster.remove() }
        try cluster.initialize()
        try cluster.start()
        return try body(cluster)
    }

    private init(programs: URL) throws {
        self.programs = programs
        folder = FileManager.default.temporaryDirectory.appending(path: "modelstore-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        if let owner = Self.runAs {
            try FileManager.default.setAttributes([.ownerAccountName: owner], ofItemAtPath: folder.path)
        }
    }

    /// Restarts the server as an administrator would (`pg_ctl restart -m
    /// fast`): every session is ended, and the server accepts connections
    /// again, on the same port, when this returns.
    /// - Throws: `Failure` with the server's log.
    func restart() throws {
        try run("pg_ctl", ["-D", data, "-l", log, "-m", "fast", "-w", "-t", "60", "restart"], step: "restarting the server")
    }

    private func initialize() throws {
        try run(
            "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale"],
            step: "initdb")
    }

    /// Starts the server on a port that was free a moment before; another
    /// process may take it first, so it tries a few.
    private func start() throws {
        var failure: Failure?
        for _ in 1...3 {
            port = try Self.freePort()
            let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(folder.path) -c fsync=off"
            do {
                try run("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start"], step: "starting the server")
                return
            } catch let error as Failure {
                failure = error
            }
        }
        throw failure ?? Failure(description: "the server did not start")
    }

    /// Stops the server at once and removes the folder; after a failure too.
    private func remove() {
        if FileManager.default.fileExists(atPath: data) {
            _ = try? run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], step: "stopping the server")
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs one of the server programs as the cluster's owner and waits for
    /// it, its output into a file of the cluster's folder (never a pipe:
    /// the server that pg_ctl starts would hold it open). It is spawned and
    /// waited for directly: Foundation's `Process` can miss the exit of a
    /// child whose own child (the server) lives on, and wait forever.
    private func run(_ program: String, _ arguments: [String], step: String) throws {
        let output = folder.appending(path: "\(program).out").path
        let path = programs.appending(path: program).path
        let command = Self.runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", path] + arguments } ?? [path] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "\(step): cannot run \(command[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "\(step): cannot wait for \(program): errno \(errno)") }
        }
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        guard exitStatus == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let serverLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(none)"
            throw Failure(
                description: "\(step): \(program) ended with wait status \(status): \(said)\nserver log:\n\(serverLog)")
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (the kernel's choice).
    private static func freePort() throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw Failure(description: "cannot make a socket to find a free port: errno \(errno)") }
        defer { _ = Glibc.close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socketFD, socketAddress, length) == 0 && getsockname(socketFD, socketAddress, &length) == 0
            }
        }
        guard found else { throw Failure(description: "cannot bind a socket on 127.0.0.1 to find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
