/*
 * fuzz_perfetto.c - one input read as a Perfetto trace's slices, with what
 * the reader promises checked: a refusal has a message and a byte offset
 * inside the input (a packet's, or the byte where the bytes end); a trace
 * read has as many threads as its tree, each named, its slices' ends no
 * more than their begins; and every thread and every process it names
 * selects a non-empty graph, by name and by number, as --thread and
 * --process do.  Built as the libFuzzer target fuzz_perfetto with
 * -DAFLAME_FUZZ, and linked into fuzz_replay_perfetto, which replays its
 * corpus and tests/data/bad under ctest in every build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aflame/aflame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The graph of the threads `opt` selects: 1 when it has any. */
static int selects(const af_trace *t, const af_tree_options *opt)
{
	af_tree *tree = NULL;
	af_error e;
	af_status st = af_tree_from_trace(t, opt, &tree, &e);

	if (st != AF_OK && st != AF_ERR_EMPTY && st != AF_ERR_NOMEM && st != AF_ERR_LIMIT)
		abort();
	af_tree_free(tree);
	return st == AF_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	af_parse_options po = {.limits = {.max_depth = 4096, .max_nodes = 1u << 20,
	                                  .max_input = 64u << 20}};
	af_trace *t = NULL;
	af_error e = {0};
	const af_trace_info *info;
	af_status st = af_trace_parse(data, size, &po, &t, &e);
	size_t i, n;

	if (st != AF_OK) {
		if (t || !e.message[0])
			abort();
		/* a damaged input says where; gzip'd input's offsets are of the
		 * inflated bytes, which may pass the input's size */
		if (st != AF_ERR_NOMEM && st != AF_ERR_LIMIT && e.offset >= 0 &&
		    !(size >= 2 && data[0] == 0x1F && data[1] == 0x8B) &&
		    (unsigned long long)e.offset > size)
			abort();
		return 0;
	}
	info = af_trace_get_info(t);
	if (info->variant != AF_VARIANT_PERFETTO) {
		af_trace_free(t);
		return 0;
	}
	if (info->exits > info->enters)
		abort();
	n = af_trace_thread_count(t);
	for (i = 0; i < n && i < 8; i++) {
		af_thread_info ti;
		af_tree_options o = {0};
		char num[16];
		const char *pick[1];

		af_trace_thread(t, i, &ti);
		if (!ti.name || !ti.name[0])
			abort();
		o.one_thread = 1;
		o.thread = i;
		if (ti.total[AF_CLOCK_WALL] && !selects(t, &o))
			abort();
		o.one_thread = 0;
		o.nthreads = 1;
		o.threads = pick;
		snprintf(num, sizeof num, "%u", ti.tid);
		pick[0] = num;
		if (ti.total[AF_CLOCK_WALL] && !selects(t, &o))
			abort();
		o.threads = NULL;
		o.nthreads = 0;
		if (!ti.pid)
			continue;
		o.processes = pick;
		o.nprocesses = 1;
		snprintf(num, sizeof num, "%u", ti.pid);
		if (ti.total[AF_CLOCK_WALL] && !selects(t, &o))
			abort();
		if (ti.process) {
			pick[0] = ti.process;
			if (ti.total[AF_CLOCK_WALL] && !selects(t, &o))
				abort();
		}
	}
	af_trace_free(t);
	return 0;
}
