import Foundation
import Testing
@testable import ModelStore

@Suite("Migration building blocks")
struct MigrationBuildingBlockTests {
    @Test("The store format's upgrade SQL matches the files in Migrations/format")
    func formatFiles() throws {
        for upgrade in StoreFormat.upgrades {
            let text = try String(contentsOf: repositoryMigrations.appending(path: "format/\(upgrade.name)"), encoding: .utf8)
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == upgrade.sql)
        }
    }
}
