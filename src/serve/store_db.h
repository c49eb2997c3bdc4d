/*
 * store_db.h - the catalogue behind store.c: one row per upload, kept by
 * one of two backends,
 *
 *   store_sqlite.c   an SQLite database in the data folder (one server)
 *   store_pg.c       a PostgreSQL database through libpq, shared by every
 *                    server that names it with --db
 *
 * Both answer the same calls with the same rows; store.c holds what does
 * not depend on where the rows live (the data folder, hashes, the cache,
 * the --list page).  A backend never builds SQL from a row's text: every
 * value is a bound parameter.
 */
#ifndef AF_STORE_DB_H
#define AF_STORE_DB_H

#include "serve.h"

typedef struct catalogue catalogue;

/** Called by a listing for each row, newest first; only hash, name, size,
 * time, variant, threads and status are filled (never NULL). */
typedef void (*catalogue_each)(void *arg, const upload_row *row);

typedef struct catalogue_ops {
	/** store_get's contract. */
	int (*get)(catalogue *c, const char *hash, upload_row *row);
	/** store_put's: one transaction, a row already there kept. */
	int (*put)(catalogue *c, const upload_row *row);
	/** At most 1000 rows, newest first (then by hash).  0, STORE_ERROR or
	 * STORE_DOWN (`each` may have been called before an error). */
	int (*list)(catalogue *c, catalogue_each each, void *arg);
	/** Closes and frees `c`. */
	void (*close)(catalogue *c);
} catalogue_ops;

/** What every backend's catalogue starts with. */
struct catalogue {
	const catalogue_ops *ops;
};

/** The SQLite catalogue <dir>/catalogue.sqlite, made when missing.  NULL
 * after a message on standard error. */
catalogue *catalogue_sqlite_open(const char *dir);

/** The PostgreSQL catalogue the libpq conninfo (key=value pairs or a
 * postgresql:// URI) names, its table made when missing; at most `conns`
 * connections, opened when first needed and reopened when dropped.  NULL
 * after a message on standard error (which never shows a password). */
catalogue *catalogue_pg_open(const char *conninfo, int conns);

/** `conninfo` as it may be logged: its settings with any password
 * masked, in `out`; "(unreadable)" when libpq cannot parse it. */
void catalogue_pg_describe(const char *conninfo, char *out, size_t n);

#endif
