import Foundation
import ModelStore

/// The records an import reads, once to check them and again to write them:
/// a JSON export held in memory (`DynamicExportFile`), or a JSONL file of
/// records (one per line, as `export --format jsonl` writes them) streamed
/// line by line, so that parsing it takes memory for one line at a time.
package enum DynamicImportSource: Sendable {
    /// A JSON export, read whole. Its records may refer only to each other.
    case export(DynamicExportFile)
    /// A JSON export file streamed record by record (`ExportStream`). Its
    /// records may refer only to each other.
    case jsonExport(ExportStream)
    /// A JSONL file of records of any entities (each record's entity is the
    /// one its key names). A relationship key that is not a record of the
    /// file names an object of the store, which must exist.
    case jsonLines(path: String)
    /// A CSV file of one entity's objects (`CSVFormat`), streamed row by
    /// row: a header row of property names, then one object per row. A
    /// to-one's key that is not a record of the file names an object of
    /// the store, which must exist.
    case csv(path: String, entity: String)

    /// The import file at `path`: CSV of `entity` when `entity` is given or
    /// the name ends in `.csv` (then the entity is the name's stem, as in
    /// `Stop.csv`); JSONL when its first line is a record (an object with a
    /// `key`); otherwise a JSON export, streamed record by record (read
    /// whole when it is not an export, for the error that says why).
    /// - Throws: `DynamicStoreError.invalidImport` with one line when the
    ///   file cannot be read or is not an export.
    package static func open(path: String, entity: String? = nil) throws -> DynamicImportSource {
        if entity != nil || path.lowercased().hasSuffix(".csv") {
            return .csv(path: path, entity: entity ?? URL(filePath: path).deletingPathExtension().lastPathComponent)
        }
        let reader = try LineReader(path: path)
        var first: ArraySlice<UInt8>?
        while let line = try reader.nextLine() {
            if !line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) {
                first = line
                break
            }
        }
        if let first, let object = try? JSONSerialization.jsonObject(with: Data(first)) as? [String: Any], object["key"] != nil {
            return .jsonLines(path: path)
        }
        if let stream = try ExportStream.open(path: path) { return .jsonExport(stream) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DynamicStoreError.invalidImport(["cannot read the import file \(path)"])
        }
        return .export(try DynamicExportFile(data: data))
    }

    /// The schema an export records; nil for JSONL, which records none.
    package var schema: Schema? {
        switch self {
        case .export(let file): return file.schema
        case .jsonExport(let stream): return stream.schema
        case .jsonLines, .csv: return nil
        }
    }

    /// The size and modification time of a JSONL file (nil for an export
    /// in memory): the import checks that the file it writes from is the
    /// file it checked.
    /// - Throws: `DynamicStoreError.invalidImport` when the file is gone.
    func stamp() throws -> [String]? {
        let path: String
        switch self {
        case .export: return nil
        case .jsonExport(let stream): path = stream.path
        case .jsonLines(let file), .csv(let file, _): path = file
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw DynamicStoreError.invalidImport(["cannot read the import file \(path)"])
        }
        return ["\(attributes[.size] ?? "")", "\(attributes[.modificationDate] ?? "")"]
    }

    /// True when keys outside the file name objects of the store.
    var refersToStore: Bool {
        switch self {
        case .export, .jsonExport: return false
        case .jsonLines, .csv: return true
        }
    }

    /// Calls `body` with each record, or with the reason a line is not a
    /// record, and where it is (its 1-based line for JSONL and CSV, nil for
    /// a JSON export). A CSV file's rows become records of `schema`'s entity.
    /// - Throws: `DynamicStoreError.invalidImport` when the file cannot be
    ///   read (for CSV: its entity is not in `schema`, or its header names
    ///   no property); what `body` throws.
    func forEach(schema: Schema, _ body: (Result<DynamicExportFile.Record, ImportLineFailure>, _ line: Int?) throws -> Void) throws {
        switch self {
        case .export(let file):
            for record in file.records { try body(.success(record), nil) }
        case .jsonExport(let stream):
            try stream.forEach { try body(.success($0), nil) }
        case .jsonLines(let path):
            let reader = try LineReader(path: path)
            var number = 0
            while let line = try reader.nextLine() {
                number += 1
                if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
                let parsed: Result<DynamicExportFile.Record, ImportLineFailure>
                do throws(ImportLineFailure) {
                    parsed = .success(try Self.record(line))
                } catch {
                    parsed = .failure(ImportLineFailure(reason: "not a record of the form {\"key\":\"Entity:ID\",\"attributes\":{…},\"relationships\":{…}}: " + error.reason))
                }
                try body(parsed, number)
            }
        case .csv(let path, let name):
            guard let entity = schema.entity(named: name) else {
                let closest = Suggestions.closest(to: name, in: schema.entities.map(\.name))
                throw DynamicStoreError.invalidImport([
                    "\(path): the store has no entity named '\(name)' (a CSV file's entity is its name's stem, or --entity NAME)"
                        + (closest.isEmpty ? "" : "; did you mean '\(closest.joined(separator: "', '"))'?")
                ])
            }
            var reader = try CSVReader(path: path)
            let header = try reader.header(of: entity)
            var row = 0
            while let result = try reader.nextRow() {
                switch result {
                case .failure(let failure): try body(.failure(failure), reader.line)
                case .success(let fields) where header.count > 1 && fields == [nil]:
                    continue  // a blank line
                case .success(let fields):
                    row += 1
                    guard fields.count == header.count else {
                        try body(.failure(ImportLineFailure(reason: "\(fields.count) fields, but the header has \(header.count)")), reader.line)
                        continue
                    }
                    try body(.success(DynamicExportFile.Record(csv: fields, header: header, entity: entity, row: row)), reader.line)
                }
            }
        }
    }
}

extension DynamicImportSource {
    /// One line of a JSONL file as a record, its entity the one its key names.
    /// - Throws: `ImportLineFailure` when the line is not JSON or not a record.
    static func record(_ line: ArraySlice<UInt8>) throws(ImportLineFailure) -> DynamicExportFile.Record {
        let json: ExchangeJSON
        do throws(ExchangeJSONParser.Failure) {
            json = try ExchangeJSONParser.parse(line)
        } catch {
            throw ImportLineFailure(reason: error.description)
        }
        var record = try DynamicExportFile.Record(json: json)
        if let id = ObjectID(record.key) { record.entity = id.entity }
        return record
    }
}

/// Why one line of a JSONL import file is not a record.
struct ImportLineFailure: Error {
    let reason: String
}

/// Reads a file line by line through a fixed buffer: memory for the longest
/// line, never the whole file. Lines end with `\n` (a `\r` before it is
/// dropped); the last line may lack it.
final class LineReader {
    private let handle: FileHandle
    private let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private let keepsCarriageReturns: Bool

    /// Opens `path` for reading; with `keepsCarriageReturns`, a `\r` before
    /// a line's `\n` stays in the line (CSV keeps it inside quoted fields).
    /// - Throws: `DynamicStoreError.invalidImport` naming the file.
    init(path: String, keepsCarriageReturns: Bool = false) throws {
        self.keepsCarriageReturns = keepsCarriageReturns
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DynamicStoreError.invalidImport(["cannot read the import file \(path)"])
        }
        self.handle = handle
        self.path = path
    }

    deinit { try? handle.close() }

    /// The next line's bytes without its line ending; nil at the end.
    /// - Throws: `DynamicStoreError.invalidImport` when reading fails.
    func nextLine() throws -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                var end = newline
                if !keepsCarriageReturns && end > start && buffer[end - 1] == 13 { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 16)
            } catch {
                throw DynamicStoreError.invalidImport(["cannot read the import file \(path): \(error.localizedDescription)"])
            }
            guard let chunk, !chunk.isEmpty else {
                atEnd = true
                continue
            }
            buffer.append(contentsOf: chunk)
        }
    }
}
