/// The SELECTs of related rows a context has built (see
/// `ModelContext.relatedRowsQuery`), by relationship, destination table and
/// kind of holders.
///
/// Every relationship fault runs one: building its text (the destination's
/// select columns, quoted and joined) cost many times what running it did,
/// once per fault, and the connection's cache then hashed the whole text to
/// find the statement. The text depends only on the relationship, the
/// destination table and the holders' kind, all fixed for the life of the
/// objects that key it; each query also keeps its statement.
struct RelatedRowsQueries {
    /// One SELECT, with the statement the context last ran it with.
    final class Query {
        let sql: String
        /// The column that holds each row's holder key.
        let holderColumn: Int32
        /// Kept so that a fault finds its statement without the connection
        /// hashing `sql` (see `Connection.cachedStatement(_:keptIn:)`); a
        /// context's connection never changes.
        var statement: Statement?

        init(sql: String, holderColumn: Int32) {
            self.sql = sql
            self.holderColumn = holderColumn
        }
    }

    /// Each query with what it was built for. A context's schema has a
    /// handful of relationships, so a search in order is cheaper than a
    /// dictionary (whose key type's first use also costs a runtime search of
    /// the process's conformances). Holding the relationship and the table
    /// keeps them alive, so that no other object takes their place.
    private var entries: [Entry] = []

    private struct Entry {
        let relationship: RuntimeRelationship
        let destination: EntityTable
        let holders: RelationshipSQL.Holders
        let query: Query
    }

    /// The query for `relationship` to `destination` for `holders`, built by
    /// `make` the first time it is asked for.
    /// - Throws: what `make` throws (nothing is kept then).
    mutating func query(
        _ relationship: RuntimeRelationship, destination: EntityTable, holders: RelationshipSQL.Holders,
        make: () throws -> Query
    ) rethrows -> Query {
        for entry in entries
        where entry.relationship === relationship && entry.destination === destination && entry.holders == holders {
            return entry.query
        }
        let query = try make()
        entries.append(Entry(relationship: relationship, destination: destination, holders: holders, query: query))
        return query
    }
}
