#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// A file that a command writes (`export --output`, `backup`'s destination),
/// written so that it can neither destroy the store nor leave half a file.
///
/// Two rules, shared by every command that writes a file:
/// - **Never the store.** A destination that is the store, its `-wal` or its
///   `-shm` is refused before anything is opened for writing: by name (also
///   for a file that does not exist yet, such as a `-wal` SQLite has not
///   made, or a symbolic link to one) and by device and inode (a hard link,
///   a symbolic link, `./` or `..` in the path). Opening the store and then
///   truncating its file would leave the reader with pages that are gone.
/// - **All or nothing.** The output goes to a new temporary file in the
///   destination's folder, which is renamed into place only when everything
///   was written and flushed to disk. A failed or interrupted command leaves
///   no truncated file behind, and an existing file is replaced only on
///   success. A symbolic link is followed: the file it names is replaced,
///   and the link stays. A destination that is not a regular file (a
///   terminal, a pipe, `/dev/null`, `/dev/stdout`) is written directly:
///   there is nothing to replace.
enum OutputFile {
    /// The device and inode of `path` (links followed), nil when it does not exist.
    private static func identity(_ path: String) -> (dev_t, ino_t)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_dev, info.st_ino)
    }

    /// `path` with its folder's symbolic links, `.` and `..` resolved, and a
    /// final symbolic link followed (even one to a file that does not exist
    /// yet); the path itself when its folder does not exist.
    static func resolved(_ path: String) -> String {
        var current = path
        // A chain of links is followed as far as the kernel would (ELOOP after 40).
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
            else { break }
            current = target.hasPrefix("/") ? target : (folder(of: current) as NSString).appendingPathComponent(target)
        }
        if let whole = realpath(current, nil) {
            defer { free(whole) }
            return String(cString: whole)
        }
        // A file that does not exist yet: its folder resolved, its name kept.
        guard let folder = realpath(folder(of: current), nil) else { return current }
        defer { free(folder) }
        return (String(cString: folder) as NSString).appendingPathComponent((current as NSString).lastPathComponent)
    }

    /// The text of a C string that `mkstemp` or `mkdtemp` filled in.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Refuses a destination that is the store, its `-wal` or its `-shm`.
    /// - Throws: `ToolError` (bad input) naming both paths.
    static func refuseStore(_ destination: String, store: String, option: String) throws {
        // SQLite keeps the -wal and -shm beside the file a link names, so
        // they are looked for beside the store's path and beside its target.
        var files: [(String, String)] = []
        for base in Set([store, resolved(store)]).sorted() {
            files += [
                (base, "the store \(store)"), (base + "-wal", "the write-ahead log of the store \(store)"),
                (base + "-shm", "the shared-memory index of the store \(store)"),
            ]
        }
        let target = resolved(destination)
        let targetIdentity = identity(destination)
        for (file, what) in files {
            let sameName = target == resolved(file)
            var sameFile = false
            if let targetIdentity, let fileIdentity = identity(file) { sameFile = targetIdentity == fileIdentity }
            if sameName || sameFile {
                let alias = destination == file ? "" : " (the same file by another name)"
                throw ToolError.badInput("\(option) \(destination) is \(what)\(alias); writing it would destroy the store; choose another file")
            }
        }
    }

    /// Writes `destination` through a temporary file renamed into place
    /// when `body` returns (replacing the file that is there, keeping its
    /// permissions), or directly when the destination is not a regular file.
    /// On any failure the temporary file is removed and the destination is
    /// as it was.
    /// - Parameter body: writes the content to the descriptor it is given;
    ///   it throws to abandon the file.
    /// - Throws: `ToolError` (cannot write the output file) when the file
    ///   cannot be created, written, flushed or renamed; what `body` throws.
    static func write(_ destination: String, _ body: (Int32) throws -> Void) throws {
        if isSpecial(destination) {
            let descriptor = open(destination, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw cannotWrite(destination, errno) }
            defer { close(descriptor) }
            try body(descriptor)
            return
        }
        let target = try writableTarget(destination)
        var template = Array(temporaryName(for: target).utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw cannotWrite(destination, errno) }
        let temporary = string(template)
        var moved = false
        defer {
            close(descriptor)
            if !moved { unlink(temporary) }
        }
        // mkstemp makes the file 0600: give it the mode of the file it
        // replaces, or what a new file gets under the umask.
        var existing = stat()
        let mode = stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : 0o666 & ~currentUmask()
        guard fchmod(descriptor, mode) == 0 else { throw cannotWrite(destination, errno) }
        try body(descriptor)
        guard fsync(descriptor) == 0 else { throw cannotWrite(destination, errno) }
        guard rename(temporary, target) == 0 else { throw cannotWrite(destination, errno) }
        moved = true
        syncFolder(of: target)
    }

    /// Makes a new file at `destination`: `body` fills a file of that name
    /// in a new temporary folder beside it (SQLite's backup API opens the
    /// path itself, and its journal stays in that folder), which is then
    /// linked into place. Unlike `write`, an existing file is never
    /// replaced, not even one made while `body` ran.
    /// - Throws: `ToolError` (cannot write the output file) when the file
    ///   exists or cannot be made; what `body` throws.
    static func create(_ destination: String, _ body: (String) throws -> Void) throws {
        let target = try writableTarget(destination)
        guard !exists(target) else { throw alreadyExists(destination) }
        var template = Array(temporaryName(for: target).utf8CString)
        guard mkdtemp(&template) != nil else { throw cannotWrite(destination, errno) }
        let folder = string(template)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = (folder as NSString).appendingPathComponent((target as NSString).lastPathComponent)
        try body(file)
        // link(2) fails when the name exists, where rename(2) would replace it.
        guard link(file, target) == 0 else {
            let failure = errno
            throw failure == EEXIST ? alreadyExists(destination) : cannotWrite(destination, failure)
        }
        syncFolder(of: target)
    }

    /// Refuses a destination that `create` would refuse, for a dry run.
    /// - Throws: as `create` does before it writes.
    static func checkCreatable(_ destination: String) throws {
        let target = try writableTarget(destination)
        guard !exists(target) else { throw alreadyExists(destination) }
        guard access(folder(of: target), W_OK | X_OK) == 0 else { throw cannotWrite(destination, errno) }
    }

    /// The path a write goes to (links followed); refuses a folder.
    private static func writableTarget(_ destination: String) throws -> String {
        let target = resolved(destination)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ToolError(status: .cannotWrite, message: "cannot write \(destination): it is a folder")
        }
        return target
    }

    /// A hidden name beside `target` for mkstemp / mkdtemp.
    private static func temporaryName(for target: String) -> String {
        (folder(of: target) as NSString).appendingPathComponent(".\((target as NSString).lastPathComponent).store-tool-XXXXXX")
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func alreadyExists(_ path: String) -> ToolError {
        ToolError(status: .cannotWrite, message: "cannot write \(path): the file already exists; choose a new file")
    }

    /// A destination that is not a regular file, or that names a process's
    /// own descriptors (`/dev/stdout`, `/proc/self/fd/1`): written directly.
    private static func isSpecial(_ path: String) -> Bool {
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) != S_IFREG && (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// The rename is durable only once the folder is flushed too.
    private static func syncFolder(of path: String) {
        let descriptor = open(folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// The error for a file that cannot be written, with the system's reason.
    static func cannotWrite(_ path: String, _ code: Int32) -> ToolError {
        ToolError(status: .cannotWrite, message: "cannot write \(path): \(String(cString: strerror(code)))")
    }
}
