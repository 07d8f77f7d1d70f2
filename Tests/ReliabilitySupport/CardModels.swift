import Foundation
import ModelStore

/// The models of the cross-process merge tests, in a namespace of their own.
public enum Shared {
    @Model public final class Card {
        @Attribute(.unique) public var key: String
        public var text: String
        public var count: Int
        public init(key: String, text: String, count: Int = 0) {
            self.key = key
            self.text = text
            self.count = count
        }
    }

    /// Opens (or creates) a store of cards.
    /// - Throws: what `ModelContainer` throws.
    public static func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Schema([Card.self]), configurations: [ModelConfiguration(url: url)])
    }
}
