import Foundation

/// Where and how a container stores its objects, as SwiftData's
/// `ModelConfiguration`.
///
/// ```swift
/// ModelConfiguration(url: URL(filePath: "/var/lib/app/trips.store"))
/// ModelConfiguration(isStoredInMemoryOnly: true)
/// ModelConfiguration(url: url, allowsSave: false)   // read-only
/// ```
public struct ModelConfiguration: Sendable, CustomStringConvertible {
    /// A name for the configuration; also the default file's name.
    public let name: String
    /// The store file. For an in-memory store, a URL that names it in errors.
    public let url: URL
    /// True when objects live in memory only and vanish with the container.
    public let isStoredInMemoryOnly: Bool
    /// False for a read-only store: fetches work, `save()` throws.
    public let allowsSave: Bool
    /// The schema this configuration stores, when it differs from the container's.
    public let schema: Schema?
    /// A folder of migration scripts (`0001_name.yaml` or `.sql`) that
    /// opening the store applies, in order, before any migration plan or
    /// inferred migration; nil for none.
    public var migrationScriptsFolder: URL?
    /// How migrations at open run: snapshots, data loss, transactions,
    /// busy timeout, progress.
    public var migrationOptions = MigrationOptions()

    /// A store at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
    }

    /// A store in memory, or at the default location: `default.store` (or
    /// `NAME.store`) in the user's application-support folder
    /// (`~/.local/share` on Linux).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        if isStoredInMemoryOnly {
            self.url = URL(filePath: "/dev/null")
        } else {
            let folder =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            self.url = folder.appending(path: "\(name).store")
        }
    }

    /// The path errors use: the file's path, or "in-memory store NAME".
    var displayPath: String {
        isStoredInMemoryOnly ? "in-memory store \(name)" : url.path(percentEncoded: false)
    }

    public var description: String {
        "ModelConfiguration(\(displayPath)\(allowsSave ? "" : ", read-only"))"
    }
}
