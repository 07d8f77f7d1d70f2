// ModelStorePostgres: the foundation of the PostgreSQL backend (issue 24).
//
// What is here, all `package` (no app can use it yet, so nothing is public):
// - `PostgresLocation`: a `postgres://user:password@host:port/db?sslmode=`
//   URL; TLS off for loopback, required (and verified) elsewhere.
// - `PostgresExecutor`: one connection, synchronous (ModelContext's API is),
//   through postgres-nio's EventLoopFuture API and `wait()` on the caller's
//   thread, never on an event loop (refused) and never awaiting a Task;
//   statements with bound values, rows, transactions with an isolation
//   level, savepoints, errors classified in `PostgresStoreError`, reconnect
//   at the next use after a lost connection. One executor is one
//   connection, used by one thread at a time.
// - `PostgresDialect`: quoting (with PostgreSQL's 63-byte name limit),
//   `$n` placeholders, column types, INSERT … RETURNING, upsert with
//   ON CONFLICT; shaped to become a protocol beside SQLite's.
// - `PostgresValues`: every attribute kind to its column and back, exactly
//   or refused (see its doc comment for each kind).
// - `PostgresSchemaSQL`: the tables, constraints, indexes, join tables and
//   foreign keys of a `Schema`, named as in a SQLite store.
// - `PostgresBootstrap`: the metadata table and the tables, created once
//   under an advisory lock however many servers start at once, and the
//   schema record checked as SQLite's is (no migration yet).
//
// Primitives for several servers on one database (issue 24), not yet used
// by the library:
// - `PostgresChangeListener`: one per container, on a connection of its
//   own, LISTENs on the store's channel (`channel(forStore:)`, named after
//   the store identifier) and counts the notifications of sessions that
//   are not registered as the process's own; it keeps their payloads,
//   connects again by itself after a lost connection (with a growing
//   delay) and then counts one change, because notifications sent in
//   between are lost. `PostgresExecutor.notify(channel:payload:)` sends
//   one, delivered at COMMIT and never on ROLLBACK.
// - `PostgresConnectionPool`: executors for one location and schema, up to
//   a maximum (a checkout waits, then fails naming the server and the
//   limit), rolled back when given back inside a transaction, replaced
//   when their connection was lost.
// What the integration will do with them: the library's `data_version`
// check (ChangeCoordinator) becomes a comparison of the listener's
// `changeCount` with the last one seen, and a change read from the change
// history after the container's position as now; each save's transaction
// notifies the store's channel with its history token, and the container
// registers the backend process IDs of its own executors (again after
// each reconnect) so that its own saves are not merged twice; the
// contexts' executors come from the pool.
//
// What the library's context needs before apps can run on it (the seam):
// the typed paths read and write SQLite's `Statement` directly. `@Model`
// generates `init(_$row: PersistentRow)`, which reads columns through
// `PersistentRow.value(at:as:)` → `ColumnValue._decode(from: Statement,
// column:)`, and `_$bindValue(_:to: Statement, at:)`, which binds through
// `Statement.bindValue` → `ColumnValue._encode(into: Statement, at:)`;
// `PersistentRow` holds an `Unmanaged<Statement>`. The dynamic layer's
// `DynamicValue.decode(_:from:column:)` and `bind(to:at:)` take a
// `Statement` too. A row source and a bind sink protocol in the library
// (with SQLite's `Statement` as the inlinable fast path, so that SQLite
// keeps its speed), and `PostgresValues` behind them for PostgreSQL, are
// the next step; then the SQL the context writes (`SchemaSQL`,
// `RelationshipSQL`, which uses SQLite's `json_each` for key lists, and the
// predicate compiler) goes through a dialect.
