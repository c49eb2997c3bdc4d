/*
 * output.c - output files are written beside their target and renamed into
 * place when complete: a failure never leaves a half-written file nor
 * clobbers an old one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <signal.h>

#include "cli.h"

/* Temporary files being written: a signal handler may only read them, so
 * slots are claimed and released with atomic operations. */
#define AF_PENDING 64
static char *pending[AF_PENDING];

static void on_signal(int sig)
{
	int i;
	for (i = 0; i < AF_PENDING; i++) {
		char *p = __atomic_load_n(&pending[i], __ATOMIC_SEQ_CST);
		if (p)
			unlink(p);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void out_watch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

static int claim(char *path)
{
	int i;
	for (i = 0; i < AF_PENDING; i++) {
		char *none = NULL;
		if (__atomic_compare_exchange_n(&pending[i], &none, path, 0,
		                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return i;
	}
	return -1; /* more files at once than watched: still written safely */
}

static void release(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&pending[slot], NULL, __ATOMIC_SEQ_CST);
}

int out_open(out_file *o, const char *path)
{
	static unsigned counter;
	const char *slash;
	size_t dir;
	int fd = -1, tries;

	memset(o, 0, sizeof *o);
	o->slot = -1;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->path = path;
	slash = strrchr(path, '/');
	dir = slash ? (size_t)(slash - path) + 1 : 0;
	o->tmp = malloc(strlen(path) + 48);
	if (!o->tmp)
		return -1;
	/* O_EXCL with mode 0666 lets the umask apply, as for any new file;
	 * the name only has to be new, the counter keeps workers apart */
	for (tries = 0; tries < 100 && fd < 0; tries++) {
		struct timespec ts;
		unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		clock_gettime(CLOCK_REALTIME, &ts);
		sprintf(o->tmp, "%.*s.%s.%d.%u.%ld", (int)dir, path, path + dir,
		        (int)getpid(), n, (long)(ts.tv_nsec & 0xFFFFF));
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0)
		o->slot = claim(o->tmp);
	if (fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
		return -1;
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		int e = errno;
		close(fd);
		release(o->slot);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
		return -1;
	}
	return 0;
}

int out_close(out_file *o, int ok)
{
	int r = 0;

	if (o->f == stdout)
		return fflush(stdout) || ferror(stdout) ? -1 : 0;
	if (ok && (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f))))
		ok = 0, r = -1;
	if (fclose(o->f))
		ok = 0, r = -1;
	if (ok && rename(o->tmp, o->path))
		ok = 0, r = -1;
	if (!ok)
		unlink(o->tmp);
	release(o->slot);
	free(o->tmp);
	o->tmp = NULL;
	return r;
}

int out_begin(out_file *o, const char *path)
{
	if (out_open(o, path) == 0)
		return 0;
	fprintf(stderr, PROG ": %s: cannot create: %s\n", path, strerror(errno));
	return -1;
}

int out_end(out_file *o, af_status st, const af_error *e)
{
	const char *name = o->path ? o->path : "(stdout)";

	if (st != AF_OK) {
		out_close(o, 0);
		report_error(name, e);
		return -1;
	}
	if (out_close(o, 1)) {
		fprintf(stderr, PROG ": %s: cannot write: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

int make_dir(const char *path)
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
