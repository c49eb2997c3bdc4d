/*
 * fuzz_btrace.c - one input as a btrace 2.0 trace and its method mapping:
 * a u2 (little-endian) length n, then n bytes of mapping text, then the
 * trace.  The mapping is parsed (a failure must name its line); the trace
 * is parsed with it when it parsed and without it, each drawn as folded
 * text through a view with signatures, and dumped.  Built as the libFuzzer
 * target fuzz_btrace with -DAFLAME_FUZZ, and linked into the replay driver
 * fuzz_replay_btrace that runs under ctest in every build.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aflame/aflame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(const uint8_t *buf, size_t len, const af_btrace_mapping *m)
{
	af_parse_options po = {.btrace_mapping = m};
	af_tree_options to = {.signatures = 1};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e;
	FILE *sink = fopen("/dev/null", "w");

	if (!sink)
		return;
	e.message[0] = '\0';
	if (af_trace_parse(buf, len, &po, &t, &e) != AF_OK) {
		if (t || e.message[0] == '\0')
			abort(); /* a failure explains itself */
	} else {
		if (af_tree_from_trace(t, &to, &tree, &e) == AF_OK &&
		    af_folded_write(tree, AF_CLOCK_WALL, sink, &e) != AF_OK)
			abort(); /* writing to /dev/null cannot fail */
		af_tree_free(tree);
		af_trace_free(t);
		if (af_trace_dump_buffer(buf, len, &po, sink, &e) != AF_OK &&
		    e.message[0] == '\0')
			abort();
	}
	fclose(sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	af_btrace_mapping *m = NULL;
	af_error e;
	af_status st;
	size_t n;

	if (size < 2)
		return 0;
	n = (size_t)(data[0] | data[1] << 8);
	if (n > size - 2)
		n = size - 2;
	e.message[0] = '\0';
	st = af_btrace_mapping_parse(data + 2, n, &m, &e);
	if (st != AF_OK && (m || e.message[0] == '\0' || (st != AF_ERR_NOMEM && e.line < 1)))
		abort(); /* a failure explains itself, with its line */
	if (m)
		use(data + 2 + n, size - 2 - n, m);
	use(data + 2 + n, size - 2 - n, NULL);
	af_btrace_mapping_free(m);
	return 0;
}
