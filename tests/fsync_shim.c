/*
 * fsync_shim.c - preloaded into the command by test_outputs.c, it watches
 * the order of the two calls a run's files depend on: every file renamed
 * into place (or inside a folder renamed into place) must have been
 * fsynced first, or a crash could leave an empty file under the final
 * name.  Each rename is written to $AF_SHIM_LOG, a line per file: "synced
 * PATH" or "UNSYNCED PATH".  With $AF_SHIM_FAIL set, fsync fails with EIO
 * on every file whose path holds that text, as a failing disk would.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SYNCED 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *synced[MAX_SYNCED];
static size_t nsynced;

/* The file open as `fd`, as the kernel names it; 0 when unknown. */
static int fd_path(int fd, char *path, size_t n)
{
	char link[64];
	ssize_t len;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	len = readlink(link, path, n - 1);
	if (len <= 0)
		return 0;
	path[len] = '\0';
	return 1;
}

static void note(const char *what, const char *path)
{
	const char *log = getenv("AF_SHIM_LOG");
	FILE *f;

	if (!log || !(f = fopen(log, "a")))
		return;
	fprintf(f, "%s %s\n", what, path);
	fclose(f);
}

int fsync(int fd)
{
	static int (*real)(int);
	const char *fail = getenv("AF_SHIM_FAIL");
	char path[PATH_MAX];
	int known = fd_path(fd, path, sizeof path), r;

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (known && fail && *fail && strstr(path, fail)) {
		errno = EIO;
		return -1;
	}
	r = real(fd);
	if (r == 0 && known) {
		pthread_mutex_lock(&lock);
		if (nsynced < MAX_SYNCED)
			synced[nsynced++] = strdup(path);
		pthread_mutex_unlock(&lock);
	}
	return r;
}

static int was_synced(const char *path)
{
	size_t i;
	int found = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nsynced && !found; i++)
		found = synced[i] && strcmp(synced[i], path) == 0;
	pthread_mutex_unlock(&lock);
	return found;
}

static int check_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		note(was_synced(path) ? "synced" : "UNSYNCED", path);
	return 0;
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	char path[PATH_MAX];

	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	/* the same names fsync saw: absolute, links resolved */
	if (realpath(from, path))
		nftw(path, check_one, 16, FTW_PHYS);
	return real(from, to);
}
