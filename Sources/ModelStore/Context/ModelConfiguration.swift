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
    /// The migration that opening this store runs instead of the
    /// container's: one that applies a folder of migration scripts, in
    /// order, before any migration plan or inferred migration; nil for
    /// none. Set through `migrationScriptsFolder`, which ModelStoreScripts
    /// adds.
    package var openMigration: (any OpenMigrating)?
    /// The database the store lives in when it is not a SQLite file (the
    /// backend seam, see `ForeignDatabase`): each connection the store
    /// opens is one of its connections. Nil for a SQLite file or memory.
    package var foreignDatabase: ForeignDatabaseOpener?
    /// How migrations at open run: snapshots, data loss, transactions,
    /// busy timeout, progress.
    public var migrationOptions = MigrationOptions()

    /// The app group whose folder holds the store (see `GroupContainer`).
    public let groupContainer: GroupContainer
    /// The CloudKit database SwiftData would sync with; recorded only: there
    /// is no CloudKit on Linux, and ModelStore syncs with nothing.
    public let cloudKitDatabase: CloudKitDatabase
    /// True when the store lives at the default location, whose folder
    /// opening the container creates.
    let usesDefaultLocation: Bool

    /// The CloudKit container `cloudKitDatabase` names (`.private(_)`), as in SwiftData.
    public var cloudKitContainerIdentifier: String? { cloudKitDatabase.containerIdentifier }
    /// The app group `groupContainer` names (`.identifier(_)`), as in SwiftData.
    public var groupAppContainerIdentifier: String? { groupContainer.identifier }

    /// A store at `url`, as SwiftData's `init(_:schema:url:allowsSave:cloudKitDatabase:)`.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.groupContainer = .none
        self.cloudKitDatabase = cloudKitDatabase
        self.usesDefaultLocation = false
    }

    /// A store in memory, or at the default location, as SwiftData's
    /// `init(_:schema:isStoredInMemoryOnly:allowsSave:groupContainer:cloudKitDatabase:)`:
    /// `default.store` (or `NAME.store`) in the user's application-support
    /// folder (`$XDG_DATA_HOME`, or `~/.local/share`, on Linux), or in its
    /// subfolder named after the app group for `.identifier(_)`. Opening the
    /// container creates the folder.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.usesDefaultLocation = !isStoredInMemoryOnly
        if isStoredInMemoryOnly {
            self.url = URL(filePath: "/dev/null")
        } else {
            var folder =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            if let group = groupContainer.identifier { folder = folder.appending(path: group, directoryHint: .isDirectory) }
            self.url = folder.appending(path: "\(name).store")
        }
    }

    /// A store for these model types, in memory or at the default location,
    /// as SwiftData's `init(for:isStoredInMemoryOnly:)`.
    /// (At least one type is required, so that `ModelConfiguration()` stays
    /// unambiguous.)
    public init(
        for firstType: any PersistentModel.Type, _ moreTypes: any PersistentModel.Type...,
        isStoredInMemoryOnly: Bool = false
    ) {
        self.init(schema: Schema([firstType] + moreTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// The path errors use: the file's path, or "in-memory store NAME".
    var displayPath: String {
        if let foreignDatabase { return foreignDatabase.name }
        return isStoredInMemoryOnly ? "in-memory store \(name)" : url.path(percentEncoded: false)
    }

    public var description: String {
        "ModelConfiguration(\(displayPath)\(allowsSave ? "" : ", read-only"))"
    }
}

extension ModelConfiguration {
    /// Which app group's shared folder holds the store, as SwiftData's
    /// `ModelConfiguration.GroupContainer`. Linux has no app groups:
    /// `.automatic` and `.none` both mean the user's application-support
    /// folder, and `.identifier(name)` its subfolder `name`, which apps of one
    /// user that name the same group share.
    public struct GroupContainer: Sendable, Hashable {
        private enum Choice: Hashable { case automatic, none, named(String) }
        private let choice: Choice

        /// The group's name, for `.identifier(_)`.
        var identifier: String? {
            if case .named(let name) = choice { return name }
            return nil
        }

        /// The default: the application-support folder.
        public static let automatic = GroupContainer(choice: .automatic)
        /// No group: the application-support folder.
        public static let none = GroupContainer(choice: .none)
        /// The application-support folder's subfolder named `groupName`.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(choice: .named(groupName)) }
    }

    /// The CloudKit database SwiftData would sync the store with, as
    /// SwiftData's `ModelConfiguration.CloudKitDatabase`. There is no
    /// CloudKit on Linux: every choice is accepted and recorded
    /// (`cloudKitContainerIdentifier`), and the store is local only.
    public struct CloudKitDatabase: Sendable, Hashable {
        private enum Choice: Hashable { case automatic, none, privateDatabase(String) }
        private let choice: Choice

        /// The container's identifier, for `.private(_)`.
        var containerIdentifier: String? {
            if case .privateDatabase(let name) = choice { return name }
            return nil
        }

        /// SwiftData's default (the app's CloudKit container, if any): local only here.
        public static let automatic = CloudKitDatabase(choice: .automatic)
        /// No sync.
        public static let none = CloudKitDatabase(choice: .none)
        /// The private database of the container `dbName`: recorded, not synced.
        public static func `private`(_ dbName: String) -> CloudKitDatabase { CloudKitDatabase(choice: .privateDatabase(dbName)) }
    }
}
