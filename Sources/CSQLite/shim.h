// The system SQLite, plus wrappers for the variadic configuration calls that
// Swift cannot call directly (sqlite3_db_config takes C varargs).
#ifndef MODELSTORE_CSQLITE_SHIM_H
#define MODELSTORE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Sets a boolean sqlite3_db_config option (such as SQLITE_DBCONFIG_DEFENSIVE)
/// and returns SQLite's result code.
static inline int modelstore_db_config_flag(sqlite3 *db, int option, int enabled) {
    return sqlite3_db_config(db, option, enabled, (int *)0);
}

#endif
