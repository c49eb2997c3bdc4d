/*
 * watch.c - the time a request may take to arrive (--request-timeout).
 * libmicrohttpd closes a connection that stays idle; a client that sends a
 * byte now and then is never idle, so a thread looks at every connection
 * twice a second and shuts down the socket of one whose request has taken
 * longer than the limit (libmicrohttpd then closes it as it would any
 * connection its client dropped).  A connection waiting for its drawing is
 * not counted; each request starts the clock again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "serve.h"

struct watched {
	watched *prev, *next;
	int fd;
	int busy, cut;
	struct timespec since;
};

struct watch {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	int stop, seconds;
	watched *head;
};

static void *sweep(void *arg)
{
	watch *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec now, until;
		watched *c;
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (c = w->head; c; c = c->next)
			if (!c->busy && !c->cut && now.tv_sec - c->since.tv_sec >= w->seconds) {
				/* the socket is libmicrohttpd's: shut, not closed */
				shutdown(c->fd, SHUT_RDWR);
				c->cut = 1;
			}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 500000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

watch *watch_new(int seconds)
{
	watch *w = calloc(1, sizeof *w);

	if (!w)
		return NULL;
	w->seconds = seconds;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, sweep, w) != 0) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->wake);
		free(w);
		return NULL;
	}
	return w;
}

void watch_free(watch *w)
{
	watched *c, *next;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	for (c = w->head; c; c = next) {
		next = c->next;
		free(c);
	}
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}

watched *watch_add(watch *w, int fd)
{
	watched *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->fd = fd;
	clock_gettime(CLOCK_MONOTONIC, &c->since);
	pthread_mutex_lock(&w->lock);
	c->next = w->head;
	if (w->head)
		w->head->prev = c;
	w->head = c;
	pthread_mutex_unlock(&w->lock);
	return c;
}

void watch_remove(watch *w, watched *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&w->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		w->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&w->lock);
	free(c);
}

void watch_busy(watch *w, watched *c, int busy)
{
	if (!c)
		return;
	pthread_mutex_lock(&w->lock);
	c->busy = busy;
	clock_gettime(CLOCK_MONOTONIC, &c->since);
	pthread_mutex_unlock(&w->lock);
}
