/*
 * dump.c - every record of a trace as a line of text, in the order of the
 * file (dmtracedump -o): for people debugging a trace or a tracer.
 *
 * The trace is parsed whole first, through the usual reader (input.c), so
 * that methods and threads declared anywhere (a streaming trace names
 * threads in its summary, at the end) have their names; then, while the
 * parsed bytes are still there, the records are read again from where the
 * parse found them to begin.  Nothing is kept per record.
 */
#include <string.h>

#include "trace.h"

/* What a walk needs beside the trace. */
typedef struct af_dump {
	FILE *out;
	af_names names;    /* method names */
	af_u32map name_of; /* method id -> name id */
	char **thread;     /* per thread: its name, escaped */
	uint8_t *seen;     /* per thread: a record was read */
	uint32_t (*last)[AF_CLOCK_RECORDED];
	uint64_t (*unwrapped)[AF_CLOCK_RECORDED];
	const af_trace *trace;
} af_dump;

static const char *const af_actions[4] = {"enter", "exit", "unwind", "bad"};

/* The name of method `mid`: as the graph names it, with its parameters. */
static const char *af_dump_method(af_dump *d, const af_trace *t, uint32_t mid)
{
	uint32_t id;

	if (af_u32map_get(&d->name_of, mid, &id))
		return d->names.str[id];
	id = af_trace_frame_name(t, mid, 1, &d->names);
	if (id == AF_NONE || af_u32map_put(&d->name_of, mid, id))
		return NULL;
	return d->names.str[id];
}

/* One record at `off`; -1 when out of memory. */
static int af_dump_record(af_dump *d, const af_trace *t, uint64_t off, uint32_t tid,
                          uint32_t ma, uint32_t t0, uint32_t t1)
{
	const uint32_t now[AF_CLOCK_RECORDED] = {
	    [AF_CLOCK_CPU] = t0, [AF_CLOCK_WALL] = t1};
	uint32_t k = tid & t->tid_mask, th;
	const char *name = af_dump_method(d, t, ma & ~3u);
	int c;

	if (!name)
		return -1;
	/* every record's thread is one of the trace's (the parse made it) */
	th = k < t->thread_of_len && t->thread_of[k] ? t->thread_of[k] - 1 : AF_NONE;
	if ((t->info.variant == AF_VARIANT_ART_V2 || t->info.variant == AF_VARIANT_ART_V6) &&
	    th != AF_NONE)
		tid = t->threads[th].tid; /* the kernel id, not the dense one */
	fprintf(d->out, "%llu\t%u\t%s\t%s\t0x%x\t%s", (unsigned long long)off, tid,
	        th != AF_NONE ? d->thread[th] : "", af_actions[ma & 3], ma & ~3u, name);
	for (c = AF_CLOCK_CPU; c >= 0; c--) { /* cpu first, as records hold them */
		if (!t->info.has_clock[c]) {
			fputs("\t-\t-", d->out);
			continue;
		}
		if (th != AF_NONE) {
			/* as af_trace_charge() unwraps: modulo 2^32, a step back is 0 */
			if (!d->seen[th]) {
				d->unwrapped[th][c] = now[c];
			} else {
				uint32_t step = now[c] - d->last[th][c];
				d->unwrapped[th][c] += step > 0x7FFFFFFFu ? 0 : step;
			}
			d->last[th][c] = now[c];
		}
		fprintf(d->out, "\t%u\t%llu", now[c],
		        th != AF_NONE ? (unsigned long long)d->unwrapped[th][c]
		                      : (unsigned long long)now[c]);
	}
	fputc('\n', d->out);
	if (th != AF_NONE)
		d->seen[th] = 1;
	return 0;
}

/* The records of `buf` as the parse found them, regular or streaming. */
static int af_dump_records(af_dump *d, const af_trace *t, const uint8_t *buf)
{
	size_t rs = t->info.record_size, pos = (size_t)t->records_begin;
	size_t end = (size_t)t->info.data_end;
	int streaming = t->info.version >= 0xF0;

	while (pos < end) {
		const uint8_t *p = buf + pos;
		size_t left = end - pos;
		uint32_t tid, t0;

		if (left < rs && !(streaming && left >= 3 && af_rd16(p) == 0))
			break;
		if (rs == 9) {
			t0 = af_rd32(p + 5);
			if (af_dump_record(d, t, pos, p[0], af_rd32(p + 1), t0, t0))
				return -1;
			pos += rs;
			continue;
		}
		tid = af_rd16(p);
		if (streaming && tid == 0) {
			/* an item the parse read: a method, a thread, the summary */
			switch (p[2]) {
			case 1:
				pos += 5 + (size_t)af_rd16(p + 3);
				break;
			case 2:
				pos += 7 + (size_t)af_rd16(p + 5);
				break;
			default:
				pos = end;
				break; /* the summary is last */
			}
			continue;
		}
		t0 = af_rd32(p + 6);
		if (af_dump_record(d, t, pos, tid, af_rd32(p + 2), t0,
		                   rs >= 14 ? af_rd32(p + 10) : t0))
			return -1;
		pos += rs;
	}
	return 0;
}

/* An ART V2 record, as trace_v2.c decodes it again (or a btrace call's
 * enter or exit, as btrace.c rebuilds them again). */
static af_status af_dump_v2(void *ctx, long long off, uint32_t tid, uint32_t ma,
                            uint32_t t0, uint32_t t1, af_error *err)
{
	af_dump *d = ctx;

	if (af_dump_record(d, d->trace, (uint64_t)off, tid, ma, t0, t1))
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory dumping the records");
	return AF_OK;
}

static af_status af_dump_walk(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	af_dump d = {.out = t->walk_ctx};
	size_t i, n = AF_MAX(t->nthreads, 1u);
	int bad = 0;
	af_status walked = AF_OK;

	if (t->info.variant == AF_VARIANT_FOLDED)
		return af_fail(
		    err, AF_ERR_FORMAT, 0,
		    "folded stacks have no records to dump (--dump reads method traces)");
	if (t->info.variant == AF_VARIANT_SYSTRACE)
		return af_fail(err, AF_ERR_FORMAT, 0, "systrace text has no method records "
		               "to dump (--dump reads method traces)");
	if (t->info.variant == AF_VARIANT_PERFETTO)
		return af_fail(err, AF_ERR_FORMAT, 0, "a Perfetto trace has no method "
		               "records to dump (--dump reads method traces)");
	d.names.mem = d.name_of.mem = t->mem;
	d.thread = af_calloc(t->mem, n, sizeof *d.thread);
	d.seen = af_calloc(t->mem, n, sizeof *d.seen);
	d.last = af_calloc(t->mem, n, sizeof *d.last);
	d.unwrapped = af_calloc(t->mem, n, sizeof *d.unwrapped);
	bad = !d.thread || !d.seen || !d.last || !d.unwrapped;
	for (i = 0; !bad && i < t->nthreads; i++) {
		/* tabs and line ends in a name must not break the line */
		size_t nl = strlen(t->threads[i].name), cap;
		if (af_mul_overflow(nl, 4, &cap) ||
		    !(d.thread[i] = af_malloc(t->mem, cap + 1)))
			bad = 1;
		else
			af_text_escape(d.thread[i], cap + 1, t->threads[i].name, nl);
	}
	if (!bad) {
		fputs("offset\ttid\tthread\taction\tmethod_id\tmethod\tcpu\tcpu_"
		      "unwrapped\twall\t"
		      "wall_unwrapped\n",
		      d.out);
		if (t->info.variant == AF_VARIANT_ART_V2) {
			d.trace = t;
			walked = af_trace_v2_walk(t, buf, len, 0, af_dump_v2, &d, err);
		} else if (t->info.variant == AF_VARIANT_ART_V6) {
			d.trace = t;
			walked = af_trace_v6_walk(t, buf, len, 0, af_dump_v2, &d, err);
		} else if (t->info.variant == AF_VARIANT_BTRACE) {
			d.trace = t;
			walked = af_trace_btrace_walk(t, buf, len, 0, af_dump_v2, &d, err);
		} else {
			bad = af_dump_records(&d, t, buf);
		}
	}
	for (i = 0; d.thread && i < t->nthreads; i++)
		af_free(t->mem, d.thread[i]);
	af_free(t->mem, d.thread);
	af_free(t->mem, d.seen);
	af_free(t->mem, d.last);
	af_free(t->mem, d.unwrapped);
	af_names_free(&d.names);
	af_u32map_free(&d.name_of);
	if (walked != AF_OK)
		return walked; /* the walk said why */
	if (bad)
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory dumping the records");
	if (fflush(d.out) || ferror(d.out))
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	return AF_OK;
}

/* Parses with `parse` (af_trace_open_into or af_trace_parse_into's
 * work, given as `path` or `buf`), dumping as it finishes. */
static af_status af_dump_run(const char *path, const void *buf, size_t len,
                             const af_parse_options *opt, FILE *out, af_error *err)
{
	af_trace *t;
	af_status st;

	if ((st = af_trace_new(opt, &t, err)) != AF_OK)
		return st;
	t->walk = af_dump_walk;
	t->walk_ctx = out;
	st = path ? af_trace_open_into(t, path, err)
	          : af_trace_parse_into(t, buf, len, err);
	st = af_mem_explain(t->mem, st, err);
	af_trace_free(t);
	return st;
}

af_status af_trace_dump(const char *path, const af_parse_options *opt, FILE *out,
                        af_error *err)
{
	return af_dump_run(path, NULL, 0, opt, out, err);
}

af_status af_trace_dump_buffer(const void *buf, size_t len, const af_parse_options *opt,
                               FILE *out, af_error *err)
{
	return af_dump_run(NULL, buf, len, opt, out, err);
}
