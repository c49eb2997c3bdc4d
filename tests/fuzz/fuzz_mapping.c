/*
 * fuzz_mapping.c - one input as a ProGuard/R8 mapping file: parsed, every
 * obfuscated name it holds looked up (as a class, and as a method of the
 * last class before it, with and without descriptors), and applied to two
 * small traces (one method trace, one of folded frames) through views with
 * signatures and without packages, written as folded text.  Built as the
 * libFuzzer target fuzz_mapping with -DAFLAME_FUZZ, and linked into the
 * replay driver fuzz_replay_mapping that runs under ctest in every build.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aflame/aflame.h"
#include "aflame/writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static af_trace *methods, *frames;

/* Classes and names short enough that inputs reach them: a, a.a, a.b, b. */
static af_trace *method_trace(void)
{
	static const struct {
		const char *cls, *name, *sig;
	} m[] = {
		{"a", "a", "()V"},         {"a", "a", "(I)V"},
		{"a", "b", "(La;[J)La/a;"}, {"a.a", "a", "(Ljava/lang/String;)V"},
		{"a.b", "c", "(Z)I"},      {"b", "a", "()V"},
		{"a.a", "<init>", "()V"},  {"c.d", "e", "(La/b;)V"},
	};
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	af_trace *t = NULL;
	af_error e;
	uint8_t *buf = NULL;
	size_t len, i;
	uint32_t time = 0;

	if (!w || af_writer_thread(w, 1, "main"))
		abort();
	for (i = 0; i < sizeof m / sizeof m[0]; i++)
		if (af_writer_method(w, (uint32_t)(i + 1) * 4, m[i].cls, m[i].name, m[i].sig, ""))
			abort();
	for (i = 0; i < sizeof m / sizeof m[0]; i++) {
		uint32_t id = (uint32_t)(i + 1) * 4, next = (uint32_t)((i + 1) % 8 + 1) * 4;
		if (af_writer_record(w, 1, id, AF_ENTER, time, time) ||
		    af_writer_record(w, 1, next, AF_ENTER, time + 1, time + 2) ||
		    af_writer_record(w, 1, next, AF_EXIT, time + 3, time + 5) ||
		    af_writer_record(w, 1, id, AF_EXIT, time + 4, time + 7))
			abort();
		time += 8;
	}
	if (af_writer_finish(w, &buf, &len, NULL) || af_trace_parse(buf, len, NULL, &t, &e))
		abort();
	af_writer_free(w);
	free(buf);
	return t;
}

static af_trace *folded_trace(void)
{
	static const char text[] = "main;a.a;a.b(I);b.a 3\n"
	                           "main;a.a.a;c.d.e(La/b;) 2\n"
	                           "main;x;a.b 1\n";
	af_trace *t = NULL;
	af_error e;

	if (af_trace_parse(text, sizeof text - 1, NULL, &t, &e))
		abort();
	return t;
}

static void apply(const af_trace *t, const af_mapping *m, int signatures, int strip)
{
	af_tree_options to = {.mapping = m, .signatures = signatures,
	                      .strip_package = strip};
	af_tree *tree = NULL;
	af_error e;
	FILE *sink = fopen("/dev/null", "w");

	if (!sink)
		return;
	if (af_tree_from_trace(t, &to, &tree, &e) == AF_OK &&
	    af_folded_write(tree, AF_CLOCK_WALL, sink, &e) != AF_OK)
		abort(); /* writing to /dev/null cannot fail */
	af_tree_free(tree);
	fclose(sink);
}

/* Looks up every name after " -> " in the input. */
static void lookups(const af_mapping *m, const uint8_t *data, size_t size)
{
	static const char *const descs[] = {NULL, "", "()V", "(I)V", "(La;[J)La/a;",
	                                    "(Ljava/lang/String;I)V", "(La/b;)V", "garbage"};
	char cls[256] = "a", name[256];
	const uint8_t *p = data, *end = data + size;

	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p)), *a;
		size_t n;
		if (!eol)
			eol = end;
		for (a = p; a + 4 <= eol && memcmp(a, " -> ", 4) != 0; a++)
			;
		if (a + 4 <= eol) {
			const uint8_t *s = a + 4, *e = eol;
			while (e > s && (e[-1] == ':' || e[-1] == '\r' || e[-1] == ' '))
				e--;
			n = (size_t)(e - s) < sizeof name - 1 ? (size_t)(e - s) : sizeof name - 1;
			memcpy(name, s, n);
			name[n] = '\0';
			if (memchr(name, '\0', n) == NULL) {
				size_t k;
				if (p < eol && *p != ' ' && *p != '\t') {
					/* a class line: later methods belong to it */
					memcpy(cls, name, n + 1);
					(void)af_mapping_class(m, name);
				} else {
					for (k = 0; k < sizeof descs / sizeof descs[0]; k++)
						(void)af_mapping_method(m, cls, name, descs[k]);
				}
			}
		}
		p = eol + (eol < end);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	af_mapping *m = NULL;
	af_error e;
	af_status st;

	if (!methods) {
		methods = method_trace();
		frames = folded_trace();
	}
	e.message[0] = '\0';
	if ((st = af_mapping_parse(data, size, &m, &e)) != AF_OK) {
		if (m || e.message[0] == '\0' || (st != AF_ERR_NOMEM && e.line < 1))
			abort(); /* a failure explains itself, with its line */
		return 0;
	}
	lookups(m, data, size);
	apply(methods, m, 0, 0);
	apply(methods, m, 1, 1);
	apply(frames, m, 1, 0);
	af_mapping_free(m);
	return 0;
}
