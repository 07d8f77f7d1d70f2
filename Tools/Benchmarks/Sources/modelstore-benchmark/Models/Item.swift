import Foundation
import ModelStore

/// The benchmark's entity: six attributes (Int, String, Double, Int, Date,
/// Bool). Its table is what every contender reads and writes:
/// `"Item" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "number" INTEGER, "name"
/// TEXT, "score" ANY, "rank" INTEGER, "created" REAL, "flag" INTEGER) STRICT`.
@Model final class Item {
    var number: Int
    var name: String
    var score: Double
    var rank: Int
    var created: Date
    var flag: Bool

    init(number: Int, name: String, score: Double, rank: Int, created: Date, flag: Bool) {
        self.number = number
        self.name = name
        self.score = score
        self.rank = rank
        self.created = created
        self.flag = flag
    }
}

/// What the raw C and GRDB Statement contenders fill: a plain Swift object with
/// the same six properties (and the row's key, to write it back).
///
/// Not final only so that `PlainItemWithState` can add a field; the
/// properties are final, so reading them costs what it would in a final class.
class PlainItem {
    final var id: Int64
    final var number: Int
    final var name: String
    final var score: Double
    final var rank: Int
    final var created: Date
    final var flag: Bool

    required init(id: Int64, number: Int, name: String, score: Double, rank: Int, created: Date, flag: Bool) {
        self.id = id
        self.number = number
        self.name = name
        self.score = score
        self.rank = rank
        self.created = created
        self.flag = flag
    }
}

/// What the diagnostic contender "raw C + state object" fills (workload 2, no
/// target): a `PlainItem` that also allocates, with itself, an object the
/// size of ModelStore's per-object state (`ModelState`, 104 bytes with its
/// header). It prices that second allocation on its own: a fetched object
/// paid it until states were made on first use, and an object still pays it
/// when it is first written or observed (see the README's Performance
/// section).
final class PlainItemWithState: PlainItem {
    let state = StandInState()
}

/// 104 bytes, as `ModelState`: a 16-byte header and 88 bytes of fields.
final class StandInState {
    var fields: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
