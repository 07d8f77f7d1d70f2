import Foundation
import GRDB
import ModelStore

// Twenty small entities for workload 9 (opening a container on an existing
// store). Each has three attributes, so the schema check and table setup
// scale with the number of entities, not with their size.

@Model final class Entity01 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity02 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity03 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity04 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity05 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity06 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity07 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity08 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity09 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity10 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity11 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity12 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity13 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity14 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity15 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity16 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity17 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity18 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity19 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

@Model final class Entity20 {
    var name: String
    var value: Int
    var date: Date
    init(name: String, value: Int, date: Date) {
        self.name = name
        self.value = value
        self.date = date
    }
}

/// The first entity's table as a GRDB record type, for its `fetchCount`.
struct Entity01Record: TableRecord {
    static let databaseTableName = "Entity01"
}

/// All twenty model types, in schema order.
var openEntityTypes: [any PersistentModel.Type] {
    [
        Entity01.self, Entity02.self, Entity03.self, Entity04.self, Entity05.self, Entity06.self, Entity07.self, Entity08.self, Entity09.self, Entity10.self,
        Entity11.self, Entity12.self, Entity13.self, Entity14.self, Entity15.self, Entity16.self, Entity17.self, Entity18.self, Entity19.self, Entity20.self,
    ]
}
