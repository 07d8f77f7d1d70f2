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
//   at the next use after a lost connection. A pool is a later step: one
//   executor is one connection, used by one thread at a time.
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
