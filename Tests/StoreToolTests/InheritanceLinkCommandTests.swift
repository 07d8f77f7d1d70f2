import Foundation
import ModelStore
import Testing

/// store-tool writing, deleting, checking and exchanging the links of a
/// subclass's to-ones whose inverses are to-manys: their columns are in the
/// hierarchy's table (Machine), never in a table named after the subclass.
extension InheritanceCommandTests {
    /// A store with Machine:1, Truck:2 and Truck:3 (both driven by Driver:1,
    /// both in Depot:1), and Driver:2 and Depot:2 holding nothing.
    private func truckStore() throws -> (url: URL, path: String, container: ModelContainer) {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appending(path: "trucks.store")
        let container = try ModelContainer(
            for: Machine.self, Truck.self, Driver.self, Depot.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let driver = Driver(name: "Ann")
        let depot = Depot(name: "North")
        context.insert(driver)
        context.insert(depot)
        context.insert(Machine(label: "Crane"))
        for label in ["T1", "T2"] {
            let truck = Truck(label: label)
            context.insert(truck)
            truck.owner = driver
            truck.depot = depot
        }
        context.insert(Driver(name: "Bob"))
        context.insert(Depot(name: "South"))
        try context.save()
        return (url, url.path(percentEncoded: false), container)
    }

    private func trucks(of driver: String, in container: ModelContainer) throws -> [String] {
        let drivers = try ModelContext(container).fetch(FetchDescriptor<Driver>(predicate: #Predicate { $0.name == driver }))
        return drivers.first?.trucks.map(\.label) ?? []
    }

    @Test("set of a subclass's to-one, and of the to-many inverse, writes the hierarchy's table and keeps both sides")
    func setSubclassToOne() throws {
        let (_, path, container) = try truckStore()
        let moved = try Fixture.runTool(["set", path, "Truck:3", "owner=Driver:2"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try trucks(of: "Ann", in: container) == ["T1"])
        #expect(try trucks(of: "Bob", in: container) == ["T2"])
        let back = try Fixture.runTool(["set", path, "Driver:1", "trucks+=Truck:3"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try trucks(of: "Ann", in: container) == ["T1", "T2"])
        #expect(try trucks(of: "Bob", in: container) == [])
        let wrongEntity = try Fixture.runTool(["set", path, "Driver:2", "trucks+=Truck:1"])
        #expect(wrongEntity.status != 0, "Machine:1 is not a Truck")
        let check = try Fixture.runTool(["check", path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test("delete of a subclass row others link to, of a holder whose rule nullifies it, and of one whose rule cascades")
    func deleteSubclassLinks() throws {
        let (_, path, container) = try truckStore()
        let truck = try Fixture.runTool(["delete", path, "Truck:2", "--yes"])
        #expect(truck.status == 0, "\(truck.stderr)")
        #expect(try trucks(of: "Ann", in: container) == ["T2"])

        let driver = try Fixture.runTool(["delete", path, "Driver:1", "--yes", "--verbose"])
        #expect(driver.status == 0, "\(driver.stderr)")
        #expect(driver.stdout.contains("Truck:3"), "the plan lists the nullified owner: \(driver.stdout)")
        #expect(driver.stdout.contains("nullify 1 link:\n  Truck.owner: 1 (nullify from Driver.trucks)"), "\(driver.stdout)")
        let context = ModelContext(container)
        let left = try context.fetch(FetchDescriptor<Truck>())
        #expect(left.map(\.label) == ["T2"])
        #expect(left.first?.owner == nil)

        let depot = try Fixture.runTool(["delete", path, "Depot:1", "--yes"])
        #expect(depot.status == 0, "\(depot.stderr)")
        #expect(try ModelContext(container).fetch(FetchDescriptor<Truck>()).isEmpty)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Machine>()).map(\.label) == ["Crane"])
        let check = try Fixture.runTool(["check", path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test("check finds a subclass's columns in the hierarchy's table")
    func checkHierarchy() throws {
        let (_, path, _) = try truckStore()
        let clean = try Fixture.runTool(["check", path])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(!clean.stdout.contains("schema:"), "\(clean.stdout)")
    }

    @Test("export and import of a hierarchy with a subclass's links give the same store")
    func exportImportLinks() throws {
        let (url, path, _) = try truckStore()
        let folder = url.deletingLastPathComponent()
        let file = folder.appending(path: "trucks.json").path(percentEncoded: false)
        let export = try Fixture.runTool(["export", path, "--format", "json", "--output", file])
        #expect(export.status == 0, "\(export.stderr)")
        let copy = folder.appending(path: "copy.store")
        let imported = try Fixture.runTool(["import", copy.path(percentEncoded: false), file])
        #expect(imported.status == 0, "\(imported.stderr)")
        let container = try ModelContainer(
            for: Machine.self, Truck.self, Driver.self, Depot.self, configurations: ModelConfiguration(url: copy))
        #expect(try trucks(of: "Ann", in: container) == ["T1", "T2"])
        let depots = try ModelContext(container).fetch(FetchDescriptor<Depot>(sortBy: [SortDescriptor(\.name)]))
        #expect(depots.map { $0.trucks.map(\.label).sorted() } == [["T1", "T2"], []])
        let again = try Fixture.runTool(["export", copy.path(percentEncoded: false), "--format", "json"])
        #expect(again.stdout == (try String(contentsOfFile: file, encoding: .utf8)))
        let check = try Fixture.runTool(["check", copy.path(percentEncoded: false)])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
