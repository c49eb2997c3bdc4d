/*
 * store.c - the data folder: uploads content-addressed under traces/<hash>/
 * (each made whole in tmp/ and renamed into place), and the catalogue, an
 * SQLite database with one row per upload, written in a transaction once
 * the files are in place.  A folder under traces/ without a row is complete
 * (it came by rename) but was never acknowledged: the next upload of the
 * same bytes adopts it.
 */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve.h"

struct store {
	char *dir;
	sqlite3 *db;
	pthread_mutex_t lock;
	unsigned long next;
};

struct hasher {
	EVP_MD_CTX *ctx;
};

hasher *hasher_new(void)
{
	hasher *h = calloc(1, sizeof *h);

	if (!h)
		return NULL;
	if (!(h->ctx = EVP_MD_CTX_new()) || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(h->ctx);
		free(h);
		return NULL;
	}
	return h;
}

void hasher_add(hasher *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void hasher_end(hasher *h, char out[SERVE_HASH_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	for (i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[SERVE_HASH_LEN] = '\0';
	hasher_free(h);
}

void sha256_base64(const void *data, size_t len, char out[SERVE_B64_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	out[0] = '\0';
	if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) == 1 && n == 32)
		EVP_EncodeBlock((unsigned char *)out, md, 32);
}

void hasher_free(hasher *h)
{
	if (h) {
		EVP_MD_CTX_free(h->ctx);
		free(h);
	}
}

int is_hash(const char *s)
{
	size_t i;

	for (i = 0; i < SERVE_HASH_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[SERVE_HASH_LEN] == '\0';
}

int is_safe_file(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      (s[0] >= '0' && s[0] <= '9') || s[0] == '_'))
		return 0;
	for (i = 0; s[i]; i++) {
		char c = s[i];
		if (i >= 200)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return 0;
		if (c == '.' && s[i + 1] == '.')
			return 0;
	}
	return 1;
}

void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *ent;
	char sub[4096];

	if (!d) {
		unlink(path);
		return;
	}
	while ((ent = readdir(d)) != NULL) {
		struct stat st;
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

/* Bytes of a file, or of a folder and what it holds (no links followed). */
static uint64_t size_of(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *ent;
	char sub[4096];
	uint64_t n = 0;

	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_size;
	if (!(d = opendir(path)))
		return 0;
	while ((ent = readdir(d)) != NULL) {
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
		n += size_of(sub);
	}
	closedir(d);
	return n;
}

typedef struct cached {
	char *path;
	struct timespec used;
	uint64_t size;
} cached;

static int older(const void *a, const void *b)
{
	const cached *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Every view folder and diff under traces/ into `*all` (grown). */
static void list_cached(const char *dir, cached **all, size_t *n, size_t *cap)
{
	static const char *const kinds[] = {"views", "diffs"};
	char traces[4096], sub[4096], path[4096];
	DIR *d, *k;
	struct dirent *t, *e;
	size_t i;

	snprintf(traces, sizeof traces, "%s/traces", dir);
	if (!(d = opendir(traces)))
		return;
	while ((t = readdir(d)) != NULL) {
		if (!is_hash(t->d_name))
			continue;
		for (i = 0; i < 2; i++) {
			if ((size_t)snprintf(sub, sizeof sub, "%s/%s/%s", traces, t->d_name, kinds[i]) >=
			    sizeof sub || !(k = opendir(sub)))
				continue;
			while ((e = readdir(k)) != NULL) {
				struct stat st;
				if (e->d_name[0] == '.')
					continue;
				if ((size_t)snprintf(path, sizeof path, "%s/%s", sub, e->d_name) >=
				    sizeof path || lstat(path, &st) != 0)
					continue;
				if (*n == *cap) {
					size_t c = *cap ? 2 * *cap : 64;
					cached *g = realloc(*all, c * sizeof *g);
					if (!g)
						break;
					*all = g;
					*cap = c;
				}
				if (!((*all)[*n].path = strdup(path)))
					break;
				(*all)[*n].used = st.st_mtim;
				(*all)[*n].size = size_of(path);
				(*n)++;
			}
			closedir(k);
		}
	}
	closedir(d);
}

uint64_t store_trim_cache(store *s, uint64_t max, const char *keep)
{
	static pthread_mutex_t trim = PTHREAD_MUTEX_INITIALIZER;
	cached *all = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;

	pthread_mutex_lock(&trim);
	list_cached(s->dir, &all, &n, &cap);
	for (i = 0; i < n; i++)
		total += all[i].size;
	if (total > max) {
		qsort(all, n, sizeof *all, older);
		for (i = 0; i < n && total > max; i++) {
			if (keep && strcmp(all[i].path, keep) == 0)
				continue;
			remove_tree(all[i].path);
			total -= all[i].size;
		}
	}
	for (i = 0; i < n; i++)
		free(all[i].path);
	free(all);
	pthread_mutex_unlock(&trim);
	return total;
}

void store_touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}

static int mkdir_p(const char *path)
{
	char p[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof p)
		return -1;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] == '/' || p[i] == '\0') {
			char was = p[i];
			p[i] = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				return -1;
			p[i] = was;
		}
	}
	return 0;
}

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

store *store_open(const char *dir)
{
	store *s = calloc(1, sizeof *s);
	char path[4096];
	char *err = NULL;

	if (!s || !(s->dir = strdup(dir))) {
		fputs(PROG ": serve: out of memory\n", stderr);
		free(s);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/traces", dir);
	if (mkdir_p(path) != 0) {
		fprintf(stderr, PROG ": serve: cannot make %s: %s\n", path, strerror(errno));
		goto fail;
	}
	/* what a crash left half-made: never acknowledged, never served */
	snprintf(path, sizeof path, "%s/tmp", dir);
	remove_tree(path);
	if (mkdir(path, 0700) != 0) {
		fprintf(stderr, PROG ": serve: cannot make %s: %s\n", path, strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof path, "%s/catalogue.sqlite", dir);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, schema, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, PROG ": serve: %s: %s\n", path,
		        err ? err : s->db ? sqlite3_errmsg(s->db) : "cannot open");
		sqlite3_free(err);
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	pthread_mutex_init(&s->lock, NULL);
	return s;
fail:
	if (s->db)
		sqlite3_close(s->db);
	free(s->dir);
	free(s);
	return NULL;
}

void store_close(store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s->dir);
	free(s);
}

const char *store_dir(const store *s)
{
	return s->dir;
}

void store_path(const store *s, char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	size_t k = (size_t)snprintf(out, n, "%s/", s->dir);

	va_start(ap, fmt);
	if (k < n)
		vsnprintf(out + k, n - k, fmt, ap);
	va_end(ap);
}

void store_tmp_path(const store *s, const char *what, char *out, size_t n)
{
	unsigned long k = __atomic_add_fetch(&((store *)s)->next, 1, __ATOMIC_RELAXED);

	snprintf(out, n, "%s/tmp/%s-%ld-%lu", s->dir, what, (long)getpid(), k);
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

void upload_row_free(upload_row *row)
{
	free(row->name);
	free(row->variant);
	free(row->clocks);
	free(row->status);
	free(row->message);
	free(row->json);
	memset(row, 0, sizeof *row);
}

int store_get(store *s, const char *hash, upload_row *row)
{
	sqlite3_stmt *st = NULL;
	int r = -1, rc;

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
			r = -1;
		}
	}
out:
	if (r < 0)
		fprintf(stderr, PROG ": serve: catalogue: %s\n", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return r;
}

int store_put(store *s, const upload_row *row)
{
	sqlite3_stmt *st = NULL;
	int r = -1;

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

char *store_list_html(store *s)
{
	sqlite3_stmt *st = NULL;
	sbuf b = {0};

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "SELECT hash,name,size,time,variant,threads,status "
	                       "FROM uploads ORDER BY time DESC, hash LIMIT 1000",
	                       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *h = (const char *)sqlite3_column_text(st, 0);
			const char *n = (const char *)sqlite3_column_text(st, 1);
			const char *v = (const char *)sqlite3_column_text(st, 4);
			const char *stt = (const char *)sqlite3_column_text(st, 6);
			if (!h || !is_hash(h))
				continue;
			sb_printf(&b, "<tr><td><a href=\"/trace/%s/\">", h);
			sb_html(&b, n ? n : "");
			sb_printf(&b, "</a></td><td>%lld</td><td>%lld</td><td>",
			          (long long)sqlite3_column_int64(st, 2),
			          (long long)sqlite3_column_int64(st, 3));
			sb_html(&b, v ? v : "");
			sb_printf(&b, "</td><td>%lld</td><td>", (long long)sqlite3_column_int64(st, 5));
			sb_html(&b, stt ? stt : "");
			sb_puts(&b, "</td></tr>\n");
		}
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	sb_add(&b, "", 0);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
