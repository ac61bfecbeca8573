#include <sqlite3.h>
#include "CSQLiteSwitches.h"

int waterfall_sqlite_enforce_foreign_keys(void *connection, int on) {
    int now = -1;
    if (sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_ENABLE_FKEY, on, &now) != SQLITE_OK) return -1;
    return now;
}
