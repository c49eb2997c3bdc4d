/*
 * trace_regular.c - the binary half of a regular trace: the "SLOW" data
 * header and fixed-size records (9, 10 or 14 bytes; version 3 states its
 * record size).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

#define AF_MAGIC 0x574F4C53u /* "SLOW" */

/* Below this many records a second core is not worth starting. */
#define AF_SPLIT_MIN_RECORDS 262144

/* Feeds the records in [from, to) to `t`: all of them, or with `owner`,
 * only those of the threads whose owner[tid] is `me`. */
static af_status af_regular_feed(af_trace *t, const uint8_t *data, size_t from,
                                 size_t to, unsigned rs, long long base,
                                 const uint8_t *owner, uint8_t me, af_error *err)
{
	size_t pos;

	for (pos = from; pos < to; pos += rs) {
		const uint8_t *p = data + pos;
		uint32_t tid, ma, t0, t1;
		if (rs == 9) {
			tid = p[0];
			ma = af_rd32(p + 1);
			t0 = t1 = af_rd32(p + 5);
		} else {
			tid = af_rd16(p);
			ma = af_rd32(p + 2);
			t0 = af_rd32(p + 6);
			t1 = rs >= 14 ? af_rd32(p + 10) : t0;
		}
		af_trace_progress(t, p, pos, to);
		if (owner && owner[tid & t->tid_mask] != me)
			continue;
		AF_FORWARD(af_trace_record(t, tid, ma, t0, t1,
		                           base + (long long)pos, err));
	}
	return AF_OK;
}

typedef struct af_feed_job {
	af_trace *t;
	const uint8_t *data;
	size_t from, to;
	unsigned rs;
	long long base;
	const uint8_t *owner;
	af_status st;
	af_error err;
} af_feed_job;

static void *af_feed_worker(void *arg)
{
	af_feed_job *j = arg;
	j->st = af_regular_feed(j->t, j->data, j->from, j->to, j->rs, j->base,
	                        j->owner, 1, &j->err);
	return NULL;
}

static int af_by_count(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b; /* {count, tid} pairs, busiest first */
	if (x[0] != y[0])
		return (x[0] < y[0]) - (x[0] > y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Threads are independent, so two cores can each take a share of them,
 * both reading every record and keeping their own.  Sets `*fed` when the
 * records were fed this way (or the merge failed, with the error returned);
 * otherwise they are to be fed on one core: too few records, one core, one
 * thread, or a failure on the way (an ordered pass then reports exactly
 * where the input went wrong). */
static af_status af_regular_split(af_trace *t, const uint8_t *data, size_t from,
                                  size_t to, unsigned rs, long long base,
                                  int *fed, af_error *err)
{
	size_t n = (to - from) / rs, pos, i, ntid = (size_t)t->tid_mask + 1, busy = 0;
	uint32_t *count = NULL, (*order)[2] = NULL;
	uint64_t load[2] = {0, 0};
	uint8_t *owner = NULL;
	af_trace *w[2] = {NULL, NULL};
	af_feed_job job;
	pthread_t th;
	af_status st = AF_OK;

	*fed = 0;
	if (t->jobs == 1 || t->flamechart || t->nthreads || t->tree.len)
		return AF_OK;
	if (t->jobs == 0 && (n < AF_SPLIT_MIN_RECORDS || sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return AF_OK;
	count = af_calloc(t->mem, ntid, sizeof *count);
	owner = af_calloc(t->mem, ntid, 1);
	if (!count || !owner)
		goto out;
	for (pos = from; pos < to; pos += rs) {
		count[(rs == 9 ? data[pos] : af_rd16(data + pos)) & t->tid_mask]++;
		if ((pos & ((4u << 20) - 1)) < rs)
			af_trace_window(t, data + pos);
	}
	for (i = 0; i < ntid; i++)
		busy += count[i] != 0;
	if (busy < 2 || !(order = af_malloc(t->mem, busy * sizeof *order)))
		goto out;
	for (i = 0, busy = 0; i < ntid; i++)
		if (count[i]) {
			order[busy][0] = count[i];
			order[busy++][1] = (uint32_t)i;
		}
	/* the busiest threads first, each to the core with less to do */
	qsort(order, busy, sizeof *order, af_by_count);
	for (i = 0; i < busy; i++) {
		uint8_t k = load[1] < load[0];
		owner[order[i][1]] = k;
		load[k] += order[i][0];
	}
	if (!(w[0] = af_trace_worker(t)) || !(w[1] = af_trace_worker(t)))
		goto out;
	for (i = 0; i < 2; i++)
		if (af_ptree_reserve(&w[i]->tree, load[i] / 16 + 64))
			goto out;
	w[0]->progress = t->progress;
	w[0]->progress_ctx = t->progress_ctx;
	for (i = 0; i < 2; i++) { /* each hands back what it has read */
		w[i]->window = t->window;
		w[i]->window_len = t->window_len;
	}
	job = (af_feed_job){w[1], data, from, to, rs, base, owner, AF_OK, {0}};
	if (pthread_create(&th, NULL, af_feed_worker, &job) != 0)
		goto out;
	st = af_regular_feed(w[0], data, from, to, rs, base, owner, 0, err);
	pthread_join(th, NULL);
	/* a failure, or together over the node limit: fed again in order,
	 * for the exact error */
	if (st != AF_OK || job.st != AF_OK ||
	    w[0]->tree.len + w[1]->tree.len > t->tree.max_nodes) {
		st = AF_OK;
		goto out;
	}
	*fed = 1;
	st = af_trace_absorb(t, w[0], err);
	t->split = t->tree.len;
	if (st == AF_OK)
		st = af_trace_absorb(t, w[1], err);
out:
	af_trace_free(w[0]);
	af_trace_free(w[1]);
	af_free(t->mem, count);
	af_free(t->mem, owner);
	af_free(t->mem, order);
	return st;
}

af_status af_trace_regular_data(af_trace *t, const uint8_t *data, size_t len,
                                long long base, af_error *err)
{
	unsigned version, offset, rs;
	size_t pos;
	int fed;

	if (len < 4)
		return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
		               "input ends before the data header");
	if (af_rd32(data) != AF_MAGIC)
		return af_fail(err, AF_ERR_HEADER, base,
		               "data section does not start with the SLOW magic");
	if (len < 16)
		return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
		               "input ends inside the data header");
	version = af_rd16(data + 4);
	offset = af_rd16(data + 6);
	switch (version) {
	case 1: rs = 9; break;
	case 2: rs = 10; break;
	case 3:
		if (len < 18)
			return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
			               "input ends inside the data header");
		rs = af_rd16(data + 16);
		if (rs != 10 && rs != 14)
			return af_fail(err, AF_ERR_HEADER, base + 16,
			               "unsupported record size %u (expected 10 or 14)",
			               rs);
		break;
	default:
		return af_fail(err, AF_ERR_HEADER, base + 4,
		               "unsupported data version %u (expected 1, 2 or 3)",
		               version);
	}
	if (offset < (version == 3 ? 18u : 16u))
		return af_fail(err, AF_ERR_HEADER, base + 6,
		               "data offset %u points inside the header", offset);
	if (offset > len)
		return af_fail(err, AF_ERR_TRUNCATED, base + 6,
		               "data offset %u is past the end of the input", offset);

	t->info.version = version;
	t->info.record_size = rs;
	t->tid_mask = version == 1 ? 0xFF : 0xFFFF;
	t->records_begin = (uint64_t)base + offset;
	af_trace_set_clocks(t, rs >= 14);
	pos = offset + (len - offset) / rs * rs;
	AF_FORWARD(af_regular_split(t, data, offset, pos, rs, base, &fed, err));
	if (!fed) {
		/* a first guess at the distinct paths saves growing as they come */
		if (af_ptree_reserve(&t->tree, (len - offset) / rs / 16 + 64))
			return af_fail(err, AF_ERR_NOMEM, base + offset, "out of memory");
		AF_FORWARD(af_regular_feed(t, data, offset, pos, rs, base, NULL, 0, err));
	}
	t->info.truncated_bytes = len - pos;
	t->info.data_end = (uint64_t)base + pos;
	return AF_OK;
}
