/*
 * sync.c - the outputs' temporary files put on disk (fsync) before any is
 * renamed into place (output.c), by threads of their own, in the order
 * they are finished, while the run goes on: a per-thread set of 35 files
 * spent about 30 ms waiting on the disk, one file after another, in its
 * workers.  The commit waits for the last, and takes nothing into place
 * when one failed.
 *
 * Two files are synced at a time: an fsync mostly waits for the disk, and
 * the file system's journal commits two waiting at once together.  With one
 * at a time, a set of 1M records left about 20 files to sync when its
 * graphs were drawn, and the commit waited 9 ms for them; with two, about
 * 1 ms.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SYNCERS 2

struct sync_item {
	struct sync_item *next;
	int fd;
	char *name; /* for the message */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct sync_item *head, **tail;
	pthread_t thread[SYNCERS];
	int running, stop; /* running: threads started */
	int err;         /* the first failure's errno */
	char *err_name;  /* and its file */
} syncer = {.lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER,
            .tail = &syncer.head};

static void *sync_files(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&syncer.lock);
	for (;;) {
		struct sync_item *it;
		int e = 0;
		while (!syncer.head && !syncer.stop)
			pthread_cond_wait(&syncer.more, &syncer.lock);
		if (!(it = syncer.head))
			break;
		if (!(syncer.head = it->next))
			syncer.tail = &syncer.head;
		pthread_mutex_unlock(&syncer.lock);
		if (fsync(it->fd) != 0)
			e = errno;
		if (close(it->fd) != 0 && !e)
			e = errno;
		pthread_mutex_lock(&syncer.lock);
		if (e && !syncer.err) {
			syncer.err = e;
			syncer.err_name = it->name;
			it->name = NULL;
		}
		free(it->name);
		free(it);
	}
	pthread_mutex_unlock(&syncer.lock);
	return NULL;
}

int out_sync_later(int fd, const char *name)
{
	struct sync_item *it = malloc(sizeof *it);
	int r = -1;

	if (!it || !(it->name = strdup(name))) {
		free(it);
		return -1;
	}
	it->fd = fd;
	it->next = NULL;
	pthread_mutex_lock(&syncer.lock);
	if (!syncer.running) {
		/* every signal goes to the run's own threads, as before */
		sigset_t all, old;
		int k;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (k = 0; k < SYNCERS; k++)
			if (pthread_create(&syncer.thread[syncer.running], NULL,
			                   sync_files, NULL) == 0)
				syncer.running++;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (syncer.running) {
		*syncer.tail = it;
		syncer.tail = &it->next;
		pthread_cond_signal(&syncer.more);
		r = 0;
	}
	pthread_mutex_unlock(&syncer.lock);
	if (r) {
		free(it->name);
		free(it);
	}
	return r;
}

int out_sync_wait(void)
{
	int r = 0, k;

	pthread_mutex_lock(&syncer.lock);
	if (!syncer.running) {
		pthread_mutex_unlock(&syncer.lock);
		return 0;
	}
	syncer.stop = 1;
	pthread_cond_broadcast(&syncer.more);
	pthread_mutex_unlock(&syncer.lock);
	for (k = 0; k < syncer.running; k++)
		pthread_join(syncer.thread[k], NULL);
	syncer.running = 0;
	syncer.stop = 0;
	if (syncer.err) {
		fprintf(stderr, PROG ": %s: cannot write: %s\n", syncer.err_name,
		        strerror(syncer.err));
		free(syncer.err_name);
		syncer.err_name = NULL;
		syncer.err = 0;
		r = -1;
	}
	return r;
}
