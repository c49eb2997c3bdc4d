/*
 * render.c - the render workers: a fixed number of threads taking work
 * from a bounded queue (a full queue is the caller's 503), and the command
 * run as a child process for each set or view.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve.h"

extern char **environ;

typedef struct work {
	pool_fn fn;
	void *arg;
} work;

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t more;
	work *q;
	int cap, head, count, stop, nthreads;
	pthread_t *threads;
};

static void *pool_worker(void *arg)
{
	pool *p = arg;

	for (;;) {
		work w;
		pthread_mutex_lock(&p->lock);
		while (!p->count && !p->stop)
			pthread_cond_wait(&p->more, &p->lock);
		if (!p->count) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		w = p->q[p->head];
		p->head = (p->head + 1) % p->cap;
		p->count--;
		pthread_mutex_unlock(&p->lock);
		w.fn(w.arg);
	}
}

pool *pool_new(int workers, int queue)
{
	pool *p = calloc(1, sizeof *p);
	int i;

	if (!p)
		return NULL;
	p->cap = queue > 0 ? queue : 1;
	p->q = calloc((size_t)p->cap, sizeof *p->q);
	p->threads = calloc((size_t)workers, sizeof *p->threads);
	if (!p->q || !p->threads) {
		free(p->q);
		free(p->threads);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	for (i = 0; i < workers; i++)
		if (pthread_create(&p->threads[p->nthreads], NULL, pool_worker, p) == 0)
			p->nthreads++;
	if (!p->nthreads) {
		pool_free(p);
		return NULL;
	}
	return p;
}

int pool_submit(pool *p, pool_fn fn, void *arg)
{
	int r = -1;

	pthread_mutex_lock(&p->lock);
	if (p->count < p->cap && !p->stop) {
		p->q[(p->head + p->count) % p->cap] = (work){fn, arg};
		p->count++;
		pthread_cond_signal(&p->more);
		r = 0;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

void pool_free(pool *p)
{
	int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->more);
	free(p->q);
	free(p->threads);
	free(p);
}

/* The whole of a small file, NUL-terminated ("" when it cannot be read). */
static char *slurp(const char *path, size_t limit)
{
	FILE *f = fopen(path, "rb");
	char *s = malloc(limit + 1);
	size_t n = 0;

	if (s && f)
		n = fread(s, 1, limit, f);
	if (f)
		fclose(f);
	if (s)
		s[n] = '\0';
	return s;
}

int run_command(const serve_config *cfg, const char *cwd, const char *const *args,
                const char *err_path, char **err)
{
	const char *argv[64];
	char mem[48];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int n = 0, status = 0, rc;

	*err = NULL;
	argv[n++] = PROG;
	if (cfg->max_memory) {
		/* --max-memory: each render's budget */
		snprintf(mem, sizeof mem, "--max-memory=%llu", (unsigned long long)cfg->max_memory);
		argv[n++] = mem;
	}
	while (*args && n < 62)
		argv[n++] = *args++;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addchdir_np(&fa, cwd);
	rc = posix_spawn(&pid, cfg->self, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, PROG ": serve: cannot run %s: %s\n", cfg->self, strerror(rc));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	*err = slurp(err_path, 16384);
	unlink(err_path);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
