import CSQLite
import Foundation

// A SQLite VFS that wraps the default one and fails the N-th open, write,
// sync or truncate with an error code, once or from then on. Test-only code:
// the worker registers it as the default VFS in its own process, so nothing
// else ever runs through it. Every unsafe pointer operation of the fault
// injection is in this file.
//
// Invariants the code below relies on:
// - SQLite gives xOpen a zeroed block of `szOsFile` bytes for each file. We
//   ask for `wrapperSize + base.szOsFile`: the first `wrapperSize` bytes are
//   our `sqlite3_file` (its `pMethods` points at `methods`), the rest is the
//   default VFS's own file object, which only the default VFS reads and
//   writes. `wrapperSize` is a multiple of 8, so the inner object is as
//   aligned as SQLite's allocation (8 bytes), which is what the default VFS
//   asks of it.
// - Our `pMethods` is set only when the inner file's is: SQLite calls xClose
//   exactly when `pMethods` is not NULL after xOpen, whether or not xOpen
//   succeeded, so the inner file is closed exactly when the default VFS
//   expects it to be.
// - The VFS object and the methods table are allocated once and never freed:
//   SQLite keeps pointers to them for the life of the process.
// - All counters are touched only from SQLite calls, and the worker uses
//   SQLite from one thread; that is why plain static variables suffice.
// - Apart from szOsFile, zName, pNext and xOpen, the VFS object is a copy of
//   the default one (pAppData included), so its other methods (delete,
//   access, full pathname, randomness, time) behave exactly as they do when
//   SQLite calls them with the default VFS.

/// The file operations a fault can hit.
public enum FileOperation: String, CaseIterable, Sendable {
    case open, write, sync, truncate
}

/// Which operation fails, from when, and with what code.
public struct FaultPlan: Sendable, CustomStringConvertible {
    public var operation: FileOperation
    /// 1-based: the first `operation` after arming is position 1.
    public var position: Int
    /// Fail every `operation` from `position` on, not only that one.
    public var persistent: Bool
    /// Fail with SQLITE_FULL instead of the operation's SQLITE_IOERR code.
    public var diskFull: Bool

    public init(operation: FileOperation, position: Int, persistent: Bool, diskFull: Bool) {
        self.operation = operation
        self.position = position
        self.persistent = persistent
        self.diskFull = diskFull
    }

    /// The code the failing operation returns.
    var code: Int32 {
        if diskFull { return SQLITE_FULL }
        switch operation {
        case .open: return SQLITE_CANTOPEN
        case .write: return SQLITE_IOERR | (3 << 8)  // SQLITE_IOERR_WRITE
        case .sync: return SQLITE_IOERR | (4 << 8)  // SQLITE_IOERR_FSYNC
        case .truncate: return SQLITE_IOERR | (6 << 8)  // SQLITE_IOERR_TRUNCATE
        }
    }

    public var description: String {
        "\(operation) #\(position) \(persistent ? "from then on" : "once") with \(diskFull ? "SQLITE_FULL" : "SQLITE_IOERR")"
    }
}

/// The fault-injecting VFS. `install()` once, before the first connection
/// opens; then `arm` and `disarm` around the work to fault.
public enum FaultVFS {
    private nonisolated(unsafe) static var plan: FaultPlan?
    private nonisolated(unsafe) static var seen: [FileOperation: Int] = [:]
    private nonisolated(unsafe) static var injected = 0
    private nonisolated(unsafe) static var base: UnsafeMutablePointer<sqlite3_vfs>?
    private nonisolated(unsafe) static var methods: UnsafeMutablePointer<sqlite3_io_methods>?

    static let wrapperSize = 8

    /// Makes the VFS the process's default.
    /// - Throws: `WorkerError` when SQLite has no default VFS or refuses the registration.
    public static func install() throws {
        guard self.base == nil else { return }
        guard let base = sqlite3_vfs_find(nil) else { throw WorkerError("SQLite has no default VFS") }
        precondition(MemoryLayout<sqlite3_file>.size <= wrapperSize, "sqlite3_file must fit in the wrapper")
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: makeMethods())
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.szOsFile = Int32(wrapperSize) + base.pointee.szOsFile
        vfs.pointee.zName = UnsafePointer(strdup("modelstore-faults"))
        vfs.pointee.pNext = nil
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            guard let file, let base = FaultVFS.base, let open = base.pointee.xOpen else { return SQLITE_CANTOPEN }
            file.pointee.pMethods = nil
            if let code = FaultVFS.fault(.open) { return code }
            let inner = FaultVFS.inner(file)
            let code = open(base, name, inner, flags, outFlags)
            if inner.pointee.pMethods != nil { file.pointee.pMethods = UnsafePointer(FaultVFS.methods) }
            return code
        }
        self.base = base
        self.methods = methods
        let code = sqlite3_vfs_register(vfs, 1)
        guard code == SQLITE_OK else { throw WorkerError("sqlite3_vfs_register failed with \(code)") }
    }

    /// Starts counting operations; the one `plan` names fails.
    public static func arm(_ plan: FaultPlan) {
        self.plan = plan
        seen = [:]
        injected = 0
    }

    /// Stops failing operations.
    /// - Returns: how many operations failed since `arm`.
    @discardableResult
    public static func disarm() -> Int {
        plan = nil
        return injected
    }

    /// Counts `operation`; returns the code to fail it with, or nil to let it run.
    static func fault(_ operation: FileOperation) -> Int32? {
        guard let plan else { return nil }
        let count = seen[operation, default: 0] + 1
        seen[operation] = count
        guard operation == plan.operation, count == plan.position || (plan.persistent && count > plan.position) else { return nil }
        injected += 1
        return plan.code
    }

    /// The default VFS's file object inside ours (see the layout above).
    static func inner(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        // The inner object's first member is its sqlite3_file, whose
        // pMethods is the only field read here.
        (UnsafeMutableRawPointer(file) + wrapperSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    /// The inner file's methods; SQLite only calls ours on a file whose
    /// inner file was opened, so they are set.
    static func innerMethods(_ file: UnsafeMutablePointer<sqlite3_file>?) -> (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods) {
        let inner = inner(file!)
        return (inner, inner.pointee.pMethods!.pointee)
    }

    private static func makeMethods() -> sqlite3_io_methods {
        sqlite3_io_methods(
            iVersion: 3,
            xClose: { file in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xClose(inner)
            },
            xRead: { file, buffer, amount, offset in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xRead(inner, buffer, amount, offset)
            },
            xWrite: { file, buffer, amount, offset in
                if let code = FaultVFS.fault(.write) { return code }
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xWrite(inner, buffer, amount, offset)
            },
            xTruncate: { file, size in
                if let code = FaultVFS.fault(.truncate) { return code }
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xTruncate(inner, size)
            },
            xSync: { file, flags in
                if let code = FaultVFS.fault(.sync) { return code }
                // The sweeps never lose power, so what a sync makes durable
                // is never tested; skipping the fsync saves most of their time.
                return SQLITE_OK
            },
            xFileSize: { file, size in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xFileSize(inner, size)
            },
            xLock: { file, level in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xLock(inner, level)
            },
            xUnlock: { file, level in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xUnlock(inner, level)
            },
            xCheckReservedLock: { file, result in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xCheckReservedLock(inner, result)
            },
            xFileControl: { file, operation, argument in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xFileControl(inner, operation, argument)
            },
            xSectorSize: { file in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xSectorSize(inner)
            },
            xDeviceCharacteristics: { file in
                let (inner, methods) = FaultVFS.innerMethods(file)
                return methods.xDeviceCharacteristics(inner)
            },
            // The shared-memory and memory-map methods exist from version 2
            // and 3 of the methods table; a file whose inner methods lack
            // one answers as SQLite's own VFSes do without it.
            xShmMap: { file, page, size, extend, address in
                let (inner, methods) = FaultVFS.innerMethods(file)
                guard methods.iVersion >= 2, let map = methods.xShmMap else { return SQLITE_IOERR }
                return map(inner, page, size, extend, address)
            },
            xShmLock: { file, offset, count, flags in
                let (inner, methods) = FaultVFS.innerMethods(file)
                guard methods.iVersion >= 2, let lock = methods.xShmLock else { return SQLITE_IOERR }
                return lock(inner, offset, count, flags)
            },
            xShmBarrier: { file in
                let (inner, methods) = FaultVFS.innerMethods(file)
                guard methods.iVersion >= 2, let barrier = methods.xShmBarrier else { return }
                barrier(inner)
            },
            xShmUnmap: { file, delete in
                let (inner, methods) = FaultVFS.innerMethods(file)
                guard methods.iVersion >= 2, let unmap = methods.xShmUnmap else { return SQLITE_OK }
                return unmap(inner, delete)
            },
            xFetch: { file, offset, amount, pointer in
                let (inner, methods) = FaultVFS.innerMethods(file)
                guard methods.iVersion >= 3, let fetch = methods.xFetch else {
                    pointer?.pointee = nil
                    return SQLITE_OK
                }
                return fetch(inner, offset, amount, pointer)
            },
            xUnfetch: { file, offset, pointer in
                let (inner, methods) = FaultVFS.innerMethods(file)
                guard methods.iVersion >= 3, let unfetch = methods.xUnfetch else { return SQLITE_OK }
                return unfetch(inner, offset, pointer)
            })
    }
}
