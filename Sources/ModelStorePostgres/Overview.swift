// ModelStorePostgres: the PostgreSQL store (issue 24). An app names it with
// `PostgresConfiguration`; everything else in the app is unchanged. The
// "Scaling out" article (ModelStore.docc) is the user's view; this is the map.
//
// How the library's SQLite-shaped work reaches the server:
// - The library's backend seam (Sources/ModelStore/SQLite/ForeignDatabase.swift):
//   a `Connection` made on a `ForeignDatabase` runs its statements there,
//   values crossing as SQLite's. `PostgresForeignDatabase` is that session:
//   it borrows an executor from the container's `PostgresConnectionPool`
//   per transaction (or statement outside one), translates each statement
//   once per container with `PostgresSQLTranslator` (the translations are
//   shared by every session: `PostgresTranslationCache`), and maps the
//   server's errors to SQLite's codes (`PostgresStoreError`). An upsert
//   into a table with several UNIQUE constraints is sent again targeting
//   the constraint its row collided with (`executeUpsert`), as SQLite's
//   targetless upsert matches any. Result cells of the common types are
//   read in place (`PostgresResultRows`), text bound into SQLite straight
//   from the server's bytes.
// - `PostgresExecutor`: one connection, synchronous (ModelContext's API is),
//   over postgres-nio's EventLoopFuture API, never waiting on an event loop;
//   transactions, savepoints, reconnect at the next use after a lost
//   connection. `PostgresLocation` reads the URL (TLS off for loopback).
// - Saves (PostgresForeignDatabase+DeferredWrites.swift): the save's
//   plain INSERTs, UPDATEs by key (version-checked, and the link writer's
//   positions and foreign keys) and join-table upserts are held back
//   (`PostgresWriteDeferral`) and sent as one statement per shape and
//   table (`PostgresBatchedWrite`), each column one array parameter
//   (`PostgresBinaryArray`, else `PostgresArrayText`); keys are reserved
//   from each table's identity in one statement before the rows come.
//   A failed batch is undone to a savepoint and its rows sent one by one,
//   so that the error names the object; an UPDATE batch that changed fewer
//   rows than it was given is sent again returning keys, so that each
//   conflict names its object.
// - Opening (`PostgresStore.opener`, in PostgresConfiguration.swift):
//   `PostgresBootstrap` creates or checks the store under an advisory lock
//   (so several servers may start at once), migrates additive changes
//   (`PostgresAdditiveMigration`), and reads the catalog the translator
//   needs (identity columns, column types). `PostgresSchemaSQL` and
//   `PostgresDialect` make the DDL; `PostgresValues` maps each value kind.
// - Several servers: writers take the store's advisory writer lock (one
//   writer at a time, as SQLite); a transaction that wrote NOTIFYs the
//   store's channel at COMMIT; `PostgresChangeListener` (one per container,
//   on a connection of its own) counts other servers' notifications, which
//   the library reads as SQLite's `data_version`, and then merges from the
//   change history as it does for other processes.
