// The ModelStore example: a small trip planner, run end to end.
//
//     swift run modelstore-example [STORE-PATH]
//
// Without a path, the store is a new file in a new temporary folder. The
// models are in Models.swift; Output.swift only formats what is printed.

import Foundation
import ModelStore

do {
    let storeURL = try makeStoreURL(CommandLine.arguments.dropFirst().first)
    print("Store file: \(storeURL.path(percentEncoded: false))")
    let kyotoID = try planTrips(storeURL: storeURL)
    try reopen(storeURL: storeURL, kyotoID: kyotoID)
} catch {
    // ModelStoreError's description names the file, entity, property and row.
    FileHandle.standardError.write(Data("modelstore-example: error: \(error)\n".utf8))
    exit(1)
}

/// Steps 1 to 6 on one container. Returns Kyoto's identifier, to look it up
/// again after reopening the store.
func planTrips(storeURL: URL) throws -> PersistentIdentifier {
    // A container opens (or creates) the store and checks that it holds
    // these models' schema; contexts do the work.
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL))

    section("1. Insert four trips and save")
    let planner = ModelContext(container)
    let lisbonDraft = Trip(
        name: "Lisbon", destination: "Portugal", startDate: try day("2025-05-14"),
        budget: Budget(amount: 900, currency: "EUR"), tags: ["city", "food"])
    let drafts = [
        lisbonDraft,
        Trip(
            name: "Kyoto", destination: "Japan", startDate: try day("2025-10-02"),
            budget: Budget(amount: 2400, currency: "EUR"), tags: ["temples"]),
        Trip(name: "Reykjavik", destination: "Iceland", startDate: try day("2026-02-20"), tags: ["northern lights"]),
        Trip(
            name: "Patagonia", destination: "Argentina", startDate: try day("2026-11-05"),
            budget: Budget(amount: 3100, currency: "USD"), tags: ["hiking"]),
    ]
    lisbonDraft.stops = [Stop(title: "Belém"), Stop(title: "Alfama")]
    drafts[3].stops = [Stop(title: "Fitz Roy")]
    // Inserting a trip inserts its stops too.
    for trip in drafts { planner.insert(trip) }
    lisbonDraft.isSelected = true
    print("pending inserts: \(planner.insertedModelsArray.count); identifiers are temporary: \(lisbonDraft.persistentModelID.isTemporary)")
    try planner.save()
    print("saved; identifiers are now permanent: \(drafts.map { "\($0.persistentModelID)" }.joined(separator: ", "))")

    section("2. Fetch in a new context: trips with a budget, by start date")
    let context = ModelContext(container)
    let withBudget = FetchDescriptor<Trip>(
        predicate: #Predicate { $0.budget != nil },
        sortBy: [SortDescriptor(\.startDate)])
    printTable(tripHeader, tripRows(try context.fetch(withBudget)))
    var latest = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
    latest.fetchLimit = 1
    let latestNames = try context.fetch(latest).map(\.name).joined(separator: ", ")
    print("latest trip: \(latestNames); trips in all: \(try context.fetchCount(FetchDescriptor<Trip>()))")
    let lisbon = try trip(named: "Lisbon", in: context)
    print("Lisbon here is another object than the planner's: \(lisbon !== lisbonDraft); @Transient isSelected: \(lisbon.isSelected)")
    // Relationships load on first access: one query for Lisbon's stops.
    print("Lisbon's stops: \(lisbon.stops.map(\.title).joined(separator: ", ")); each stop's trip is Lisbon: \(lisbon.stops.allSatisfy { $0.trip === lisbon })")

    section("3. Edit a trip: the context tracks each property")
    let kyoto = try trip(named: "Kyoto", in: context)
    kyoto.status = .booked
    kyoto.budget = Budget(amount: 2650, currency: "EUR")
    kyoto.tags.append("ryokan")
    kyoto.destination = "Japan"  // the same value: not a change
    let shrine = Stop(title: "Fushimi Inari")
    shrine.trip = kyoto  // also appends it to kyoto.stops, and inserts it
    // changedKeyPaths(of:) gives key paths; changedPropertyNames(of:) their names.
    print("changed properties: \(context.changedPropertyNames(of: kyoto).joined(separator: ", "))")
    let committedStatus = context.committedValue(of: kyoto, \.status)
    let committedBudget = context.committedValue(of: kyoto, \.budget) ?? nil
    print("status: saved \(committedStatus?.rawValue ?? "?"), now \(kyoto.status.rawValue)")
    print("budget: saved \(committedBudget.map { "\($0.amount) \($0.currency)" } ?? "-"), now \(kyoto.budgetText)")
    print("hasChanges: \(context.hasChanges), changed objects: \(context.changedModelsArray.count)")
    try context.save()  // UPDATE "Trip" SET "budget" = ?, "tags" = ?, "status" = ? WHERE "_pk" = ?
    print("saved; changed properties now: \(context.changedKeyPaths(of: kyoto).count)")

    section("4. Roll back unsaved changes")
    let reykjavik = try trip(named: "Reykjavik", in: context)
    reykjavik.notes = "Book the glacier walk"
    reykjavik.startDate = try day("2026-03-01")
    let oslo = Trip(name: "Oslo", destination: "Norway", startDate: try day("2026-06-21"))
    context.insert(oslo)
    print("pending: \(context.changedModelsArray.count) changed, \(context.insertedModelsArray.count) inserted")
    context.rollback()
    print("after rollback: Reykjavik notes \(reykjavik.notes ?? "nil"), start \(reykjavik.startDate.dayText); Oslo is in no context: \(oslo.modelContext == nil)")
    do {
        try context.transaction {
            reykjavik.status = .booked
            throw ExampleError("the card was declined")
        }
    } catch {
        print("transaction threw (\(error)); Reykjavik status is back to \(reykjavik.status.rawValue)")
    }

    section("5. Insert a trip whose unique name exists: an upsert")
    let lisbonAgain = Trip(
        name: "Lisbon", destination: "Portugal", startDate: try day("2025-06-10"),
        budget: Budget(amount: 1100, currency: "EUR"), tags: ["city", "food", "surf"])
    context.insert(lisbonAgain)
    try context.save()
    print("trips in the store: \(try context.fetchCount(FetchDescriptor<Trip>()))")
    print("the registered Lisbon (\(lisbon.persistentModelID)) took the new values: start \(lisbon.startDate.dayText), budget \(lisbon.budgetText)")
    print("the inserted object left the context: \(lisbonAgain.modelContext == nil)")

    section("6. Delete a trip; identifiers are never reused")
    let patagonia = try trip(named: "Patagonia", in: context)
    let patagoniaID = patagonia.persistentModelID
    let stopsBefore = try context.fetchCount(FetchDescriptor<Stop>())
    context.delete(patagonia)
    context.insert(oslo)
    try context.save()
    let found = context.model(for: patagoniaID)
    print("deleted \(patagoniaID); model(for:) finds \(found == nil ? "nothing" : "an object")")
    print("its stop went with it (delete rule .cascade): stops \(stopsBefore) -> \(try context.fetchCount(FetchDescriptor<Stop>()))")
    // Keys are AUTOINCREMENT: Patagonia's is never handed out again. The upsert
    // in step 5 used up a key too, so Oslo's key skips one.
    print("new trip Oslo got \(oslo.persistentModelID)")
    return kyoto.persistentModelID
}

/// Step 7: a new container on the same file reads what the first one saved.
func reopen(storeURL: URL, kyotoID: PersistentIdentifier) throws {
    section("7. Reopen the store from disk")
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL))
    let context = ModelContext(container)
    var byDate = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)])
    // Every trip's stops in one query, instead of one query per trip.
    byDate.relationshipKeyPathsForPrefetching = [\.stops]
    let trips = try context.fetch(byDate)
    printTable(tripHeader, tripRows(trips))
    for trip in trips where !trip.stops.isEmpty {
        print("stops of \(trip.name): \(trip.stops.map(\.title).joined(separator: " → "))")
    }

    // Identifiers are Sendable and Codable, name the store and the row, and
    // stay valid across contexts and containers.
    if let kyoto = try context.model(for: kyotoID, as: Trip.self) {
        print("\nmodel(for: \(kyotoID)) -> \(kyoto.name), \(kyoto.status.rawValue), \(kyoto.budgetText)")
    }
    print("\(kyotoID) is entity \(kyotoID.entityName), row \(kyotoID.rowID.map(String.init) ?? "none"), store \(kyotoID.storeIdentifier ?? "none")")
    print("\nLook inside: sqlite3 \(storeURL.path(percentEncoded: false)) .schema")
}

/// The first trip with this name.
func trip(named name: String, in context: ModelContext) throws -> Trip {
    var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })
    descriptor.fetchLimit = 1
    guard let trip = try context.fetch(descriptor).first else { throw ExampleError("no trip named \(name)") }
    return trip
}

/// The store file: the path given, or trips.store in a new temporary folder.
func makeStoreURL(_ path: String?) throws -> URL {
    if let path { return URL(filePath: path) }
    let folder = FileManager.default.temporaryDirectory.appending(path: "modelstore-example-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appending(path: "trips.store")
}
