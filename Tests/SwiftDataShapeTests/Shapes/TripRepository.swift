// A SwiftData data-layer file in SwiftData's exact spelling: the only line
// changed from the app's original is the import (`import SwiftData`).
import Foundation
import ModelStore

/// A repository of the shape real apps write: each function makes what it
/// needs from the container and returns models or identifiers.
struct TripRepository {
    let container: ModelContainer

    func trip(named name: String) throws -> Trip? {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })
        descriptor.fetchLimit = 1
        return try context.fetch(descriptor).first
    }

    func upcomingTrips(after date: Date) throws -> [Trip] {
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { trip in trip.startDate > date },
            sortBy: [SortDescriptor(\.startDate, order: .forward), SortDescriptor(\.name)]
        )
        return try context.fetch(descriptor)
    }

    func search(_ text: String) throws -> [Trip] {
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { trip in
                text.isEmpty || trip.name.localizedStandardContains(text)
                    || trip.destination.localizedStandardContains(text)
            },
            sortBy: [SortDescriptor(\Trip.name, order: .reverse)]
        )
        return try context.fetch(descriptor)
    }

    func numberOfUnplannedItems() throws -> Int {
        let context = ModelContext(container)
        return try context.fetchCount(FetchDescriptor<BucketListItem>(predicate: #Predicate { !$0.isInPlan }))
    }

    func tripIdentifiers() throws -> [PersistentIdentifier] {
        let context = ModelContext(container)
        return try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
    }

    func addItem(title: String, toTripWith id: PersistentIdentifier) throws {
        let context = ModelContext(container)
        guard let trip = context.model(for: id) as? Trip else { return }
        let item = BucketListItem(title: title, notes: "", hasReservation: false, isInPlan: false)
        trip.bucketList.append(item)
        if context.hasChanges {
            try context.save()
        }
    }

    func reserveAll(in trip: Trip) throws {
        guard let context = trip.modelContext else { return }
        try context.transaction {
            for item in trip.bucketList where !item.hasReservation {
                item.hasReservation = true
            }
        }
    }

    func totalBudget() throws -> Decimal {
        let context = ModelContext(container)
        var total = Decimal.zero
        try context.enumerate(FetchDescriptor<Trip>(), batchSize: 100) { trip in
            total += trip.budget
        }
        return total
    }

    func deletePastTrips(before date: Date) throws {
        let context = ModelContext(container)
        try context.delete(model: Trip.self, where: #Predicate { $0.endDate < date })
        try context.save()
    }

    func renameTrip(_ id: PersistentIdentifier, to name: String) throws {
        let context = ModelContext(container)
        context.autosaveEnabled = false
        guard let trip: Trip = context.registeredModel(for: id) ?? (context.model(for: id) as? Trip) else { return }
        trip.name = name
        context.processPendingChanges()
        try context.save()
    }
}
