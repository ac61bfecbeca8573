#ifndef WATERFALL_CSQLITESWITCHES_H
#define WATERFALL_CSQLITESWITCHES_H

/// Turns a connection's enforcement of foreign keys on (`on` = 1) or off (0), even inside a
/// transaction (where `PRAGMA foreign_keys` does nothing), through `sqlite3_db_config`,
/// which Swift cannot call: it is variadic. `connection` is a `sqlite3 *`. Statements prepared
/// while enforcement is off carry no foreign-key checks; SQLite re-prepares the connection's
/// statements when the setting changes. Returns the setting now in force (0 or 1), or -1 when
/// SQLite refused the call.
int waterfall_sqlite_enforce_foreign_keys(void *connection, int on);

#endif
