import Testing
@testable import ModelStore

@Suite("Values by property ordinal")
struct OrdinalMapTests {
    @Test func setsReplacesAndRemovesByOrdinal() {
        var map: OrdinalMap<String> = [:]
        #expect(map.isEmpty)
        map[3] = "three"
        map[1] = "one"
        map[3] = "THREE"
        #expect(map[3] == "THREE")
        #expect(map[1] == "one")
        #expect(map[2] == nil)
        map[1] = nil
        #expect(map[1] == nil)
        #expect(map.removeValue(forKey: 3) == "THREE")
        #expect(map.removeValue(forKey: 3) == nil)
        #expect(map.isEmpty)
    }

    @Test func aDefaultEntryIsMadeOnceAndChangedInPlace() {
        var map: OrdinalMap<[Int]> = [7: [1]]
        map[7, default: []].append(2)
        map[4, default: []].append(contentsOf: [3, 4])
        map[4, default: []].append(5)
        #expect(map[7] == [1, 2])
        #expect(map[4] == [3, 4, 5])
        #expect(map[9, default: [0]] == [0])
        #expect(map[9] == nil)
    }
}
