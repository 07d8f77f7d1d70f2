import Foundation
import Testing
@testable import ModelStore

/// Focused tests for the bugs the model-based test found, each in the
/// shortest form the shrinker gave.
@Suite("Model-based findings")
struct ModelBasedRegressionTests {
    @Test("A change made to a deleted object is undone by rollback, and its saved value stays known")
    func changeOfDeletedObjectRollsBack() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(1)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        context.delete(trip)
        trip.destination = "Spain"
        #expect(context.committedValue(of: trip, \.destination) == "Portugal")
        context.rollback()
        #expect(trip.destination == "Portugal")
        #expect(!trip.isDeleted && !trip.hasChanges && !context.hasChanges)
    }
}
