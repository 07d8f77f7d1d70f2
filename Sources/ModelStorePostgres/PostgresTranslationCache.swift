import ModelStore
import Synchronization

/// The translations of one store's SQL, shared by every session of its
/// container.
///
/// A context reads through a session of its own, made with the context, so
/// a cache per session would translate each statement again in every new
/// context; a fetch of 1,000 identifiers (`IN (?, ?, …)`) is a long text
/// whose translation costs more than its rows.
///
/// A translation depends on the translator alone, which is fixed for the
/// cache's life: the bootstrap, which learns the store's tables, makes a
/// new cache. The library's SQL is a closed set of shapes, but a list's
/// length is part of its text, so the cache holds at most `capacity`
/// texts, and starts again empty when it is full.
package final class PostgresTranslationCache: Sendable {
    package let translator: PostgresSQLTranslator
    private let capacity: Int
    private let entries = Mutex<[String: PostgresSQLTranslator.Translation]>([:])

    /// A cache of `translator`'s translations, of at most `capacity` texts.
    package init(translator: PostgresSQLTranslator, capacity: Int = 1024) {
        self.translator = translator
        self.capacity = max(1, capacity)
    }

    /// The translation of `sql`, made once.
    /// - Throws: `SQLiteError` when the translator refuses the SQL (see
    ///   `PostgresSQLTranslator.translate`); a refusal is not cached.
    package func translation(of sql: String) throws(SQLiteError) -> PostgresSQLTranslator.Translation {
        if let known = entries.withLock({ $0[sql] }) { return known }
        let translation = try translator.translate(sql)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[sql] = translation
        }
        return translation
    }

    /// The number of texts held, for tests.
    package var count: Int { entries.withLock { $0.count } }
}
