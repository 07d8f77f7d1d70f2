// The system SQLite, plus wrappers for the variadic configuration calls that
// Swift cannot call directly (sqlite3_db_config and sqlite3_config take C varargs).
#ifndef MODELSTORE_CSQLITE_SHIM_H
#define MODELSTORE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Sets a boolean sqlite3_db_config option (such as SQLITE_DBCONFIG_DEFENSIVE)
/// and returns SQLite's result code.
static inline int modelstore_db_config_flag(sqlite3 *db, int option, int enabled) {
    return sqlite3_db_config(db, option, enabled, (int *)0);
}

/// Copies SQLite's current memory allocator into `methods`
/// (SQLITE_CONFIG_GETMALLOC); only before sqlite3_initialize. The
/// reliability tests use it to wrap the allocator with one that fails.
static inline int modelstore_config_get_malloc(sqlite3_mem_methods *methods) {
    return sqlite3_config(SQLITE_CONFIG_GETMALLOC, methods);
}

/// Makes `methods` SQLite's memory allocator (SQLITE_CONFIG_MALLOC); only
/// before sqlite3_initialize. SQLite copies the structure.
static inline int modelstore_config_malloc(const sqlite3_mem_methods *methods) {
    return sqlite3_config(SQLITE_CONFIG_MALLOC, methods);
}

#endif
