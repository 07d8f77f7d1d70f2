import Foundation
import ModelStore

// This target compiles with the main actor as its default isolation (see
// Package.swift), as Xcode 26 makes new app targets: every declaration here,
// the models included, is main-actor-isolated unless marked otherwise. The
// same files compile in Swift 5 mode, with warnings as errors, in
// MainActorModelsSwift5Tests (symbolic links).

/// A value type stored as its raw value. Under the default isolation its
/// conformances would be main-actor-isolated; the library reads and writes
/// values from nonisolated code, so the type is `nonisolated`, as any type
/// used by nonisolated code has to be.
nonisolated enum NoteStatus: String, Codable, CaseIterable {
    case draft, published
}

@Model
final class Notebook {
    @Attribute(.unique) var title: String
    var created = Date(timeIntervalSince1970: 1_700_000_000)
    @Relationship(deleteRule: .cascade, inverse: \Page.notebook, forwardsChanges: true)
    var pages: [Page] = []

    init(title: String) {
        self.title = title
    }
}

@Model
final class Page {
    var text: String
    var number: Int
    var status: NoteStatus = NoteStatus.draft
    var tags: [String] = []
    var notebook: Notebook?

    init(text: String, number: Int) {
        self.text = text
        self.number = number
    }
}

/// A model declared `nonisolated` in the main-actor module: `#Predicate`
/// and `SortDescriptor` need Sendable key paths, which Swift forms only for
/// properties that are not isolated to an actor.
@Model
nonisolated final class Label {
    var name: String
    var rank: Int

    init(name: String, rank: Int) {
        self.name = name
        self.rank = rank
    }
}
