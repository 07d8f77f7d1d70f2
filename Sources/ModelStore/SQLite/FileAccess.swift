import Foundation

/// What opening a database file needs of the file system beyond SQLite's own
/// open: whether this process may write the file and its folder, and how to
/// read a file whose folder it may not write.
///
/// SQLite opens a file it cannot write read-only without saying so, and
/// reports it only at the first write ("attempt to write a readonly
/// database"); a WAL file whose folder cannot be written fails even to be
/// read, because a reader must create the `-shm` index beside it. These
/// checks turn both into an error that says which file or folder is not
/// writable, before anything runs.
enum FileAccess {
    /// Why a connection that writes cannot be opened on `location`, or nil
    /// when it can (or when SQLite will report the problem itself: a
    /// missing file or folder, an in-memory database).
    ///
    /// Writing needs the file and its folder: SQLite creates its journal
    /// files (`-wal`, `-shm`, or `-journal`) beside the file.
    static func reasonNotWritable(_ location: String, creating: Bool) -> String? {
        guard !location.isEmpty, location != ":memory:" else { return nil }
        // One access(2) per path, without a stat(2) first: only a refusal
        // of permission means "not writable"; any other failure (no such
        // file, a path through a file) means the path is not there, which
        // SQLite reports when it opens it.
        if access(location, W_OK) != 0 {
            let error = errno
            if isRefusal(error) {
                return "the file is not writable by this user (\(String(cString: strerror(error)))), "
                    + "so it can only be opened read-only"
            }
            if !creating { return nil }
        }
        let folder = folder(of: location)
        if access(folder, W_OK) != 0 {
            let error = errno
            guard isRefusal(error) else { return nil }
            return "its folder \(folder) is not writable by this user (\(String(cString: strerror(error)))), and SQLite "
                + "creates the store's journal files there, so it can only be opened read-only"
        }
        return nil
    }

    /// Why a read-only connection reads `location` as immutable (SQLite
    /// could not read it normally), as `Connection.immutableReason` states it.
    /// - Throws: `SQLiteError` (`SQLITE_CANTOPEN`) when the file's journal
    ///   holds changes that are not in the file yet: an immutable read
    ///   ignores the journal, so it would show the store as it was before
    ///   them, a silently wrong answer.
    ///
    /// SQLite's documentation (wal.html, "Read-Only Databases"): a read-only
    /// WAL database can be opened when its `-shm` and `-wal` files exist or
    /// can be created, or when the database is immutable. When neither of
    /// the first holds, only the immutable read remains, and it is right
    /// only while the file alone holds every committed transaction and
    /// nobody writes it meanwhile.
    static func immutableReason(_ location: String, path: String) throws(SQLiteError) -> String {
        for (suffix, what) in [("-wal", "write-ahead log"), ("-journal", "rollback journal")] {
            let journal = location + suffix
            // A WAL file is a 32-byte header, then frames; a journal with
            // any content may be a hot one. Either way the file alone is not
            // the store.
            let minimum: Int64 = suffix == "-wal" ? 32 : 0
            if let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? NSNumber,
                size.int64Value > minimum
            {
                throw SQLiteError(
                    extendedCode: SQLiteError.cannotOpen,
                    message: "its \(what) \(journal) holds changes that are not in the file yet, and this user cannot "
                        + "write the files SQLite needs to read them; open the store once as a user who can write its "
                        + "folder (that moves the changes into the file), or copy the store with its \(suffix) file to "
                        + "a writable folder",
                    path: path)
            }
        }
        let folder = folder(of: location)
        if access(folder, W_OK) != 0 { return "the folder is not writable" }
        if access(location + "-shm", F_OK) == 0 && access(location + "-shm", W_OK) != 0 {
            return "its -shm file is not writable"
        }
        return "SQLite cannot create its shared-memory index"
    }

    /// The `file:` URI that opens `location` immutable (and read-only):
    /// SQLite then takes no locks and never looks for a journal.
    static func immutableURI(_ location: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%?#")
        let encoded = location.addingPercentEncoding(withAllowedCharacters: allowed) ?? location
        // "file://" begins an authority; a path that begins with "/" takes an
        // empty one, so that "//x" stays a path.
        return (location.hasPrefix("/") ? "file://" : "file:") + encoded + "?mode=ro&immutable=1"
    }

    /// Whether `access(2)` failed because this user may not write the path
    /// (as opposed to the path not being there).
    private static func isRefusal(_ error: Int32) -> Bool {
        error == EACCES || error == EROFS || error == EPERM || error == ETXTBSY
    }

    /// The folder that holds `location` ("." for a bare file name).
    static func folder(of location: String) -> String {
        // The common case, a path to a file in a folder: what comes before
        // its last slash, without asking Foundation to normalize the path.
        if let slash = location.utf8.lastIndex(of: UInt8(ascii: "/")), slash != location.utf8.startIndex,
            location.utf8[location.utf8.index(before: slash)] != UInt8(ascii: "/"),
            location.utf8.index(after: slash) != location.utf8.endIndex
        {
            return String(location[..<slash])
        }
        let folder = (location as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }
}
