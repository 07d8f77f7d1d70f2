import Foundation
@testable import ModelStore

/// The example app's models (Tools/Example/Models.swift) before and after the
/// scripts in the repository's Migrations/ folder.
enum ExampleV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    enum TripStatus: String, Codable { case planned, booked, done }
    struct Budget: Codable, Hashable { var amount: Int; var currency: String }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var startDate: Date
        var budget: Budget?
        var tags: [String] = []
        var status: TripStatus = .planned
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
            self.startDate = Date(timeIntervalSince1970: 1_750_000_000)
        }
    }

    @Model final class Stop {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }
}

enum ExampleV11: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }

    @Model final class Trip {
        #Index<Trip>([\.destination, \.startDate])
        @Attribute(.unique) var name: String
        var destination: String
        var startDate: Date
        var budget: ExampleV1.Budget?
        var tags: [String] = []
        var status: ExampleV1.TripStatus = .planned
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
            self.startDate = Date(timeIntervalSince1970: 1_750_000_000)
        }
    }

    @Model final class Stop {
        var title: String
        var trip: Trip?
        var note: String?
        init(title: String) { self.title = title }
    }
}

/// The repository's Migrations/ folder.
let repositoryMigrations = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Migrations")

/// An example store of version 1.0 with three trips, one to Iceland.
func makeExampleV1Store() throws -> URL {
    let url = try TemporaryDirectory().file()
    let context = ModelContext(try ModelContainer(for: ExampleV1.schema, configurations: [migrationConfiguration(url)]))
    let lisbon = ExampleV1.Trip(name: "Lisbon", destination: "Portugal")
    lisbon.stops = [ExampleV1.Stop(title: "Belém")]
    context.insert(lisbon)
    context.insert(ExampleV1.Trip(name: "Reykjavik", destination: "Iceland"))
    let kyoto = ExampleV1.Trip(name: "Kyoto", destination: "Japan")
    kyoto.notes = "ryokan"
    context.insert(kyoto)
    try context.save()
    return url
}

/// A copy of the repository's scripts in a temporary folder, to add or change scripts.
func copyOfMigrations() throws -> URL {
    let folder = try TemporaryDirectory().url.appending(path: "Migrations")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: repositoryMigrations.path(percentEncoded: false))
    where name.hasSuffix(".yaml") || name.hasSuffix(".sql") {
        try FileManager.default.copyItem(at: repositoryMigrations.appending(path: name), to: folder.appending(path: name))
    }
    return folder
}
