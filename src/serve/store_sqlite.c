/*
 * store_sqlite.c - the catalogue in SQLite: <data>/catalogue.sqlite, in
 * WAL mode with full syncs, one connection shared by the server's threads
 * (serialized by a mutex), each row written in an immediate transaction.
 * One server owns the folder.
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_db.h"

typedef struct sqlite_catalogue {
	catalogue base;
	sqlite3 *db;
	pthread_mutex_t lock;
} sqlite_catalogue;

static const char schema[] =
	"PRAGMA journal_mode=WAL;"
	"PRAGMA synchronous=FULL;"
	"CREATE TABLE IF NOT EXISTS uploads("
	" hash TEXT PRIMARY KEY NOT NULL,"
	" name TEXT NOT NULL,"
	" size INTEGER NOT NULL,"
	" time INTEGER NOT NULL,"
	" variant TEXT NOT NULL,"
	" clocks TEXT NOT NULL,"
	" threads INTEGER NOT NULL,"
	" records INTEGER NOT NULL,"
	" duration_us INTEGER NOT NULL,"
	" status TEXT NOT NULL,"
	" message TEXT NOT NULL,"
	" json TEXT NOT NULL);";

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

static int sqlite_get(catalogue *c, const char *hash, upload_row *row)
{
	sqlite_catalogue *s = (sqlite_catalogue *)c;
	sqlite3_stmt *st = NULL;
	int r = STORE_ERROR, rc;

	memset(row, 0, sizeof *row);
	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "SELECT name,size,time,variant,clocks,threads,records,"
	                       "duration_us,status,message,json FROM uploads WHERE hash=?",
	                       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		r = 0;
	} else if (rc == SQLITE_ROW) {
		snprintf(row->hash, sizeof row->hash, "%s", hash);
		row->name = col_text(st, 0);
		row->size = (uint64_t)sqlite3_column_int64(st, 1);
		row->time = sqlite3_column_int64(st, 2);
		row->variant = col_text(st, 3);
		row->clocks = col_text(st, 4);
		row->threads = (uint64_t)sqlite3_column_int64(st, 5);
		row->records = (uint64_t)sqlite3_column_int64(st, 6);
		row->duration_us = (uint64_t)sqlite3_column_int64(st, 7);
		row->status = col_text(st, 8);
		row->message = col_text(st, 9);
		row->json = col_text(st, 10);
		r = 1;
		if (!row->name || !row->variant || !row->clocks || !row->status || !row->message ||
		    !row->json) {
			upload_row_free(row);
			r = STORE_ERROR;
		}
	}
out:
	if (r < 0)
		fprintf(stderr, PROG ": serve: catalogue: %s\n", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return r;
}

static int sqlite_put(catalogue *c, const upload_row *row)
{
	sqlite_catalogue *s = (sqlite_catalogue *)c;
	sqlite3_stmt *st = NULL;
	int r = STORE_ERROR;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO uploads VALUES"
	                       "(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	sqlite3_bind_text(st, 1, row->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, row->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)row->size);
	sqlite3_bind_int64(st, 4, row->time);
	sqlite3_bind_text(st, 5, row->variant, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, row->clocks, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)row->threads);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)row->records);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)row->duration_us);
	sqlite3_bind_text(st, 10, row->status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, row->message, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, row->json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE ||
	    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	r = 0;
out:
	if (r < 0)
		fprintf(stderr, PROG ": serve: catalogue: %s\n", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return r;
}

static const char *text_or_empty(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

static int sqlite_list(catalogue *c, catalogue_each each, void *arg)
{
	sqlite_catalogue *s = (sqlite_catalogue *)c;
	sqlite3_stmt *st = NULL;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "SELECT hash,name,size,time,variant,threads,status "
	                       "FROM uploads ORDER BY time DESC, hash LIMIT 1000",
	                       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			upload_row row;
			const char *h = (const char *)sqlite3_column_text(st, 0);
			if (!h || !is_hash(h))
				continue;
			memset(&row, 0, sizeof row);
			memcpy(row.hash, h, SERVE_HASH_LEN + 1);
			row.name = (char *)text_or_empty(st, 1);
			row.size = (uint64_t)sqlite3_column_int64(st, 2);
			row.time = sqlite3_column_int64(st, 3);
			row.variant = (char *)text_or_empty(st, 4);
			row.threads = (uint64_t)sqlite3_column_int64(st, 5);
			row.status = (char *)text_or_empty(st, 6);
			each(arg, &row);
		}
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void sqlite_close(catalogue *c)
{
	sqlite_catalogue *s = (sqlite_catalogue *)c;

	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const catalogue_ops sqlite_ops = {sqlite_get, sqlite_put, sqlite_list, sqlite_close};

catalogue *catalogue_sqlite_open(const char *dir)
{
	sqlite_catalogue *s = calloc(1, sizeof *s);
	char path[4096];
	char *err = NULL;

	if (!s) {
		fputs(PROG ": serve: out of memory\n", stderr);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/catalogue.sqlite", dir);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, schema, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, PROG ": serve: %s: %s\n", path,
		        err ? err : s->db ? sqlite3_errmsg(s->db) : "cannot open");
		sqlite3_free(err);
		if (s->db)
			sqlite3_close(s->db);
		free(s);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, 10000);
	pthread_mutex_init(&s->lock, NULL);
	s->base.ops = &sqlite_ops;
	return &s->base;
}
