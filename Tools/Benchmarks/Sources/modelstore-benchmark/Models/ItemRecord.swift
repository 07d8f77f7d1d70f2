import Foundation
import GRDB

/// The GRDB record contender's model: a struct with GRDB's record protocols,
/// reading and writing columns by name. Dates are stored as seconds since
/// 1970 (REAL), as ModelStore stores them, not as GRDB's default text.
struct ItemRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "Item"

    var id: Int64?
    var number: Int
    var name: String
    var score: Double
    var rank: Int
    var created: Date
    var flag: Bool

    init(id: Int64? = nil, number: Int, name: String, score: Double, rank: Int, created: Date, flag: Bool) {
        self.id = id
        self.number = number
        self.name = name
        self.score = score
        self.rank = rank
        self.created = created
        self.flag = flag
    }

    init(row: Row) throws {
        id = row["_pk"]
        number = row["number"]
        name = row["name"]
        score = row["score"]
        rank = row["rank"]
        created = Date(timeIntervalSince1970: row["created"])
        flag = row["flag"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["_pk"] = id
        container["number"] = number
        container["name"] = name
        container["score"] = score
        container["rank"] = rank
        container["created"] = created.timeIntervalSince1970
        container["flag"] = flag
    }
}
