/*
 * bytes.c - an input's bytes: mapped, read, inflated, or spilled to a
 * temporary file and mapped when large (see bytes.h).
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bytes.h"

/* Past this many bytes an input is a window: a file is mapped without
 * being read ahead whole, a pipe or inflated stream goes to a file. */
#define AF_WINDOW_MIN (64u << 20)

/* What a spill writes at a time. */
#define AF_SPILL_CHUNK (1u << 20)

void af_bytes_init(af_bytes *b, af_mem *mem)
{
	memset(b, 0, sizeof *b);
	b->guard = -1;
	b->fd = -1;
	b->mem = mem;
}

void af_bytes_free(af_bytes *b)
{
	af_mem *mem = b->mem;

	if (b->mapped) {
		af_guard_remove(b->guard);
		munmap(b->data, b->len);
	} else {
		af_free(mem, b->data);
	}
	if (b->own_fd && b->fd >= 0)
		close(b->fd);
	af_bytes_init(b, mem);
}

af_status af_bytes_check(const af_bytes *b, const char *who, af_error *err)
{
	struct stat sb;

	if (!b->mapped || !af_guard_hit(b->guard))
		return AF_OK;
	if (fstat(b->fd, &sb) == 0 && (uint64_t)sb.st_size < b->len)
		return af_fail(err, AF_ERR_IO, -1, "%s%schanged while it was read: it "
		               "shrank from %zu to %lld bytes", who ? who : "",
		               who ? " " : "", b->len, (long long)sb.st_size);
	/* not shorter now: cut and grown again, or an I/O error */
	return af_fail(err, AF_ERR_IO, -1, "%s%schanged while it was read: part of "
	               "its %zu bytes could no longer be read", who ? who : "",
	               who ? " " : "", b->len);
}

int af_bytes_is_gzip(const uint8_t *b, size_t len)
{
	return len >= 2 && b[0] == 0x1F && b[1] == 0x8B;
}

/* ------------------------------------------------------------------ */
/* Spills: a large stream kept in a temporary file rather than memory   */

/* A temporary file with no name (in $TMPDIR, else /tmp), or -1 when none
 * can be made: the stream then stays in memory, as a small one does. */
static int af_spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd = -1;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
	if (fd < 0 && (size_t)snprintf(path, sizeof path, "%s/aflame-XXXXXX", dir) <
	                      sizeof path && (fd = mkstemp(path)) >= 0)
		unlink(path);
	return fd;
}

/* Writes the `n` bytes at `p`: 0, the errno of a write that failed, or
 * -1 when one wrote nothing. */
static int af_write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static af_status af_spill_failed(int e, af_error *err)
{
	return af_fail(err, AF_ERR_IO, -1, "cannot keep the input in a temporary file: %s",
	               e > 0 ? strerror(e) : "nothing written");
}

static af_status af_spill_write(int fd, const uint8_t *p, size_t n, af_error *err)
{
	int e = af_write_all(fd, p, n);
	return e ? af_spill_failed(e, err) : AF_OK;
}

/* A spill's writes on a thread of their own, while the stream is read or
 * inflated into the other half of its buffer: writing a gibibyte into a
 * new file took 2.0 s of the 7 s a gzip'd trace of 1 GB took to draw, one
 * 64 MiB write after another.  Pieces are written in the order given, at
 * most two waiting. */
typedef struct af_spiller {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int fd, started, stop;
	const uint8_t *piece[2];
	size_t len[2];
	unsigned head, count; /* the pieces given and not yet written */
	int err;              /* the first failure, as af_write_all() says */
} af_spiller;

static void *af_spiller_run(void *arg)
{
	af_spiller *sp = arg;
	int e;

	pthread_mutex_lock(&sp->lock);
	for (;;) {
		const uint8_t *p;
		size_t n;
		while (!sp->count && !sp->stop)
			pthread_cond_wait(&sp->changed, &sp->lock);
		if (!sp->count)
			break;
		p = sp->piece[sp->head];
		n = sp->len[sp->head];
		e = sp->err;
		pthread_mutex_unlock(&sp->lock);
		/* after a failure the rest is not written, only let go */
		if (!e)
			e = af_write_all(sp->fd, p, n);
		pthread_mutex_lock(&sp->lock);
		sp->err = e;
		sp->head ^= 1;
		sp->count--;
		pthread_cond_broadcast(&sp->changed);
	}
	pthread_mutex_unlock(&sp->lock);
	return NULL;
}

/* 1 when the writing thread runs; 0 when the spill is written in line. */
static int af_spiller_start(af_spiller *sp, int fd)
{
	memset(sp, 0, sizeof *sp);
	sp->fd = fd;
	if (pthread_mutex_init(&sp->lock, NULL) != 0)
		return 0;
	if (pthread_cond_init(&sp->changed, NULL) != 0) {
		pthread_mutex_destroy(&sp->lock);
		return 0;
	}
	if (pthread_create(&sp->thread, NULL, af_spiller_run, sp) != 0) {
		pthread_cond_destroy(&sp->changed);
		pthread_mutex_destroy(&sp->lock);
		return 0;
	}
	return sp->started = 1;
}

/* Gives the thread `n` bytes at `p` to write, once a place is free. */
static void af_spiller_give(af_spiller *sp, const uint8_t *p, size_t n)
{
	pthread_mutex_lock(&sp->lock);
	while (sp->count == 2)
		pthread_cond_wait(&sp->changed, &sp->lock);
	sp->piece[(sp->head + sp->count) & 1] = p;
	sp->len[(sp->head + sp->count) & 1] = n;
	sp->count++;
	pthread_cond_broadcast(&sp->changed);
	pthread_mutex_unlock(&sp->lock);
}

/* Waits until no piece given starts at `p`, which may then be reused;
 * 0, or the first failure as af_write_all() says it. */
static int af_spiller_wait(af_spiller *sp, const uint8_t *p)
{
	int e;

	pthread_mutex_lock(&sp->lock);
	while ((sp->count >= 1 && sp->piece[sp->head] == p) ||
	       (sp->count == 2 && sp->piece[sp->head ^ 1] == p))
		pthread_cond_wait(&sp->changed, &sp->lock);
	e = sp->err;
	pthread_mutex_unlock(&sp->lock);
	return e;
}

/* Writes what was given and ends the thread: 0, or the first failure as
 * af_write_all() says it. */
static int af_spiller_end(af_spiller *sp)
{
	if (!sp->started)
		return 0;
	pthread_mutex_lock(&sp->lock);
	sp->stop = 1;
	pthread_cond_broadcast(&sp->changed);
	pthread_mutex_unlock(&sp->lock);
	pthread_join(sp->thread, NULL);
	pthread_cond_destroy(&sp->changed);
	pthread_mutex_destroy(&sp->lock);
	sp->started = 0;
	return sp->err;
}

/* Replaces the memory of `b` with a mapping of the spill `fd` (`len`
 * bytes): the bytes own the file from now on, whatever happens. */
static af_status af_spill_map(af_bytes *b, int fd, size_t len, af_error *err)
{
	void *p;

	af_free(b->mem, b->data);
	b->data = NULL;
	b->fd = fd;
	b->own_fd = 1;
	b->len = 0;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return af_fail(err, AF_ERR_IO, -1, "cannot map the input's temporary "
		               "file: %s", strerror(errno));
	madvise(p, len, MADV_SEQUENTIAL);
	b->data = p;
	b->len = len;
	b->mapped = 1;
	b->window = 1;
	return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Files and pipes                                                      */

#ifdef MAP_POPULATE
#define AF_MAP_POPULATE MAP_POPULATE
#else
#define AF_MAP_POPULATE 0
#endif

/* Maps a regular file of `size` bytes into `b`: 1 when it was mapped. */
static int af_map_file(af_bytes *b, int fd, size_t size)
{
	int window = size > AF_WINDOW_MIN;
	/* a small file is read once, front to back: mapping its pages in one
	 * call costs less than a fault for each; a large one would then
	 * count whole in the process's memory */
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | (window ? 0 : AF_MAP_POPULATE),
	               fd, 0);

	if (p == MAP_FAILED)
		return 0;
	b->guard = af_guard_add(p, size);
	if (b->guard < 0) {
		munmap(p, size);
		return 0;
	}
	if (window)
		madvise(p, size, MADV_SEQUENTIAL);
	b->data = p;
	b->len = size;
	b->mapped = 1;
	b->window = window;
	b->fd = fd;
	return 1;
}

/* Maps or reads `fd` into `b`.  A mapped file's descriptor is kept in
 * b->fd (not owned): the caller must keep it open while `b` lives. */
static af_status af_read_fd(af_mem *mem, int fd, uint64_t max,
                            const af_bytes_sniff *sniff, af_bytes *b, af_error *err)
{
	size_t cap = 0, total = 0; /* total: with what went to the spill */
	size_t lo = 0, lim = 0;    /* with a spill's thread: the half being filled */
	size_t room;
	unsigned char aside;
	struct stat sb;
	af_spiller sp = {0};
	int sniffed = 0, spill = -1, tried = 0, e;
	af_status st = AF_OK;

	af_bytes_init(b, mem);
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		if ((uint64_t)sb.st_size > max)
			return af_fail(err, AF_ERR_LIMIT, -1,
			               "file is larger than the %llu-byte input limit",
			               (unsigned long long)max);
		if (af_map_file(b, fd, (size_t)sb.st_size))
			return AF_OK;
	}
	for (;;) {
		ssize_t n;
		if (!sniffed && b->len >= 4096) {
			/* /dev/zero and the like: refused at once, not after the
			 * input limit's worth of them */
			sniffed = 1;
			if (sniff->refuse(b->data, b->len)) {
				st = af_fail(err, AF_ERR_FORMAT, 0, "%s", sniff->why);
				break;
			}
		}
		if (!tried && total >= AF_WINDOW_MIN) {
			tried = 1;
			spill = af_spill_open();
			if (spill >= 0) {
				/* what was read goes first; then the halves of the
				 * buffer take turns, one read into while the
				 * other is written */
				if ((st = af_spill_write(spill, b->data, b->len, err)) != AF_OK)
					break;
				b->len = 0;
				if (af_spiller_start(&sp, spill))
					lim = cap / 2;
			}
		}
		if (sp.started && b->len == lim) {
			af_spiller_give(&sp, b->data + lo, b->len - lo);
			lo = lo ? 0 : cap / 2;
			b->len = lo;
			lim = lo + cap / 2;
			if (af_spiller_wait(&sp, b->data + lo))
				break;
		} else if (spill >= 0 && !sp.started && b->len >= AF_SPILL_CHUNK) {
			if ((st = af_spill_write(spill, b->data, b->len, err)) != AF_OK)
				break;
			b->len = 0;
		}
		if (!sp.started && cap - b->len < 65536 && (uint64_t)total < max &&
		    AF_GROW(mem, b->data, cap, b->len + 65536)) {
			st = af_fail(err, AF_ERR_NOMEM, (long long)total,
			             "out of memory reading the input");
			break;
		}
		/* at the limit with the buffer full, one byte more is read
		 * aside: an input that ends there is taken */
		room = (sp.started ? lim : cap) - b->len;
		n = read(fd, room ? b->data + b->len : &aside, room ? room : 1);
		if (n == 0) {
			if (spill < 0)
				return AF_OK;
			if (sp.started) {
				af_spiller_give(&sp, b->data + lo, b->len - lo);
				if ((e = af_spiller_end(&sp)) != 0) {
					st = af_spill_failed(e, err);
					break;
				}
				b->len = 0; /* all written */
			}
			if ((st = af_spill_write(spill, b->data, b->len, err)) != AF_OK)
				break;
			st = af_spill_map(b, spill, total, err);
			if (st != AF_OK)
				af_bytes_free(b);
			return st;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			st = af_fail(err, AF_ERR_IO, -1, "read failed: %s", strerror(errno));
			break;
		}
		if (room)
			b->len += (size_t)n;
		total += (size_t)n;
		if ((uint64_t)total > max) {
			st = af_fail(err, AF_ERR_LIMIT, (long long)max, "input is larger "
			             "than the %llu-byte input limit", (unsigned long long)max);
			break;
		}
	}
	/* the thread lets go of the buffer before it is freed */
	if ((e = af_spiller_end(&sp)) != 0 && st == AF_OK)
		st = af_spill_failed(e, err);
	if (spill >= 0)
		close(spill);
	af_bytes_free(b);
	return st;
}

af_status af_bytes_read_path(af_mem *mem, const char *path, uint64_t max,
                             const af_bytes_sniff *sniff, af_bytes *b,
                             af_error *err)
{
	int fd;
	af_status st;

	if (strcmp(path, "-") == 0)
		return af_read_fd(mem, 0, max, sniff, b, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		af_bytes_init(b, mem);
		return af_fail(err, AF_ERR_IO, -1, "cannot open: %s", strerror(errno));
	}
	st = af_read_fd(mem, fd, max, sniff, b, err);
	if (b->mapped && b->fd == fd)
		b->own_fd = 1; /* the mapped file: closed with the bytes */
	else
		close(fd);
	return st;
}

/* ------------------------------------------------------------------ */
/* gzip                                                                 */

/* Hands back the pages of the window `in` before `upto`, from *done on. */
static void af_bytes_release(const uint8_t *in, size_t upto, size_t *done)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	upto &= ~(page - 1);
	if (upto > *done) {
		madvise((void *)(in + *done), upto - *done, MADV_DONTNEED);
		*done = upto;
	}
}

af_status af_bytes_gunzip(af_mem *mem, const uint8_t *in, size_t len, int window,
                          uint64_t max, const af_bytes_sniff *sniff, af_bytes *out,
                          af_error *err)
{
	z_stream z;
	uint8_t *buf = NULL;
	size_t cap = 0, used = 0;
	size_t lo = 0, lim = 0; /* with a spill's thread: the half being filled */
	uint64_t total = 0; /* inflated, with what went to the spill */
	size_t released = 0; /* of a window `in`: bytes handed back */
	af_spiller sp = {0};
	af_status st = AF_OK;
	int r, e, sniffed = 0, spill = -1, tried = 0;

	af_bytes_init(out, mem);
	memset(&z, 0, sizeof z);
	z.zalloc = af_zlib_alloc;
	z.zfree = af_zlib_free;
	z.opaque = mem;
	r = inflateInit2(&z, 15 + 16);
	if (r != Z_OK)
		return af_fail(err, r == Z_MEM_ERROR ? AF_ERR_NOMEM : AF_ERR_GZIP, 0,
		               r == Z_MEM_ERROR ? "out of memory starting zlib"
		                                : "cannot start zlib");
	z.next_in = (Bytef *)in;
	for (;;) {
		size_t before_in, before_out;
		if (total > max) {
			st = af_fail(err, AF_ERR_LIMIT, (long long)z.total_in,
			             "gzip data of %zu bytes inflates past the "
			             "%llu-byte input limit", len, (unsigned long long)max);
			goto out;
		}
		if (!tried && total >= AF_WINDOW_MIN) {
			tried = 1;
			spill = af_spill_open();
			if (spill >= 0 && used == cap && cap % 2 == 0 && af_spiller_start(&sp, spill)) {
				/* the full buffer goes in two halves: the first
				 * is filled again while the second is written */
				af_spiller_give(&sp, buf, cap / 2);
				lo = cap / 2;
				lim = cap;
			}
		}
		if (sp.started && used == lim) {
			af_spiller_give(&sp, buf + lo, used - lo);
			lo = lo ? 0 : cap / 2;
			used = lo;
			lim = lo + cap / 2;
			if (af_spiller_wait(&sp, buf + lo)) /* the spill failed: stop */
				goto out;
		} else if (spill >= 0 && !sp.started && used == cap) {
			if ((st = af_spill_write(spill, buf, used, err)) != AF_OK)
				goto out;
			used = 0;
		}
		if (used == cap) {
			size_t want = cap ? cap * 2 : (len < (1u << 20) ? (1u << 20) : len * 4);
			if (spill < 0 && want > AF_WINDOW_MIN && cap < AF_WINDOW_MIN)
				want = AF_WINDOW_MIN; /* a spill takes over there */
			if ((uint64_t)want > max)
				want = (size_t)max + 1; /* room to see it go past */
			if (AF_GROW(mem, buf, cap, want)) {
				st = af_fail(err, AF_ERR_NOMEM, (long long)z.total_in,
				             "out of memory inflating gzip data");
				goto out;
			}
		}
		before_in = (size_t)(z.next_in - in);
		before_out = used;
		z.avail_in = (uInt)((len - before_in) > UINT32_MAX / 2 ? UINT32_MAX / 2
		                                                       : len - before_in);
		z.next_out = buf + used;
		z.avail_out = (uInt)(((sp.started ? lim : cap) - used) > UINT32_MAX / 2
		                     ? UINT32_MAX / 2 : (sp.started ? lim : cap) - used);
		if (total + z.avail_out > max + 1) /* a byte past the limit at most */
			z.avail_out = (uInt)(max + 1 - total);
		r = inflate(&z, Z_NO_FLUSH);
		used = (size_t)(z.next_out - buf);
		total += used - before_out;
		if (window)
			af_bytes_release(in, (size_t)(z.next_in - in), &released);
		if (!sniffed && total >= 4096) {
			sniffed = 1;
			if (sniff->refuse(buf, used)) {
				st = af_fail(err, AF_ERR_FORMAT, 0, "%s", sniff->why);
				goto out;
			}
		}
		if (r == Z_STREAM_END) {
			size_t at = (size_t)(z.next_in - in);
			/* another member follows: keep going; anything else ends it */
			if (len - at >= 2 && in[at] == 0x1F && in[at + 1] == 0x8B) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (r == Z_BUF_ERROR && z.avail_out > 0) {
			st = af_fail(err, AF_ERR_TRUNCATED, (long long)len,
			             "gzip data ends before its end marker");
			goto out;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			st = r == Z_MEM_ERROR
			     ? af_fail(err, AF_ERR_NOMEM, (long long)(z.next_in - in),
			               "out of memory inflating gzip data")
			     : af_fail(err, AF_ERR_GZIP, (long long)(z.next_in - in),
			               "corrupt gzip data: %s",
			               z.msg ? z.msg : "inflate failed");
			goto out;
		}
	}
	if (total > max) {
		st = af_fail(err, AF_ERR_LIMIT, (long long)z.total_in,
		             "gzip data of %zu bytes inflates past the %llu-byte input "
		             "limit", len, (unsigned long long)max);
		goto out;
	}
	if (sp.started) {
		af_spiller_give(&sp, buf + lo, used - lo);
		if ((e = af_spiller_end(&sp)) != 0) {
			st = af_spill_failed(e, err);
			goto out;
		}
		used = 0; /* all written */
	}
	if (spill >= 0) {
		if ((st = af_spill_write(spill, buf, used, err)) == AF_OK) {
			out->data = buf; /* freed by the mapping's turn */
			st = af_spill_map(out, spill, (size_t)total, err);
			buf = NULL;
			spill = -1;
			if (st != AF_OK)
				af_bytes_free(out);
		}
		goto out;
	}
	out->data = buf;
	out->len = used;
	buf = NULL;
out:
	/* the thread lets go of the buffer before it is freed */
	if ((e = af_spiller_end(&sp)) != 0 && st == AF_OK)
		st = af_spill_failed(e, err);
	inflateEnd(&z);
	if (window) /* read once: none of it is needed again */
		af_bytes_release(in, len, &released);
	if (spill >= 0)
		close(spill);
	af_free(mem, buf);
	return st;
}
