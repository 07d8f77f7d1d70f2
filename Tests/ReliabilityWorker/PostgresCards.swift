import Foundation
import ModelStore
import ModelStorePostgres
import ReliabilitySupport

// The worker's side of the two-process PostgreSQL test
// (Tests/ReliabilityTests/PostgresProcessesTests.swift): another server of
// the app, which opens the cards on the database the test holds open,
// commits the edits `cards` makes, and exits.

enum PostgresCards {
    /// `--url URL --schema NAME`: the cards in that PostgreSQL schema.
    /// - Throws: `WorkerError` when an option is missing; what
    ///   `ModelContainer` throws.
    static func container(_ options: Options) throws -> ModelContainer {
        let configuration = PostgresConfiguration(url: try options.string("url"), databaseSchema: try options.string("schema"))
        return try ModelContainer(for: Schema([Shared.Card.self]), configurations: [configuration])
    }
}
