// The system's SQLite for the raw C contender, and glibc's malloc_trim, which
// the harness calls to return freed heap before measuring a peak (Glibc's
// Swift module does not export <malloc.h>).
#include <sqlite3.h>
#include <malloc.h>
