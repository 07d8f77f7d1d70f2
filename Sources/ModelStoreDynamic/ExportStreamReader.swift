import Foundation
import ModelStore

// A JSON export (`DynamicExchange`) read as a stream: its structure is
// scanned byte by byte through a fixed buffer, and only one record's bytes
// (or the schema's) are held and parsed at a time, with `ExchangeJSONParser`.
// So an import of a `json` export takes memory for its largest record, not
// for the file.
//
// Scanning finds where each value ends (strings with their escapes, the
// nesting of arrays and objects) without checking its grammar: every value
// the reader uses is then parsed strictly, and the whole top-level object is
// scanned once when the file is opened (`ExportStream.open`), so that a file
// that is not an export is refused before anything is checked. Whatever the
// scan finds wrong, the file is read whole instead (`DynamicExportFile`), so
// that a broken file gets exactly the error it always got.

/// Where a streamed JSON export's records are: its schema, and for each
/// entity the byte offset of its array of records.
package struct ExportStream: Sendable {
    /// The file.
    package let path: String
    /// The schema the export records.
    package let schema: Schema
    /// The offset of the `[` of each entity's records, by entity name (the
    /// first member of that name, as the whole-file reader takes it).
    let arrays: [String: Int]

    /// Scans the export at `path` once: its top-level members, each record
    /// parsed and checked to be a record (then dropped). Nil when the scan
    /// finds anything that is not an export: the caller reads the file whole
    /// for the exact error.
    /// - Throws: `DynamicStoreError.invalidImport` when the file cannot be read.
    static func open(path: String) throws -> ExportStream? {
        let reader = try ByteReader(path: path)
        do {
            var header: [String: ExchangeJSON] = [:]
            var arrays: [String: Int]?
            try reader.skipSpace()
            try reader.expect(UInt8(ascii: "{"))
            try reader.members { key in
                if header[key] != nil || (key == "entities" && arrays != nil) {
                    // The first of a repeated key counts; the others must
                    // still be JSON, as for the whole-file reader.
                    _ = try reader.parseValue()
                } else if key == "entities" {
                    arrays = try entityArrays(reader)
                } else {
                    header[key] = try reader.parseValue()
                }
            }
            try reader.skipSpace()
            guard try reader.peek() == nil, let arrays else { return nil }
            guard let schema = try? DynamicExportFile.schema(header: header) else { return nil }
            return ExportStream(path: path, schema: schema, arrays: arrays)
        } catch is ExportScanFailure {
            return nil
        }
    }

    /// The `entities` object: the offset of each entity's array, each record
    /// in it parsed as a record.
    private static func entityArrays(_ reader: ByteReader) throws -> [String: Int] {
        var arrays: [String: Int] = [:]
        try reader.expect(UInt8(ascii: "{"))
        try reader.members { name in
            guard arrays[name] == nil else {
                _ = try reader.parseValue()
                return
            }
            try reader.skipSpace()
            arrays[name] = reader.offset
            try reader.elements { _ = try record(reader) }
        }
        return arrays
    }

    /// The next value of `reader` as a record.
    private static func record(_ reader: ByteReader) throws -> DynamicExportFile.Record {
        let json = try reader.parseValue()
        do throws(ImportLineFailure) {
            return try DynamicExportFile.Record(json: json)
        } catch {
            throw ExportScanFailure()
        }
    }

    /// Calls `body` with each record, entity by entity (sorted by name, as
    /// the whole-file reader orders them), in file order within one.
    /// - Throws: `DynamicStoreError.invalidImport` when the file no longer
    ///   reads as it did when opened; what `body` throws.
    func forEach(_ body: (DynamicExportFile.Record) throws -> Void) throws {
        let reader = try ByteReader(path: path)
        for name in arrays.keys.sorted() {
            guard let offset = arrays[name] else { continue }
            do {
                try reader.seek(to: offset)
                try reader.elements {
                    var record = try Self.record(reader)
                    record.entity = name
                    try body(record)
                }
            } catch is ExportScanFailure {
                throw DynamicStoreError.invalidImport(["\(path): the file changed while it was imported"])
            }
        }
    }
}

/// The scan found something that is not JSON of an export's shape.
struct ExportScanFailure: Error {}

/// A file read forward through a fixed buffer, one byte at a time, with the
/// offset of each byte, a seek, and the JSON structure an export needs.
final class ByteReader {
    private let handle: FileHandle
    private let path: String
    private var buffer: [UInt8] = []
    private var position = 0
    /// The file offset of `buffer[0]`.
    private var bufferStart = 0
    private static let chunk = 1 << 16

    /// Opens `path` for reading.
    /// - Throws: `DynamicStoreError.invalidImport` naming the file.
    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DynamicStoreError.invalidImport(["cannot read the import file \(path)"])
        }
        self.handle = handle
        self.path = path
    }

    deinit { try? handle.close() }

    /// The file offset of the next byte.
    var offset: Int { bufferStart + position }

    /// Goes to `offset` of the file.
    /// - Throws: `DynamicStoreError.invalidImport` when reading fails.
    func seek(to offset: Int) throws {
        do {
            try handle.seek(toOffset: UInt64(offset))
        } catch {
            throw DynamicStoreError.invalidImport(["cannot read the import file \(path): \(error.localizedDescription)"])
        }
        buffer = []
        position = 0
        bufferStart = offset
    }

    /// The next byte without taking it; nil at the end of the file.
    func peek() throws -> UInt8? {
        if position == buffer.count {
            bufferStart += buffer.count
            position = 0
            do {
                buffer = [UInt8](try handle.read(upToCount: Self.chunk) ?? Data())
            } catch {
                throw DynamicStoreError.invalidImport(["cannot read the import file \(path): \(error.localizedDescription)"])
            }
            if buffer.isEmpty { return nil }
        }
        return buffer[position]
    }

    /// Takes the next byte.
    /// - Throws: `ExportScanFailure` at the end of the file.
    @discardableResult
    func take() throws -> UInt8 {
        guard let byte = try peek() else { throw ExportScanFailure() }
        position += 1
        return byte
    }

    func skipSpace() throws {
        while let byte = try peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    /// Takes `byte` after white space.
    /// - Throws: `ExportScanFailure` when another byte comes.
    func expect(_ byte: UInt8) throws {
        try skipSpace()
        guard try take() == byte else { throw ExportScanFailure() }
    }

    /// The members of an object whose `{` was taken: `body` is called with
    /// each key and must take its value.
    func members(_ body: (String) throws -> Void) throws {
        try skipSpace()
        if try peek() == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            guard case .string(let key) = try parseValue() else { throw ExportScanFailure() }
            try expect(UInt8(ascii: ":"))
            try body(key)
            try skipSpace()
            switch try take() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return
            default: throw ExportScanFailure()
            }
        }
    }

    /// The elements of an array: takes its `[`, then calls `body` for each
    /// element, which must take it.
    func elements(_ body: () throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        try skipSpace()
        if try peek() == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            try body()
            try skipSpace()
            switch try take() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return
            default: throw ExportScanFailure()
            }
        }
    }

    /// Takes the next value and parses it strictly.
    /// - Throws: `ExportScanFailure` when it is not JSON.
    func parseValue() throws -> ExchangeJSON {
        var bytes: [UInt8] = []
        try scanValue { bytes.append($0) }
        do throws(ExchangeJSONParser.Failure) {
            return try ExchangeJSONParser.parse(bytes[...])
        } catch {
            throw ExportScanFailure()
        }
    }

    /// Takes the next value, passing each of its bytes to `keep`: a string
    /// to its closing quote, an array or object to the bracket that closes
    /// it, anything else to the next delimiter.
    private func scanValue(_ keep: (UInt8) -> Void) throws {
        try skipSpace()
        guard let first = try peek() else { throw ExportScanFailure() }
        let isScalar = first != UInt8(ascii: "\"") && first != UInt8(ascii: "{") && first != UInt8(ascii: "[")
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            guard let byte = try peek() else {
                if isScalar { return }
                throw ExportScanFailure()
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    // A scalar ends before the bracket that closes its container.
                    if isScalar { return }
                    depth -= 1
                case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                    if isScalar { return }
                default: break
                }
            }
            position += 1
            keep(byte)
            if !isScalar && depth == 0 && !inString { return }
        }
    }
}
