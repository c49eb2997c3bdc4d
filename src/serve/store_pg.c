/*
 * store_pg.c - the catalogue in PostgreSQL, through libpq, for servers
 * that share one catalogue and one data folder (--db CONNINFO).
 *
 * Connections: a small pool, at most one per thread that may ask at once,
 * each opened when first needed; a thread takes a free one (waiting under
 * a mutex when none is), uses it alone and gives it back.  A connection
 * found dropped is reset (PQreset) with a line on standard error, and a
 * statement cut by the drop is run once more on the new connection (every
 * statement here may run twice: a read, or an insert that keeps a row
 * already there).  A server that cannot be reached makes the call return
 * STORE_DOWN (the request gets a 503), never ends the server.
 *
 * The table is made when missing, under an advisory lock so that servers
 * starting at once do not race on it.  Two servers storing the same upload
 * at once both insert its row: ON CONFLICT DO NOTHING keeps the first.
 * Every value is a parameter, never SQL text.  A password in the conninfo
 * is never written out: logs show the settings libpq reads from it, with
 * what libpq marks as secret masked.
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_db.h"

typedef struct pg_catalogue {
	catalogue base;
	char *conninfo;
	char shown[1024];      /* the conninfo as it may be logged */
	pthread_mutex_t lock;
	pthread_cond_t freed;
	int n;
	PGconn **conns;        /* NULL until first needed */
	unsigned char *busy;
} pg_catalogue;

/* Any key unique to this program: the advisory lock the table is made under. */
#define SCHEMA_LOCK "7365727665" /* "serve" */

static const char schema[] =
	"BEGIN;"
	"SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ");"
	"CREATE TABLE IF NOT EXISTS uploads("
	" hash text PRIMARY KEY NOT NULL,"
	" name text NOT NULL,"
	" size bigint NOT NULL,"
	" time bigint NOT NULL,"
	" variant text NOT NULL,"
	" clocks text NOT NULL,"
	" threads bigint NOT NULL,"
	" records bigint NOT NULL,"
	" duration_us bigint NOT NULL,"
	" status text NOT NULL,"
	/* the command's words: bytes, whatever their encoding */
	" message bytea NOT NULL,"
	" json text NOT NULL);"
	"COMMIT;";

void catalogue_pg_describe(const char *conninfo, char *out, size_t n)
{
	PQconninfoOption *opts = PQconninfoParse(conninfo, NULL), *o;
	size_t k = 0;

	out[0] = '\0';
	if (!opts) {
		snprintf(out, n, "(unreadable)");
		return;
	}
	for (o = opts; o->keyword && k < n; o++) {
		if (!o->val || !*o->val || (o->dispchar && o->dispchar[0] == 'D'))
			continue;
		k += (size_t)snprintf(out + k, n - k, "%s%s=%s", k ? " " : "", o->keyword,
		                      o->dispchar && o->dispchar[0] == '*' ? "***" : o->val);
	}
	PQconninfoFree(opts);
}

/* libpq's message on one line, without its trailing newline. */
static void say(const pg_catalogue *p, const char *what, const char *msg)
{
	char line[1024];
	size_t i;

	snprintf(line, sizeof line, "%s", msg ? msg : "");
	for (i = 0; line[i]; i++)
		if (line[i] == '\n' || line[i] == '\r' || line[i] == '\t')
			line[i] = ' ';
	while (i > 0 && line[i - 1] == ' ')
		line[--i] = '\0';
	fprintf(stderr, PROG ": serve: catalogue (PostgreSQL, %s): %s%s%s\n", p->shown, what,
	        line[0] ? ": " : "", line);
}

/* The server's notices ("relation already exists, skipping") are not news. */
static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static PGconn *pg_connect(const pg_catalogue *p)
{
	/* the conninfo last: what it says wins over these defaults */
	static const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
	const char *vals[] = {"10", "aflame-render", p->conninfo, NULL};
	PGconn *c = PQconnectdbParams(keys, vals, 1);

	if (c)
		PQsetNoticeProcessor(c, quiet, NULL);
	return c;
}

/* Connection `i`, open: made or reset as needed; NULL (said why) when the
 * server cannot be reached. */
static PGconn *ready(pg_catalogue *p, int i)
{
	if (!p->conns[i]) {
		p->conns[i] = pg_connect(p);
	} else if (PQstatus(p->conns[i]) != CONNECTION_OK) {
		say(p, "the connection was lost, reconnecting", NULL);
		PQreset(p->conns[i]);
		if (PQstatus(p->conns[i]) == CONNECTION_OK)
			say(p, "connected again", NULL);
	}
	if (!p->conns[i] || PQstatus(p->conns[i]) != CONNECTION_OK) {
		say(p, "cannot connect", p->conns[i] ? PQerrorMessage(p->conns[i]) : "out of memory");
		return NULL;
	}
	return p->conns[i];
}

static int take(pg_catalogue *p)
{
	int i;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		for (i = 0; i < p->n; i++)
			if (!p->busy[i])
				break;
		if (i < p->n)
			break;
		pthread_cond_wait(&p->freed, &p->lock);
	}
	p->busy[i] = 1;
	pthread_mutex_unlock(&p->lock);
	return i;
}

static void give_back(pg_catalogue *p, int i)
{
	pthread_mutex_lock(&p->lock);
	p->busy[i] = 0;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
}

/* Runs `sql` with its parameters on connection `i` (formats: NULL, all
 * text); its result, or NULL with *status STORE_DOWN or STORE_ERROR.  Run
 * once more when the connection dropped under it. */
static PGresult *run(pg_catalogue *p, int i, const char *sql, int np,
                     const char *const *vals, const int *lens, const int *fmts, int *status)
{
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		PGconn *c = ready(p, i);
		PGresult *res;
		ExecStatusType rs;
		if (!c) {
			*status = STORE_DOWN;
			return NULL;
		}
		res = PQexecParams(c, sql, np, NULL, vals, lens, fmts, 0);
		rs = PQresultStatus(res);
		if (res && (rs == PGRES_TUPLES_OK || rs == PGRES_COMMAND_OK))
			return res;
		if (PQstatus(c) == CONNECTION_BAD) {
			PQclear(res);
			continue; /* ready() says so and reconnects */
		}
		say(p, "a statement failed", res ? PQresultErrorMessage(res) : PQerrorMessage(c));
		PQclear(res);
		*status = STORE_ERROR;
		return NULL;
	}
	*status = STORE_DOWN;
	return NULL;
}

static int64_t col_int(const PGresult *res, int row, int col)
{
	return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A bytea column selected as encode(..., 'hex') (whatever the server's
 * bytea_output) as a NUL-terminated string; a NUL byte ends it. */
static char *col_bytes(const PGresult *res, int row, int col)
{
	const char *v = PQgetvalue(res, row, col);
	size_t n = strlen(v), i, k = 0;
	char *out;

	if (!(out = malloc(n / 2 + 1)))
		return NULL;
	for (i = 0; i + 1 < n; i += 2) {
		int hi = hexval(v[i]), lo = hexval(v[i + 1]);
		if (hi < 0 || lo < 0 || (hi | lo) == 0)
			break;
		out[k++] = (char)(hi * 16 + lo);
	}
	out[k] = '\0';
	return out;
}

static int pg_get(catalogue *c, const char *hash, upload_row *row)
{
	pg_catalogue *p = (pg_catalogue *)c;
	const char *vals[1] = {hash};
	PGresult *res;
	int i = take(p), r = STORE_ERROR;

	memset(row, 0, sizeof *row);
	res = run(p, i, "SELECT name,size,time,variant,clocks,threads,records,duration_us,"
	          "status,encode(message,'hex'),json FROM uploads WHERE hash=$1", 1, vals, NULL, NULL, &r);
	give_back(p, i);
	if (!res)
		return r;
	if (PQntuples(res) == 0) {
		PQclear(res);
		return 0;
	}
	snprintf(row->hash, sizeof row->hash, "%s", hash);
	row->name = strdup(PQgetvalue(res, 0, 0));
	row->size = (uint64_t)col_int(res, 0, 1);
	row->time = col_int(res, 0, 2);
	row->variant = strdup(PQgetvalue(res, 0, 3));
	row->clocks = strdup(PQgetvalue(res, 0, 4));
	row->threads = (uint64_t)col_int(res, 0, 5);
	row->records = (uint64_t)col_int(res, 0, 6);
	row->duration_us = (uint64_t)col_int(res, 0, 7);
	row->status = strdup(PQgetvalue(res, 0, 8));
	row->message = col_bytes(res, 0, 9);
	row->json = strdup(PQgetvalue(res, 0, 10));
	PQclear(res);
	if (!row->name || !row->variant || !row->clocks || !row->status || !row->message ||
	    !row->json) {
		upload_row_free(row);
		fputs(PROG ": serve: catalogue: out of memory\n", stderr);
		return STORE_ERROR;
	}
	return 1;
}

static int pg_put(catalogue *c, const upload_row *row)
{
	pg_catalogue *p = (pg_catalogue *)c;
	char size[24], when[24], threads[24], records[24], duration[24];
	const char *vals[12];
	int lens[12] = {0}, fmts[12] = {0};
	PGresult *res;
	int i, r = STORE_ERROR;

	snprintf(size, sizeof size, "%lld", (long long)row->size);
	snprintf(when, sizeof when, "%lld", (long long)row->time);
	snprintf(threads, sizeof threads, "%lld", (long long)row->threads);
	snprintf(records, sizeof records, "%lld", (long long)row->records);
	snprintf(duration, sizeof duration, "%lld", (long long)row->duration_us);
	vals[0] = row->hash;
	vals[1] = row->name;
	vals[2] = size;
	vals[3] = when;
	vals[4] = row->variant;
	vals[5] = row->clocks;
	vals[6] = threads;
	vals[7] = records;
	vals[8] = duration;
	vals[9] = row->status;
	vals[10] = row->message; /* bytea, sent as its bytes */
	lens[10] = (int)strlen(row->message);
	fmts[10] = 1;
	vals[11] = row->json;
	i = take(p);
	/* one statement: its own transaction */
	res = run(p, i, "INSERT INTO uploads(hash,name,size,time,variant,clocks,threads,records,"
	          "duration_us,status,message,json) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)"
	          " ON CONFLICT (hash) DO NOTHING", 12, vals, lens, fmts, &r);
	give_back(p, i);
	if (!res)
		return r;
	PQclear(res);
	return 0;
}

static int pg_list(catalogue *c, catalogue_each each, void *arg)
{
	pg_catalogue *p = (pg_catalogue *)c;
	PGresult *res;
	int i = take(p), r = STORE_ERROR, k;

	res = run(p, i, "SELECT hash,name,size,time,variant,threads,status FROM uploads "
	          "ORDER BY time DESC, hash COLLATE \"C\" LIMIT 1000", 0, NULL, NULL, NULL, &r);
	give_back(p, i);
	if (!res)
		return r;
	for (k = 0; k < PQntuples(res); k++) {
		upload_row row;
		const char *h = PQgetvalue(res, k, 0);
		if (!is_hash(h))
			continue;
		memset(&row, 0, sizeof row);
		memcpy(row.hash, h, SERVE_HASH_LEN + 1);
		row.name = PQgetvalue(res, k, 1);
		row.size = (uint64_t)col_int(res, k, 2);
		row.time = col_int(res, k, 3);
		row.variant = PQgetvalue(res, k, 4);
		row.threads = (uint64_t)col_int(res, k, 5);
		row.status = PQgetvalue(res, k, 6);
		each(arg, &row);
	}
	PQclear(res);
	return 0;
}

static void pg_close(catalogue *c)
{
	pg_catalogue *p = (pg_catalogue *)c;
	int i;

	for (i = 0; i < p->n; i++)
		if (p->conns[i])
			PQfinish(p->conns[i]);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
	free(p->conns);
	free(p->busy);
	free(p->conninfo);
	free(p);
}

static const catalogue_ops pg_ops = {pg_get, pg_put, pg_list, pg_close};

catalogue *catalogue_pg_open(const char *conninfo, int conns)
{
	pg_catalogue *p = calloc(1, sizeof *p);
	PGresult *res;

	if (conns < 1)
		conns = 1;
	if (!p || !(p->conninfo = strdup(conninfo)) ||
	    !(p->conns = calloc((size_t)conns, sizeof *p->conns)) ||
	    !(p->busy = calloc((size_t)conns, 1))) {
		fputs(PROG ": serve: out of memory\n", stderr);
		if (p) {
			free(p->conninfo);
			free(p->conns);
		}
		free(p);
		return NULL;
	}
	p->n = conns;
	p->base.ops = &pg_ops;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	catalogue_pg_describe(conninfo, p->shown, sizeof p->shown);
	if (!ready(p, 0)) {
		pg_close(&p->base);
		return NULL;
	}
	res = PQexec(p->conns[0], schema);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		say(p, "cannot make the table uploads",
		    res ? PQresultErrorMessage(res) : PQerrorMessage(p->conns[0]));
		PQclear(res);
		pg_close(&p->base);
		return NULL;
	}
	PQclear(res);
	fprintf(stderr, PROG ": serve: catalogue in PostgreSQL (%s)\n", p->shown);
	return &p->base;
}
