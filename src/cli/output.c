/*
 * output.c - where the command's files go.  A regular file, or a path
 * where nothing is yet, is written to a temporary file beside it; every
 * temporary file of a run is renamed into place together at the end
 * (out_commit), or removed when the run fails (out_discard) or is killed by
 * a signal.  A symbolic link to a file leads to that file, which is the
 * one replaced.  Character devices, FIFOs, sockets and the command's own
 * descriptors (/dev/stdout, /proc/self/fd/N) are written into as the run
 * goes: they cannot be replaced, nor taken back.
 */
#define _GNU_SOURCE /* fopencookie, O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* A temporary file or folder of the run.  A signal handler walks the
 * list: nodes are complete before they are added, only ever at the head
 * and atomically, and freed only with every signal blocked in the one
 * thread left. */
struct pending {
	struct pending *next;
	char *path;             /* the temporary file or folder */
	char *target;           /* renamed to this at the end; NULL: moves with
	                           its folder, or is removed (scratch) */
	char *name;             /* the target as the user named it */
	struct pending *folder; /* the temporary folder it is in, or NULL */
	int dir;
	int state;         /* P_OPEN, P_READY or P_GONE */
	unsigned long seq; /* order of creation: the order of renaming */
};

enum { P_OPEN, P_READY, P_GONE };

static struct pending *pending_head;
static unsigned long pending_seq;
static sigset_t watched; /* the signals whose handler removes the files */

/* Workers make files while a signal's handler runs in another thread: the
 * handler raises `dying`, so no file is begun after it, and waits for the
 * threads making one (`creating`, but not its own: `creating_here`) to
 * have added it to the list. */
static int dying, creating;
static _Thread_local int creating_here;

/* Removes every temporary file, then every temporary folder (emptied by
 * then); async-signal-safe. */
static void remove_pending(void)
{
	struct pending *p;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (p = __atomic_load_n(&pending_head, __ATOMIC_ACQUIRE); p; p = p->next)
			if (p->dir == pass &&
			    __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != P_GONE)
				(void)(pass ? rmdir(p->path) : unlink(p->path));
}

static void on_signal(int sig)
{
	struct timespec ms = {0, 1000 * 1000};
	int i;

	__atomic_store_n(&dying, 1, __ATOMIC_SEQ_CST);
	for (i = 0;
	     i < 2000 && __atomic_load_n(&creating, __ATOMIC_SEQ_CST) > creating_here;
	     i++)
		nanosleep(&ms, NULL);
	remove_pending();
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns: dies of `sig` */
}

/* Signals whose default action ends the process; faults cannot be held
 * back, the others are blocked while outputs are put in place. */
static int ends_process(int sig, int *fault)
{
	static const int faults[] = {SIGILL, SIGTRAP, SIGABRT, SIGBUS,
	                             SIGFPE, SIGSEGV, SIGSYS};
	static const int others[] = {
#ifdef SIGSTKFLT
	    SIGSTKFLT,
#endif
#ifdef SIGPWR
	    SIGPWR,
#endif
	    SIGHUP,    SIGINT,  SIGQUIT, SIGUSR1, SIGUSR2,   SIGPIPE, SIGALRM,
	    SIGTERM,   SIGXCPU, SIGXFSZ, SIGIO,   SIGVTALRM, SIGPROF};
	size_t i;

	*fault = 0;
	for (i = 0; i < sizeof faults / sizeof faults[0]; i++)
		if (sig == faults[i])
			return *fault = 1;
	for (i = 0; i < sizeof others / sizeof others[0]; i++)
		if (sig == others[i])
			return 1;
	return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

void out_watch_signals(void)
{
	struct sigaction sa, old;
	int sig, fault;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	sigemptyset(&watched);
	for (sig = 1; sig < NSIG; sig++) {
		if (!ends_process(sig, &fault) || sigaction(sig, NULL, &old) != 0)
			continue;
		/* an ignored signal stays ignored (nohup), and a handler set
		 * before main (a sanitizer's) stays in place */
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		if (sig == SIGXFSZ) {
			/* past the file size limit, a write fails with EFBIG and
			 * the run says so, instead of dying */
			signal(SIGXFSZ, SIG_IGN);
			continue;
		}
		if (sigaction(sig, &sa, NULL) == 0 && !fault)
			sigaddset(&watched, sig);
	}
}

/* Adds a node for `path` (taken over) before the file is made, so that no
 * moment passes where the file exists unseen by the handler; NULL when out
 * of memory (`path` freed). */
static struct pending *pending_add(char *path, const char *target, const char *name,
                                   struct pending *folder, int dir)
{
	struct pending *p = calloc(1, sizeof *p);

	if (!p || (target && !(p->target = strdup(target))) ||
	    (name && !(p->name = strdup(name)))) {
		if (p) {
			free(p->target);
			free(p->name);
		}
		free(p);
		free(path);
		errno = ENOMEM;
		return NULL;
	}
	p->path = path;
	p->folder = folder;
	p->dir = dir;
	p->state = P_OPEN;
	p->seq = __atomic_fetch_add(&pending_seq, 1, __ATOMIC_RELAXED);
	p->next = __atomic_load_n(&pending_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&pending_head, &p->next, p, 0,
	                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return p;
}

static void pending_set(struct pending *p, int state)
{
	__atomic_store_n(&p->state, state, __ATOMIC_RELEASE);
}

/* Makes a new file (or folder, `dir`) in folder `in`: named `exact`, or
 * ".aflame-PID-N", short so that any legal name can have one beside it.
 * Returns its node, with the open descriptor in *fd for a file; NULL with
 * errno set. */
static struct pending *make_new(const char *in, const char *exact, const char *target,
                                const char *name, struct pending *folder, int dir,
                                int *fd)
{
	static unsigned counter;
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		size_t n = strlen(in) + (exact ? strlen(exact) : 32) + 2;
		char *path = malloc(n);
		struct pending *p;
		int e, made;

		if (!path) {
			errno = ENOMEM;
			return NULL;
		}
		if (exact)
			snprintf(path, n, "%s/%s", strcmp(in, "/") ? in : "", exact);
		else
			snprintf(path, n, "%s/.aflame-%d-%u", strcmp(in, "/") ? in : "",
			         (int)getpid(),
			         __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
		__atomic_add_fetch(&creating, 1, __ATOMIC_SEQ_CST);
		creating_here = 1;
		if (__atomic_load_n(&dying, __ATOMIC_SEQ_CST)) {
			creating_here = 0;
			__atomic_sub_fetch(&creating, 1, __ATOMIC_SEQ_CST);
			for (;;)
				pause(); /* the handler ends the process */
		}
		if (!(p = pending_add(path, target, name, folder, dir))) {
			creating_here = 0;
			__atomic_sub_fetch(&creating, 1, __ATOMIC_SEQ_CST);
			return NULL;
		}
		made = dir ? mkdir(p->path, 0777) == 0
		           : (*fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		                         0666)) >= 0;
		e = errno;
		creating_here = 0;
		__atomic_sub_fetch(&creating, 1, __ATOMIC_SEQ_CST);
		if (made)
			return p;
		/* the name was not made here: never remove it */
		pending_set(p, P_GONE);
		errno = e;
		if (e != EEXIST || exact)
			return NULL;
	}
	return NULL;
}

/* Where the bytes of an output go, and the first write error. */
struct out_sink {
	int fd;
	int own; /* closed at the end (not standard output's) */
	int err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct out_sink *s = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(s->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!s->err)
				s->err = w < 0 ? errno : EIO;
			return -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

/* The stream over `fd`; 0 or -1 (fd closed when owned). */
static int open_stream(out_file *o, int fd, int own)
{
	static const cookie_io_functions_t io = {.write = sink_write};

	o->sink = calloc(1, sizeof *o->sink);
	if (o->sink) {
		o->sink->fd = fd;
		o->sink->own = own;
		o->f = fopencookie(o->sink, "w", io);
	}
	if (!o->f) {
		int e = o->sink ? errno : ENOMEM;
		if (own)
			close(fd);
		free(o->sink);
		o->sink = NULL;
		errno = e;
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	return 0;
}

enum { K_NEW, K_REPLACE, K_FD, K_OPEN, K_SOCKET };

/* `dir`/`name` in a new string; NULL when out of memory. */
static char *path_join(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	if (p)
		sprintf(p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
	return p;
}

/* The folder part of `path` ("." when none); NULL when out of memory. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* /proc/PID/fd/N or /proc/PID/task/TID/fd/N of this process: N, else -1. */
static int own_descriptor(const char *full)
{
	char pid[32];
	const char *p;
	char *end;
	long n;

	snprintf(pid, sizeof pid, "/proc/%d/", (int)getpid());
	if (strncmp(full, pid, strlen(pid)) != 0)
		return -1;
	p = full + strlen(pid);
	if (strncmp(p, "task/", 5) == 0) {
		p = strchr(p + 5, '/');
		if (!p)
			return -1;
		p++;
	}
	if (strncmp(p, "fd/", 3) != 0 || p[3] < '0' || p[3] > '9')
		return -1;
	n = strtol(p + 3, &end, 10);
	return *end || n > INT_MAX ? -1 : (int)n;
}

/* Follows `path` one link at a time to what is written: a file to replace
 * or create (*final), a special file to open (*final), or a descriptor of
 * this process (*fdnum).  Returns the kind, or -1 with errno set, or with
 * *why set when the target is no kind of output. */
static int resolve(const char *path, char **final, int *fdnum, const char **why)
{
	char *cur = strdup(path), *dir = NULL, *full = NULL;
	int hops, kind = -1;

	*final = NULL;
	for (hops = 0; cur && hops < 40; hops++) {
		const char *slash = strrchr(cur, '/'), *base = slash ? slash + 1 : cur;
		char *pdir = parent_of(cur), *link;
		struct stat sb;
		ssize_t n;

		if (!*base) {
			free(pdir);
			errno = *cur ? EISDIR : ENOENT;
			break;
		}
		free(dir);
		dir = pdir ? realpath(pdir, NULL) : NULL;
		free(pdir);
		if (!dir)
			break;
		free(full);
		if (!(full = path_join(dir, base)))
			break;
		if (strncmp(full, "/proc/", 6) == 0) {
			/* /dev/stdout and the like: never a file to replace */
			*fdnum = own_descriptor(full);
			kind = *fdnum >= 0 ? K_FD : K_OPEN;
			break;
		}
		if (lstat(full, &sb) != 0) {
			if (errno == ENOENT)
				kind = K_NEW;
			break;
		}
		if (S_ISREG(sb.st_mode)) {
			kind = K_REPLACE;
		} else if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) {
			kind = K_OPEN;
		} else if (S_ISSOCK(sb.st_mode)) {
			kind = K_SOCKET;
		} else if (S_ISDIR(sb.st_mode)) {
			errno = EISDIR;
		} else if (S_ISLNK(sb.st_mode)) {
			/* a link is read from the folder it is in */
			link = malloc(PATH_MAX);
			n = link ? readlink(full, link, PATH_MAX - 1) : -1;
			free(cur);
			cur = NULL;
			if (n > 0) {
				link[n] = '\0';
				cur =
				    link[0] == '/' ? strdup(link) : path_join(dir, link);
			}
			free(link);
			if (!cur && n > 0)
				errno = ENOMEM;
			continue;
		} else {
			*why = "a block device is not written: give a file, a FIFO, a "
			       "socket "
			       "or a character device";
		}
		break;
	}
	if (cur && hops == 40)
		errno = ELOOP;
	free(cur);
	free(dir);
	if (kind < 0) {
		free(full);
		return -1;
	}
	*final = full;
	return kind;
}

/* A stream socket's client end; -1 with errno set. */
static int connect_to(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ref = -1, r, e;

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (strlen(path) < sizeof sa.sun_path) {
		strcpy(sa.sun_path, path);
	} else {
		/* too long for an address: through a descriptor of the path */
		if ((ref = open(path, O_PATH | O_CLOEXEC)) < 0) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d", ref);
	}
	r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
	e = errno;
	if (ref >= 0)
		close(ref);
	if (r != 0) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Opens `path` for one output; 0, or -1 with errno (or *why) set. */
static int out_open(out_file *o, const char *path, const char **why)
{
	char *final = NULL;
	int kind, fd = -1, fdnum = -1, e;

	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		o->name = strdup("(stdout)");
		return o->name ? open_stream(o, STDOUT_FILENO, 0) : -1;
	}
	if (!(o->name = strdup(path)))
		return -1;
	kind = resolve(path, &final, &fdnum, why);
	if (kind == K_FD) {
		fd = fcntl(fdnum, F_DUPFD_CLOEXEC, 3);
	} else if (kind == K_OPEN) {
		fd = open(final, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	} else if (kind == K_SOCKET) {
		fd = connect_to(final);
	} else if (kind == K_NEW || kind == K_REPLACE) {
		char *in = parent_of(final);
		o->pend = in ? make_new(in, NULL, final, path, NULL, 0, &fd) : NULL;
		free(in);
	}
	e = errno;
	free(final);
	if (fd < 0 || open_stream(o, fd, 1) != 0) {
		e = fd < 0 ? e : errno;
		if (o->pend) {
			unlink(o->pend->path);
			pending_set(o->pend, P_GONE);
		}
		free(o->name);
		memset(o, 0, sizeof *o);
		errno = e;
		return -1;
	}
	return 0;
}

int out_begin(out_file *o, const char *path)
{
	const char *why = NULL;

	if (out_open(o, path, &why) == 0)
		return 0;
	fprintf(stderr, PROG ": %s: cannot create: %s\n", path ? path : "(stdout)",
	        why ? why : strerror(errno));
	return -1;
}

int out_check(const char *path)
{
	const char *why = NULL;
	char *final = NULL;
	int fdnum;

	if (!path || strcmp(path, "-") == 0 || resolve(path, &final, &fdnum, &why) >= 0) {
		free(final);
		return 0;
	}
	fprintf(stderr, PROG ": %s: cannot create: %s\n", path,
	        why ? why : strerror(errno));
	return -1;
}

int out_end(out_file *o, af_status st, const af_error *e, const char *input)
{
	int werr = 0, r = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		werr = o->sink->err ? o->sink->err : EIO;
	if (fclose(o->f) != 0 && !werr)
		werr = o->sink->err ? o->sink->err : EIO;
	/* synced by a thread of its own (sync.c), which closes it then */
	if (!werr && st == AF_OK && o->pend && o->sink->own &&
	    out_sync_later(o->sink->fd, o->name) == 0)
		o->sink->own = 0;
	else if (!werr && st == AF_OK && o->pend && fsync(o->sink->fd) != 0)
		werr = errno;
	if (o->sink->own && close(o->sink->fd) != 0 && !werr && st == AF_OK)
		werr = errno;
	if (st != AF_OK || werr) {
		if (o->pend) {
			unlink(o->pend->path);
			pending_set(o->pend, P_GONE);
		}
		if (werr && (st == AF_OK || st == AF_ERR_IO))
			fprintf(stderr, PROG ": %s: cannot write: %s\n", o->name,
			        strerror(werr));
		else
			report_error(st == AF_ERR_IO || !input ? o->name : input, e);
		r = -1;
	} else if (o->pend) {
		pending_set(o->pend, P_READY);
	}
	free(o->sink);
	free(o->name);
	memset(o, 0, sizeof *o);
	return r;
}

/* Fills `e` with `what` and the reason in errno; AF_ERR_IO. */
static af_status fail_io(af_error *e, const char *what)
{
	e->status = AF_ERR_IO;
	e->offset = -1;
	e->line = 0;
	snprintf(e->message, sizeof e->message, "%s: %s", what, strerror(errno));
	return AF_ERR_IO;
}

af_status out_namemap(out_file *o, const af_namemap *map, af_error *e)
{
	char *in = o->pend ? parent_of(o->pend->path) : strdup(".");
	struct pending *scratch;
	af_status st;
	FILE *f;
	char chunk[8192];
	size_t n;
	int fd = -1;

	/* the library saves to a path: a scratch file, copied into `o` */
	scratch = in ? make_new(in, NULL, NULL, NULL, NULL, 0, &fd) : NULL;
	free(in);
	if (!scratch)
		return fail_io(e, "cannot make a temporary file");
	close(fd);
	st = af_namemap_save(map, scratch->path, e);
	if (st == AF_OK) {
		if (!(f = fopen(scratch->path, "rb")))
			st = fail_io(e, "cannot read the temporary file");
		while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
			fwrite(chunk, 1, n, o->f);
		if (f && ferror(f))
			st = fail_io(e, "cannot read the temporary file");
		if (f)
			fclose(f);
	}
	unlink(scratch->path);
	pending_set(scratch, P_GONE);
	return st != AF_OK ? st : ferror(o->f) ? fail_io(e, "write failed") : AF_OK;
}

int out_dir_begin(out_dir *d, const char *path)
{
	char *anc = NULL;
	struct stat sb;
	size_t n;
	int fd;

	memset(d, 0, sizeof *d);
	if (!(d->path = strdup(path)))
		goto fail;
	for (n = strlen(d->path); n > 1 && d->path[n - 1] == '/'; n--)
		d->path[n - 1] = '\0';
	if (stat(d->path, &sb) == 0) {
		/* an older set: its files are replaced at the end, together,
		 * the index last */
		if (!S_ISDIR(sb.st_mode)) {
			errno = ENOTDIR;
			goto fail;
		}
		d->files = d->path;
		return 0;
	}
	if (errno != ENOENT)
		goto fail;
	if (lstat(d->path, &sb) == 0) {
		errno = EEXIST; /* a link to nowhere */
		goto fail;
	}
	/* a new set is made in a fresh folder in the nearest folder that
	 * exists, and renamed into place at the end, with the folders
	 * between made then */
	anc = parent_of(d->path);
	while (anc && stat(anc, &sb) != 0 && errno == ENOENT && strcmp(anc, ".") != 0 &&
	       strcmp(anc, "/") != 0) {
		char *up = parent_of(anc);
		free(anc);
		anc = up;
	}
	if (!anc || stat(anc, &sb) != 0)
		goto fail;
	if (!S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		goto fail;
	}
	if (!(d->pend = make_new(anc, NULL, d->path, d->path, NULL, 1, &fd)))
		goto fail;
	d->files = d->pend->path;
	free(anc);
	return 0;
fail:
	fprintf(stderr, PROG ": %s: cannot create the folder: %s\n", path,
	        strerror(d->path ? errno : ENOMEM));
	free(anc);
	free(d->path);
	memset(d, 0, sizeof *d);
	return -1;
}

int out_begin_in(out_file *o, const out_dir *d, const char *name)
{
	char *shown = path_join(d->path, name);
	int fd = -1;

	if (!shown) {
		fprintf(stderr, PROG ": %s: %s\n", d->path, strerror(ENOMEM));
		return -1;
	}
	if (!d->pend) {
		int r = out_begin(o, shown);
		free(shown);
		return r;
	}
	memset(o, 0, sizeof *o);
	o->name = shown;
	o->pend = make_new(d->files, name, NULL, NULL, d->pend, 0, &fd);
	if (!o->pend || open_stream(o, fd, 1) != 0) {
		fprintf(stderr, PROG ": %s: cannot create: %s\n", shown, strerror(errno));
		if (o->pend) {
			unlink(o->pend->path);
			pending_set(o->pend, P_GONE);
		}
		free(shown);
		memset(o, 0, sizeof *o);
		return -1;
	}
	return 0;
}

void out_dir_end(out_dir *d)
{
	free(d->path);
	memset(d, 0, sizeof *d);
}

/* Creates a folder and its parents; 0 when it exists afterwards. */
static int make_dir(const char *path)
{
	char *p = strdup(path), *s;
	struct stat sb;
	int r = 0;

	if (!p)
		return -1;
	for (s = p + 1; *s && r == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			r = -1;
		*s = '/';
	}
	if (r == 0 && mkdir(p, 0777) != 0 && errno != EEXIST)
		r = -1;
	if (r == 0 && (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		errno = ENOTDIR;
		r = -1;
	}
	free(p);
	return r;
}

static int by_seq(const void *a, const void *b)
{
	const struct pending *x = *(struct pending *const *)a,
	                     *y = *(struct pending *const *)b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Puts one output in place; 0, or -1 after saying why. */
static int put_in_place(struct pending *p)
{
	if (p->dir) {
		char *up = parent_of(p->target);
		int r = up && (strcmp(up, ".") == 0 || make_dir(up) == 0) ? 0 : -1;
		free(up);
		if (r == 0 && rename(p->path, p->target) == 0)
			return 0;
		fprintf(stderr, PROG ": %s: cannot create the folder: %s\n", p->name,
		        strerror(errno));
		return -1;
	}
	if (rename(p->path, p->target) == 0)
		return 0;
	fprintf(stderr, PROG ": %s: cannot write: %s\n", p->name, strerror(errno));
	return -1;
}

/* Renames (`commit`) or removes every temporary file and folder, then
 * forgets them; 0, or -1 after saying what failed. */
static int finish(int commit)
{
	struct pending *p, **all = NULL;
	sigset_t old;
	size_t n = 0, i;
	int r = 0;

	/* nothing goes into place before every file is on disk */
	if (out_sync_wait() != 0) {
		commit = 0;
		r = -1;
	}
	/* all or nothing, even when a signal comes now: it waits */
	pthread_sigmask(SIG_BLOCK, &watched, &old);
	for (p = pending_head; p; p = p->next)
		n++;
	all = calloc(n ? n : 1, sizeof *all);
	if (!all) {
		fputs(PROG ": out of memory\n", stderr);
		commit = 0;
		r = -1;
	}
	for (p = pending_head, i = 0; all && p; p = p->next)
		all[i++] = p;
	if (all)
		qsort(all, n, sizeof *all, by_seq);
	for (i = 0; commit && i < n; i++) {
		p = all[i];
		if (p->state == P_GONE || p->folder || !p->target ||
		    (!p->dir && p->state != P_READY))
			continue;
		if (put_in_place(p) != 0) {
			r = -1;
			break;
		}
		pending_set(p, P_GONE);
		if (p->dir) {
			size_t k;
			for (k = 0; k < n; k++)
				if (all[k]->folder == p)
					pending_set(all[k], P_GONE);
		}
	}
	remove_pending();
	p = pending_head;
	pending_head = NULL;
	while (p) {
		struct pending *next = p->next;
		free(p->path);
		free(p->target);
		free(p->name);
		free(p);
		p = next;
	}
	free(all);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

int out_commit(void)
{
	return finish(1);
}

void out_discard(void)
{
	finish(0);
}
