#ifndef LOCSTREAM_CSQLITE_SHIM_H
#define LOCSTREAM_CSQLITE_SHIM_H
/* SQLite 3 (Debian libsqlite3-dev), imported by the LocationStore target only. */
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import:
   binding with it makes SQLite copy the value before the call returns. */
static inline sqlite3_destructor_type locstream_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
