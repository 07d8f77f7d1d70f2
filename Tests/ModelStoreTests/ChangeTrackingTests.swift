import Foundation
import Observation
import Testing
@testable import ModelStore

@Suite("Change tracking")
struct ChangeTrackingTests {
    /// A context with one saved trip, fetched fresh so that it is clean.
    private func savedTrip() throws -> (ModelContext, Trip, TestStore) {
        let store = try TestStore()
        let container = try store.container()
        let writer = ModelContext(container)
        writer.insert(makeTrip())
        try writer.save()
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        return (context, trip, store)
    }

    @Test func changedKeyPathsListTheChangedProperties() throws {
        let (context, trip, _) = try savedTrip()
        #expect(context.changedKeyPaths(of: trip).isEmpty)
        #expect(!context.hasChanges)
        trip.status = .booked
        trip.destination = "Spain"
        #expect(context.changedKeyPaths(of: trip) == [\Trip.destination, \Trip.status])
        #expect(context.changedPropertyNames(of: trip) == ["destination", "status"])
        #expect(context.hasChanges)
        #expect(trip.hasChanges)
        #expect(context.changedModelsArray.first as? Trip === trip)
        try context.save()
        #expect(context.changedKeyPaths(of: trip).isEmpty)
        #expect(!context.hasChanges)
    }

    @Test func settingAnEqualValueDoesNotDirty() throws {
        let (context, trip, _) = try savedTrip()
        trip.destination = "Portugal"
        trip.tags = []
        trip.notes = nil
        #expect(context.changedKeyPaths(of: trip).isEmpty)
        #expect(!context.hasChanges)
    }

    @Test func transientChangesDoNotDirty() throws {
        let (context, trip, _) = try savedTrip()
        trip.isSelected = true
        #expect(!context.hasChanges)
    }

    @Test func committedValueIsTheLastSavedValue() throws {
        let (context, trip, _) = try savedTrip()
        #expect(context.committedValue(of: trip, \.destination) == "Portugal")
        trip.destination = "Spain"
        trip.destination = "France"
        #expect(context.committedValue(of: trip, \.destination) == "Portugal")
        #expect(context.committedValue(of: trip, \.notes) == .some(nil))
        trip.notes = "n"
        #expect(context.committedValue(of: trip, \.notes) == .some(nil))
        try context.save()
        #expect(context.committedValue(of: trip, \.destination) == "France")
        #expect(context.committedValue(of: trip, \.notes) == .some("n"))
        // Never saved: no committed value.
        let fresh = makeTrip("New")
        context.insert(fresh)
        #expect(context.committedValue(of: fresh, \.destination) == nil)
    }

    @Test func aChangeAfterASaveOrRollbackRecordsItsOwnCommittedValue() throws {
        let (context, trip, _) = try savedTrip()
        // First cycle: destination first, then notes.
        trip.destination = "Spain"
        trip.notes = "first"
        try context.save()
        // Second cycle: another property first; the first cycle's value must
        // not stand in for it.
        trip.notes = "second"
        trip.destination = "France"
        #expect(context.committedValue(of: trip, \.notes) == .some("first"))
        #expect(context.committedValue(of: trip, \.destination) == "Spain")
        context.rollback()
        #expect(trip.notes == "first")
        #expect(trip.destination == "Spain")
        #expect(!context.hasChanges)
        // Third cycle after the rollback.
        trip.destination = "Italy"
        #expect(context.committedValue(of: trip, \.destination) == "Spain")
        #expect(context.committedValue(of: trip, \.notes) == .some("first"))
        context.rollback()
        #expect(trip.destination == "Spain")
    }

    @Test func inPlaceMutationIsTracked() throws {
        let (context, trip, store) = try savedTrip()
        trip.tags.append("beach")
        trip.tags.append("sun")
        #expect(context.changedKeyPaths(of: trip) == [\Trip.tags])
        #expect(context.committedValue(of: trip, \.tags) == [])
        try context.save()
        let reloaded = try ModelContext(try store.container()).fetch(FetchDescriptor<Trip>())
        #expect(reloaded.first?.tags == ["beach", "sun"])
    }

    @Test func saveWritesOnlyTheChangedColumns() throws {
        let (context, trip, _) = try savedTrip()
        var statements: [String] = []
        try context.connection().statementObserver = { statements.append($0) }
        trip.destination = "Spain"
        trip.status = .done
        try context.save()
        let updates = statements.filter { $0.hasPrefix("UPDATE") }
        #expect(
            updates == [
                #"UPDATE "Trip" SET "destination" = ?, "status" = ?, "_version" = "_version" + 1 WHERE "_pk" = ? AND "_version" = ?"#
            ])
        statements.removeAll()
        try context.save()
        #expect(statements.isEmpty, "a save without changes runs no SQL")
    }

    @Test func saveCostFollowsChangesNotRegisteredObjects() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(500)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>())
        var statements: [String] = []
        try context.connection().statementObserver = { statements.append($0) }
        trips[250].notes = "x"
        try context.save()
        #expect(statements.filter { $0.hasPrefix("UPDATE") }.count == 1)
        #expect(statements.count == 5, "BEGIN, one UPDATE, the history's transaction and change, COMMIT: \(statements)")
    }

    @Test func withObservationTrackingReportsModelChanges() throws {
        let (_, trip, _) = try savedTrip()
        let fired = Flag()
        withObservationTracking {
            _ = trip.destination
        } onChange: {
            fired.set()
        }
        trip.status = .done
        #expect(!fired.value, "changing an unobserved property does not notify")
        trip.destination = "Spain"
        #expect(fired.value)
    }

    /// An object whose properties were never read has no registrar yet; a
    /// write to it must still count as a change, and once a property is read
    /// under observation, later writes must notify.
    @Test func observationWorksAfterWritesToAnUnreadObject() throws {
        let (context, trip, _) = try savedTrip()
        trip.notes = "written before any read"
        #expect(context.changedKeyPaths(of: trip) == [\Trip.notes])
        let fired = Flag()
        withObservationTracking { _ = trip.notes } onChange: { fired.set() }
        trip.notes = "observed"
        #expect(fired.value)
    }

    @Test func differentUpdateShapesInOneSave() throws {
        let store = try TestStore()
        let container = try store.containerWithSavedTrips(4)
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        trips[0].destination = "A"
        trips[1].status = .done
        trips[2].destination = "C"
        trips[3].notes = "D"
        trips[3].status = .booked
        try context.save()
        let reloaded = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(reloaded.map(\.destination) == ["A", "Portugal", "C", "Portugal"])
        #expect(reloaded.map(\.status) == [.planned, .done, .planned, .booked])
        #expect(reloaded.map(\.notes) == [nil, nil, nil, "D"])
    }

    @Test func observationSeesInPlaceMutation() throws {
        let trip = makeTrip()
        let fired = Flag()
        withObservationTracking {
            _ = trip.tags
        } onChange: {
            fired.set()
        }
        trip.tags.append("x")
        #expect(fired.value)
    }

    @Test func detachedObjectsAreNotTracked() throws {
        let trip = makeTrip()
        trip.destination = "Spain"
        #expect(!trip.hasChanges)
        #expect(trip.modelContext == nil)
    }
}

/// A Sendable flag for observation callbacks.
final class Flag: @unchecked Sendable {
    // Only touched on the test's own thread: onChange runs synchronously in
    // the setter that triggers it.
    private(set) var value = false
    func set() { value = true }
}
