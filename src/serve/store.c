/*
 * store.c - the data folder: uploads content-addressed under traces/<hash>/
 * (each made whole in tmp/ and renamed into place), and the catalogue, one
 * row per upload (store_db.h: SQLite or PostgreSQL), written in a
 * transaction once the files are in place.  A folder under traces/ without
 * a row is complete (it came by rename) but was never acknowledged: the
 * next upload of the same bytes adopts it.
 *
 * Several servers may share one folder when they share a PostgreSQL
 * catalogue.  The same bytes make the same folder, so two of them storing
 * one upload at once both rename a whole folder to traces/<hash>: the
 * first wins, the second finds it there (EEXIST, ENOTEMPTY) and keeps it.
 * Each works in a folder of its own, tmp/<host>.<pid>.<random>/, held
 * locked (flock) by tmp/<same>.lock while it runs: a server starting
 * removes the folders whose lock it can take, those of servers that are
 * gone, and no other.
 */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_db.h"

struct store {
	char *dir;
	catalogue *cat;
	unsigned long next;
	/* a shared folder: this server's folder under tmp/ and its lock */
	char own[128];
	int own_fd;
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

/* Removes the working folders under <dir>/tmp/ whose servers are gone:
 * those whose lock file can be locked. */
static void sweep_shared_tmp(const char *dir)
{
	char tmp[4096], path[4096];
	DIR *d;
	struct dirent *e;

	snprintf(tmp, sizeof tmp, "%s/tmp", dir);
	if (!(d = opendir(tmp)))
		return;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		int fd;
		if (n <= 5 || n > 200 || strcmp(e->d_name + n - 5, ".lock") != 0 ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) >= sizeof path)
			continue;
		if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			/* its server is gone: its folder, then the lock */
			char base[256];
			snprintf(base, sizeof base, "%.*s", (int)(n - 5), e->d_name);
			if ((size_t)snprintf(path, sizeof path, "%s/%s", tmp, base) < sizeof path)
				remove_tree(path);
			if ((size_t)snprintf(path, sizeof path, "%s/%s.lock", tmp, base) < sizeof path)
				unlink(path);
			fprintf(stderr, PROG ": serve: removed tmp/%s, left by a server that is gone\n",
			        base);
		}
		close(fd);
	}
	closedir(d);
}

/* This server's own working folder under a shared <dir>/tmp/: its lock
 * taken first (kept until the server stops), then the folder made. */
static int make_own_tmp(store *s)
{
	char host[64] = "", lock[4096], path[4096];
	unsigned char rnd[4] = {0};
	int fd, tries, i;
	FILE *u;

	if (gethostname(host, sizeof host - 1) != 0 || !host[0])
		snprintf(host, sizeof host, "host");
	for (i = 0; host[i]; i++)
		if (!((host[i] >= 'a' && host[i] <= 'z') || (host[i] >= 'A' && host[i] <= 'Z') ||
		      (host[i] >= '0' && host[i] <= '9') || host[i] == '-'))
			host[i] = '_';
	for (tries = 0; tries < 10; tries++) {
		struct stat a, b;
		if ((u = fopen("/dev/urandom", "rb")) != NULL) {
			if (fread(rnd, 1, sizeof rnd, u) != sizeof rnd)
				memset(rnd, 0, sizeof rnd);
			fclose(u);
		}
		snprintf(s->own, sizeof s->own, "%s.%ld.%02x%02x%02x%02x", host, (long)getpid(),
		         rnd[0], rnd[1], rnd[2], rnd[3]);
		snprintf(lock, sizeof lock, "%s/tmp/%s.lock", s->dir, s->own);
		fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return -1;
		}
		/* a server starting meanwhile may have taken it for a dead one's
		 * and removed it: then another name */
		if (flock(fd, LOCK_EX) != 0 || fstat(fd, &a) != 0 || stat(lock, &b) != 0 ||
		    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
			close(fd);
			continue;
		}
		snprintf(path, sizeof path, "%s/tmp/%s", s->dir, s->own);
		if (mkdir(path, 0700) != 0) {
			unlink(lock);
			close(fd);
			return -1;
		}
		s->own_fd = fd;
		return 0;
	}
	errno = EEXIST;
	return -1;
}

store *store_open(const char *dir, const char *db, int conns)
{
	store *s = calloc(1, sizeof *s);
	char path[4096];

	if (!s || !(s->dir = strdup(dir))) {
		fputs(PROG ": serve: out of memory\n", stderr);
		free(s);
		return NULL;
	}
	s->own_fd = -1;
	snprintf(path, sizeof path, "%s/traces", dir);
	if (mkdir_p(path) != 0) {
		fprintf(stderr, PROG ": serve: cannot make %s: %s\n", path, strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof path, "%s/tmp", dir);
	if (db) {
		/* shared: only what servers that are gone left half-made */
		if ((mkdir(path, 0700) != 0 && errno != EEXIST)) {
			fprintf(stderr, PROG ": serve: cannot make %s: %s\n", path, strerror(errno));
			goto fail;
		}
		sweep_shared_tmp(dir);
		if (make_own_tmp(s) != 0) {
			fprintf(stderr, PROG ": serve: cannot make a working folder in %s: %s\n",
			        path, strerror(errno));
			goto fail;
		}
		s->cat = catalogue_pg_open(db, conns);
	} else {
		/* what a crash left half-made: never acknowledged, never served */
		remove_tree(path);
		if (mkdir(path, 0700) != 0) {
			fprintf(stderr, PROG ": serve: cannot make %s: %s\n", path, strerror(errno));
			goto fail;
		}
		s->cat = catalogue_sqlite_open(dir);
	}
	if (!s->cat)
		goto fail;
	return s;
fail:
	store_close(s);
	return NULL;
}

void store_close(store *s)
{
	char path[4096];

	if (!s)
		return;
	if (s->cat)
		s->cat->ops->close(s->cat);
	if (s->own_fd >= 0) {
		snprintf(path, sizeof path, "%s/tmp/%s", s->dir, s->own);
		remove_tree(path);
		snprintf(path, sizeof path, "%s/tmp/%s.lock", s->dir, s->own);
		unlink(path);
		close(s->own_fd);
	}
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

	if (s->own_fd >= 0)
		snprintf(out, n, "%s/tmp/%s/%s-%lu", s->dir, s->own, what, k);
	else
		snprintf(out, n, "%s/tmp/%s-%ld-%lu", s->dir, what, (long)getpid(), k);
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
	return s->cat->ops->get(s->cat, hash, row);
}

int store_put(store *s, const upload_row *row)
{
	return s->cat->ops->put(s->cat, row);
}

static void list_row(void *arg, const upload_row *row)
{
	sbuf *b = arg;

	sb_printf(b, "<tr><td><a href=\"/trace/%s/\">", row->hash);
	sb_html(b, row->name);
	sb_printf(b, "</a></td><td>%lld</td><td>%lld</td><td>", (long long)row->size,
	          (long long)row->time);
	sb_html(b, row->variant);
	sb_printf(b, "</td><td>%lld</td><td>", (long long)row->threads);
	sb_html(b, row->status);
	sb_puts(b, "</td></tr>\n");
}

int store_list_html(store *s, char **html)
{
	sbuf b = {0};
	int r = s->cat->ops->list(s->cat, list_row, &b);

	*html = NULL;
	sb_add(&b, "", 0);
	if (r != 0 || b.failed) {
		free(b.s);
		return r != 0 ? r : STORE_ERROR;
	}
	*html = b.s;
	return 0;
}
