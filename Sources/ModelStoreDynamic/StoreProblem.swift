import ModelStore

/// One problem that `DynamicStore.check()` found in a store, or that an
/// import's check found in a record of its file: what kind of problem it
/// is, where it is (entity, object, property, line, each when there is
/// one) and a plain message that reads on its own.
///
/// The structure is for programs (store-tool's JSON output, tests, a server);
/// the message is for people. Presentation beyond the message (a label per
/// kind, "did you mean" wording, where a JSONL line is named) is the
/// caller's: store-tool adds it.
///
/// ```swift
/// for problem in try store.check() where problem.kind == .danglingReference {
///     print(problem.object?.description ?? "?", problem.property ?? "", problem.message)
/// }
/// ```
package struct StoreProblem: Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is. The raw value is the kind's name in
    /// store-tool's JSON output.
    package enum Kind: String, Sendable, CaseIterable {
        // Found by `check` in a store.
        /// A schema object ModelStore did not make (a trigger, a view, a
        /// CHECK constraint, …): see `ForeignSchemaObject`.
        case foreignSchemaObject
        /// A line of SQLite's `PRAGMA integrity_check` other than `ok`: the
        /// file itself is damaged.
        case integrity
        /// A to-one's column (or, in an import, a relationship key) names an
        /// object that does not exist.
        case danglingReference
        /// A join row of a many-to-many relationship names an object that
        /// does not exist. (Join tables have no rowid, so SQLite's check
        /// cannot say which row.)
        case orphanedJoinRow
        /// The schema record and the file's tables or columns disagree.
        case schemaMismatch
        /// A one-to-one's object has more than one partner: several rows
        /// hold it, though its inverse is a to-one.
        case inverseConflict
        /// A to-many holds fewer or more objects than its count limits.
        case countOutOfLimits

        // Found by `check` and by an import's check.
        /// A value that does not decode as its recorded type, is not a case
        /// of its enum, or (in an import) has the wrong JSON shape.
        case badValue
        /// A required value or to-one that is null or missing.
        case missingRequiredValue
        /// A value (or `#Unique` tuple) that another object holds too.
        case duplicateUniqueValue

        // Found by an edit's check (`set`, `insert`, `link`) before it writes.
        /// An edit that would take an object out of a required relationship
        /// (a required to-one or the inverse of one), leaving it without
        /// its partner.
        case requiredRelationshipLost

        // Found by an import's check in a file.
        /// A JSONL line that is not a record.
        case unreadableRecord
        /// A record key or relationship key not of the form `Entity:ID`
        /// (of the right entity).
        case malformedKey
        /// A record key that appears more than once in the file.
        case duplicateKey
        /// A record of an entity the store does not have.
        case unknownEntity
        /// A property the entity does not have.
        case unknownProperty
        /// An attribute given among the relationships, or a relationship
        /// among the attributes.
        case misplacedProperty
        /// A value left out whose recorded default does not parse (a schema
        /// record edited by hand).
        case unparsableDefault
        /// `import --upsert` of a record of an entity without unique
        /// attributes, by which a record would match an object.
        case noUniqueAttributes
        /// `import --upsert` of a record whose unique values match more than
        /// one object of the store, or of two records that match one object.
        case ambiguousMatch
    }

    /// What kind of problem it is.
    package let kind: Kind
    /// The entity the problem concerns, when it concerns one.
    package let entity: String?
    /// The object the problem concerns: in a store, its identifier; in an
    /// import, the record's key in the file.
    package let object: ObjectID?
    /// The property (or, for a unique rule, its label such as
    /// `(title, term)`) the problem concerns, when it concerns one.
    package let property: String?
    /// The line of a JSONL import file the problem is on (1-based); nil for
    /// a JSON export and for `check`.
    package let line: Int?
    /// The names closest to an unknown entity or property, closest first,
    /// for a "did you mean"; empty otherwise.
    package let suggestions: [String]
    /// What is wrong, in a sentence that names the entity, object and
    /// property itself, so that it reads on its own.
    package let message: String

    /// Makes a problem.
    package init(
        _ kind: Kind, entity: String? = nil, object: ObjectID? = nil, property: String? = nil,
        line: Int? = nil, suggestions: [String] = [], message: String
    ) {
        self.kind = kind
        self.entity = entity
        self.object = object
        self.property = property
        self.line = line
        self.suggestions = suggestions
        self.message = message
    }

    /// The same problem, found on `line` of a JSONL file (nil: unchanged).
    package func on(line: Int?) -> StoreProblem {
        guard let line else { return self }
        return StoreProblem(
            kind, entity: entity, object: object, property: property, line: line, suggestions: suggestions,
            message: message)
    }

    /// The message.
    package var description: String { message }
}

/// The problems an import's check found: the first `kept` are listed, the
/// rest only counted, so that a file of a million bad records does not hold
/// a million problems.
package struct ImportProblems: Sendable, Equatable {
    /// The problems listed, in the order found.
    package private(set) var listed: [StoreProblem] = []
    /// The number of problems found, listed or not.
    package private(set) var count = 0
    /// How many problems are listed at most.
    package static let kept = 1000

    /// True when no problem was found.
    package var isEmpty: Bool { count == 0 }
    /// The number of problems found but not listed.
    package var unlisted: Int { count - listed.count }

    /// Makes an empty list.
    package init() {}

    /// Counts `problem`, and lists it while fewer than `kept` are listed.
    package mutating func append(_ problem: StoreProblem) {
        count += 1
        if listed.count < Self.kept { listed.append(problem) }
    }

    /// Appends each of `problems`.
    package mutating func append(contentsOf problems: [StoreProblem]) { for problem in problems { append(problem) } }
}
