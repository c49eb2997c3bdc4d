/*
 * test_dump.c - --dump (af_trace_dump): every record in the order of the
 * file, with its offset, thread, action, method and both clocks as written
 * and unwrapped, for every layout; against dmtracedump -o on the real
 * traces.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define A 4u
#define B 8u

/* One line of the dump. */
typedef struct rec {
	unsigned long long off;
	unsigned tid;
	char *thread, *action, *method;
	unsigned id;
	char *cpu, *cpu_unwrapped, *wall, *wall_unwrapped; /* "-" when absent */
} rec;

typedef struct dump {
	rec *r;
	size_t n, cap;
	char *text;
} dump;

/* Splits the dump's text (which it keeps) into records, after checking the
 * header and that every line has its ten fields. */
static dump parse_dump(char *text)
{
	dump d = {.text = text};
	char *line = text, *nl;

	nl = strchr(line, '\n');
	cr_assert_not_null(nl);
	*nl = '\0';
	cr_assert_str_eq(line, "offset\ttid\tthread\taction\tmethod_id\tmethod\tcpu\tcpu_unwrapped\t"
	                       "wall\twall_unwrapped");
	for (line = nl + 1; *line; line = nl + 1) {
		char *f[10], *p = line;
		rec *r;
		int k;
		nl = strchr(line, '\n');
		cr_assert_not_null(nl, "the last line ends with a newline");
		*nl = '\0';
		for (k = 0; k < 10; k++) {
			f[k] = p;
			p = strchr(p, '\t');
			if (k < 9) {
				cr_assert_not_null(p, "field %d of '%s'", k + 2, line);
				*p++ = '\0';
			}
		}
		cr_assert_null(p, "more than ten fields: %s", line);
		if (d.n == d.cap) {
			d.cap = d.cap ? 2 * d.cap : 64;
			d.r = realloc(d.r, d.cap * sizeof *d.r);
			cr_assert_not_null(d.r);
		}
		r = &d.r[d.n++];
		r->off = strtoull(f[0], NULL, 10);
		r->tid = (unsigned)strtoul(f[1], NULL, 10);
		r->thread = f[2];
		r->action = f[3];
		cr_assert_eq(sscanf(f[4], "0x%x", &r->id), 1, "%s", f[4]);
		r->method = f[5];
		r->cpu = f[6];
		r->cpu_unwrapped = f[7];
		r->wall = f[8];
		r->wall_unwrapped = f[9];
	}
	return d;
}

static void dump_free(dump *d)
{
	free(d->r);
	free(d->text);
}

static dump dump_of(const uint8_t *buf, size_t len)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	af_error e = {0};

	cr_assert_not_null(out);
	cr_assert_eq(af_trace_dump_buffer(buf, len, NULL, out, &e), AF_OK, "%s", e.message);
	fclose(out);
	return parse_dump(text);
}

static dump dump_file(const char *path)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	af_error e = {0};

	cr_assert_not_null(out);
	cr_assert_eq(af_trace_dump(path, NULL, out, &e), AF_OK, "%s: %s", path, e.message);
	fclose(out);
	return parse_dump(text);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	cr_assert(*s && !*end, "'%s' is no number", s);
	return v;
}

/* main: cpu near the top of 32 bits, wrapping; wall stepping back once. */
Test(dump, regular_trace_clocks_as_written_and_unwrapped)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&wo);
	static const struct {
		uint32_t tid, id;
		int act;
		uint32_t cpu, wall;
	} r[] = {{1, A, AF_ENTER, 0xFFFFFFF0u, 1000}, {2, B, AF_ENTER, 5, 7},
	         {1, B, AF_ENTER, 0xFFFFFFFEu, 1010},  {1, B, AF_EXIT, 0x10, 1005},
	         {2, B, AF_UNWIND, 9, 20},             {1, A, AF_EXIT, 0x20, 1030}};
	uint8_t *buf;
	size_t len, key_len, i, base;
	dump d;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "two\twords"), 0);
	cr_assert_eq(af_writer_method(w, A, "com.example.App", "a", "(I[Ljava/lang/String;)V", "f"),
	             0);
	cr_assert_eq(af_writer_method(w, B, "com.example.App", "b", "()V", "f"), 0);
	for (i = 0; i < sizeof r / sizeof r[0]; i++)
		cr_assert_eq(af_writer_record(w, r[i].tid, r[i].id, r[i].act, r[i].cpu, r[i].wall), 0);
	buf = t_finish(w, &len, &key_len);
	d = dump_of(buf, len);
	cr_assert_eq(d.n, 6);
	/* offsets: the data header's own offset field says where records begin */
	base = key_len + (buf[key_len + 6] | buf[key_len + 7] << 8);
	for (i = 0; i < d.n; i++) {
		cr_assert_eq(d.r[i].off, base + 14 * i);
		cr_assert_eq(d.r[i].tid, r[i].tid);
		cr_assert_eq(d.r[i].id, r[i].id);
		cr_assert_eq(num(d.r[i].cpu), r[i].cpu);
		cr_assert_eq(num(d.r[i].wall), r[i].wall);
	}
	cr_assert_str_eq(d.r[0].method, "com.example.App.a(int, java.lang.String[])");
	cr_assert_str_eq(d.r[0].thread, "main");
	cr_assert_str_eq(d.r[1].thread, "two\\twords"); /* escaped: the line keeps its fields */
	cr_assert_str_eq(d.r[0].action, "enter");
	cr_assert_str_eq(d.r[3].action, "exit");
	cr_assert_str_eq(d.r[4].action, "unwind");
	/* cpu of main: 0xFFFFFFF0, +14, +18 past 2^32, +16 */
	cr_assert_eq(num(d.r[0].cpu_unwrapped), 0xFFFFFFF0ull);
	cr_assert_eq(num(d.r[2].cpu_unwrapped), 0xFFFFFFFEull);
	cr_assert_eq(num(d.r[3].cpu_unwrapped), 0x100000010ull);
	cr_assert_eq(num(d.r[5].cpu_unwrapped), 0x100000020ull);
	/* wall of main: 1000, 1010, back to 1005 (counted as no time), 1030 */
	cr_assert_eq(num(d.r[2].wall_unwrapped), 1010);
	cr_assert_eq(num(d.r[3].wall_unwrapped), 1010);
	cr_assert_eq(num(d.r[5].wall_unwrapped), 1035);
	/* thread two keeps its own */
	cr_assert_eq(num(d.r[4].wall_unwrapped), 20);
	dump_free(&d);
	free(buf);
}

/* Version 1: 9-byte records, one clock; the other clock's columns are "-". */
Test(dump, one_clock_version_1)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .version = 1,
	                        .clock = AF_WRITER_WALL, .dalvik = 1};
	af_writer *w = af_writer_new(&wo);
	uint8_t *buf;
	size_t len, key_len, base;
	dump d;

	cr_assert_eq(af_writer_thread(w, 3, "main"), 0);
	cr_assert_eq(af_writer_method(w, A, "com.example.App", "a", "()V", "f"), 0);
	cr_assert_eq(af_writer_record(w, 3, A, AF_ENTER, 0, 100), 0);
	cr_assert_eq(af_writer_record(w, 3, A, AF_EXIT, 0, 150), 0);
	cr_assert_eq(af_writer_record(w, 3, 0x400, AF_ENTER, 0, 160), 0); /* not in the key */
	buf = t_finish(w, &len, &key_len);
	d = dump_of(buf, len);
	base = key_len + (buf[key_len + 6] | buf[key_len + 7] << 8);
	cr_assert_eq(d.n, 3);
	cr_assert_eq(d.r[1].off, base + 9);
	cr_assert_str_eq(d.r[1].cpu, "-");
	cr_assert_str_eq(d.r[1].cpu_unwrapped, "-");
	cr_assert_str_eq(d.r[1].wall, "150");
	cr_assert_str_eq(d.r[1].wall_unwrapped, "150");
	cr_assert_str_eq(d.r[2].method, "(unknown method 0x400)");
	dump_free(&d);
	free(buf);
}

/* A streaming trace: records between method and thread items, which the
 * dump steps over; each offset is where a record is. */
Test(dump, streaming_trace_and_its_items)
{
	af_writer_options wo = {.variant = AF_VARIANT_STREAMING, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&wo);
	uint8_t *buf;
	size_t len, i;
	dump d;
	af_trace *t;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, A, "com.example.App", "a", "()V", "f"), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_ENTER, 1, 2), 0);
	cr_assert_eq(af_writer_method(w, B, "com.example.App", "b", "(J)V", "f"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	cr_assert_eq(af_writer_record(w, 2, B, AF_ENTER, 3, 4), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_EXIT, 5, 6), 0);
	cr_assert_eq(af_writer_record(w, 2, B, AF_EXIT, 7, 8), 0);
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	cr_assert_eq(af_trace_get_info(t)->variant, AF_VARIANT_STREAMING);
	af_trace_free(t);
	d = dump_of(buf, len);
	cr_assert_eq(d.n, 4);
	for (i = 0; i < d.n; i++) {
		const uint8_t *p = buf + d.r[i].off;
		cr_assert_eq(p[0] | p[1] << 8, d.r[i].tid, "record %zu at %llu", i, d.r[i].off);
		cr_assert_eq(num(d.r[i].cpu), 2 * i + 1);
		cr_assert_eq(num(d.r[i].wall), 2 * i + 2);
	}
	cr_assert_str_eq(d.r[1].thread, "worker");
	cr_assert_str_eq(d.r[1].method, "com.example.App.b(long)");
	dump_free(&d);
	free(buf);
}

/* A key + data pair and a gzip file give what the plain trace gives
 * (offsets in the key and data joined). */
Test(dump, key_data_pair_and_gzip)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&wo);
	char *key = t_tmp("dump-pair.key"), *data = t_tmp("dump-pair.data"), *gz = t_tmp("dump.gz");
	uint8_t *buf, *z;
	size_t len, key_len, zlen, i;
	dump plain, pair, zipped;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, A, "com.example.App", "a", "()V", "f"), 0);
	for (i = 0; i < 10; i++)
		cr_assert_eq(af_writer_record(w, 1, A, (int)(i % 2), (uint32_t)i, (uint32_t)(2 * i)), 0);
	buf = t_finish(w, &len, &key_len);
	t_write(key, buf, key_len);
	t_write(data, buf + key_len, len - key_len);
	z = t_gzip(buf, len, &zlen);
	t_write(gz, z, zlen);
	plain = dump_of(buf, len);
	pair = dump_file(key);
	zipped = dump_file(gz);
	cr_assert_eq(plain.n, 10);
	cr_assert_eq(pair.n, 10);
	cr_assert_eq(zipped.n, 10);
	for (i = 0; i < plain.n; i++) {
		cr_assert_eq(pair.r[i].off, plain.r[i].off);
		cr_assert_eq(zipped.r[i].off, plain.r[i].off);
		cr_assert_str_eq(pair.r[i].wall_unwrapped, plain.r[i].wall_unwrapped);
		cr_assert_str_eq(zipped.r[i].method, plain.r[i].method);
	}
	dump_free(&plain);
	dump_free(&pair);
	dump_free(&zipped);
	unlink(key);
	unlink(data);
	unlink(gz);
	free(key);
	free(data);
	free(gz);
	free(z);
	free(buf);
}

Test(dump, command_line)
{
	char *out = NULL, *err = NULL, *txt = t_tmp("dump.txt"), *folded = t_tmp("dump.folded");
	char args[1024];
	uint8_t *data;
	size_t len;

	cr_assert_eq(t_cli("--dump '" AF_TEST_SAMPLES "/app.trace'", NULL, &out, &err), 0, "%s", err);
	cr_assert(strncmp(out, "offset\ttid\tthread\t", 18) == 0);
	cr_assert(strstr(out, "\tmain\tenter\t0x0\tandroid.app.ActivityThread.main(java.lang.String[])"
	                      "\t0\t0\t0\t0\n"),
	          "%.400s", out);
	free(err);
	/* -o FILE, whatever it is called */
	snprintf(args, sizeof args, "--dump -o '%s' '%s'", txt, AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	data = t_read(txt, &len);
	cr_assert_str_eq((char *)data, out);
	free(data);
	free(out);
	unlink(txt);
	/* folded stacks have no records: an error, and no file */
	t_write(folded, "a;b 1\n", 6);
	t_cli_says(1, "folded stacks have no records to dump", "--dump -o '%s' '%s'", txt, folded);
	cr_assert(access(txt, F_OK) != 0);
	/* a damaged trace: its error, nothing written */
	t_cli_says(1, "bad-magic.trace: ", "--dump -o '%s' '%s/bad/bad-magic.trace'", txt,
	           AF_TEST_DATA);
	cr_assert(access(txt, F_OK) != 0);
	t_cli_says(2, "--dump prints the records alone", "--dump --report - x.trace");
	t_cli_says(2, "--dump prints the records alone", "--dump --call-graph x.trace");
	unlink(folded);
	free(folded);
	free(txt);
}

/* ------------------------------------------------------------------ */
/* The real traces                                                     */

static const char *const real[] = {
	"BurrOakApp-dmtrace.trace", "JAGAndroidFramework-dmtrace.trace",
	"android-methods-profiler-legacy.trace", "firefox-profiler-art-trace-regular.trace.gz",
	"firefox-profiler-art-trace-streaming.trace.gz", "perflib-basic-api10.trace",
	"perflib-basic.trace", "perflib-exception.trace", "perflib-mismatched.trace"};

/* Every record, and each thread's unwrapped clocks span its time. */
Test(dump, every_real_trace, .timeout = 600)
{
	size_t f;

	if (!t_have_traces())
		return;
	t_traces_listed(real, sizeof real / sizeof real[0], "perflib-header.trace");
	/* perflib-header.trace is a key and no records (PROVENANCE.md): it is
	 * refused, with nothing printed but the error */
	{
		char *path = t_trace_path("perflib-header.trace"), *out = t_tmp("header.tsv");
		t_cli_says(1, "unsupported data version", "--dump -o '%s' '%s'", out, path);
		cr_assert(access(out, F_OK) != 0);
		free(out);
		free(path);
	}
	for (f = 0; f < sizeof real / sizeof real[0]; f++) {
		char *path = t_trace_path(real[f]);
		af_trace *t = NULL;
		af_error e = {0};
		dump d;
		size_t i, k;
		const af_trace_info *info;

		cr_assert_eq(af_trace_open(path, NULL, &t, &e), AF_OK, "%s", e.message);
		info = af_trace_get_info(t);
		d = dump_file(path);
		cr_assert_eq(d.n, info->records, "%s: %zu lines, %llu records", real[f], d.n,
		             (unsigned long long)info->records);
		for (i = 1; i < d.n; i++)
			cr_assert_gt(d.r[i].off, d.r[i - 1].off, "%s: in order", real[f]);
		for (k = 0; k < af_trace_thread_count(t); k++) {
			af_thread_info th;
			const rec *first = NULL, *last = NULL;
			af_trace_thread(t, k, &th);
			for (i = 0; i < d.n; i++)
				if (strcmp(d.r[i].thread, th.name) == 0 && (th.tid & 0xFFFF) == d.r[i].tid) {
					if (!first)
						first = &d.r[i];
					last = &d.r[i];
				}
			if (!first) /* a name that needed escaping */
				continue;
			if (info->has_clock[AF_CLOCK_WALL])
				cr_assert_eq(num(last->wall_unwrapped) - num(first->wall_unwrapped),
				             th.time[AF_CLOCK_WALL], "%s: %s", real[f], th.name);
			if (info->has_clock[AF_CLOCK_CPU])
				cr_assert_eq(num(last->cpu_unwrapped) - num(first->cpu_unwrapped),
				             th.time[AF_CLOCK_CPU], "%s: %s", real[f], th.name);
		}
		fprintf(stderr, "dump of %s: %zu records\n", real[f], d.n);
		dump_free(&d);
		af_trace_free(t);
		free(path);
	}
}

/* dmtracedump -o reads regular traces: its lines are "TID ACT TIME
 * ....class.method signature" (ent, xit, unr; the first clock field as
 * written; unknown methods as "???.??? methodId: 0x.."), after its key's
 * threads.  Compared: the records' order, thread id, action, method (name
 * and parameter types) and first clock.  Offsets, the second clock and the
 * unwrapped values are ours alone. */
Test(dump, agrees_with_dmtracedump, .timeout = 600)
{
	size_t f;

	if (!t_have_traces())
		return;
	if (system("command -v dmtracedump >/dev/null 2>&1") != 0) {
		cr_log_info("skipped: dmtracedump is not installed (apt-get install dmtracedump)");
		return;
	}
	for (f = 0; f < sizeof real / sizeof real[0]; f++) {
		char *path, *plain, cmd[4096], *text, *line, *save = NULL;
		size_t i = 0, unknown = 0;
		int started = 0, cpu;
		dump d;
		af_trace *t = NULL;
		af_error e = {0};

		if (strstr(real[f], "streaming")) /* dmtracedump reads no streaming trace */
			continue;
		path = t_trace_path(real[f]);
		plain = path;
		if (strstr(real[f], ".gz")) {
			plain = t_tmp("dump-plain.trace");
			snprintf(cmd, sizeof cmd, "gzip -dc '%s' > '%s'", path, plain);
			cr_assert_eq(system(cmd), 0);
		}
		cr_assert_eq(af_trace_open(plain, NULL, &t, &e), AF_OK);
		cpu = af_trace_get_info(t)->has_clock[AF_CLOCK_CPU];
		af_trace_free(t);
		d = dump_file(plain);
		snprintf(cmd, sizeof cmd, "dmtracedump -o '%s' 2>/dev/null", plain);
		text = t_popen_text(cmd);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			unsigned tid;
			char act[4], *name, *ours;
			unsigned long long time;
			int n = 0;
			const rec *r;
			if (!started) {
				started = strncmp(line, "Trace (threadID action usecs", 28) == 0;
				continue;
			}
			cr_assert(sscanf(line, "%u %3s%*c %llu%n", &tid, act, &time, &n) == 3 && n,
			          "%s: %s", real[f], line);
			cr_assert_lt(i, d.n, "%s: dmtracedump has more records", real[f]);
			r = &d.r[i++];
			cr_assert_eq(r->tid, tid, "%s: record %zu", real[f], i);
			cr_assert_str_eq(r->action, strcmp(act, "ent") == 0   ? "enter"
			                            : strcmp(act, "xit") == 0 ? "exit"
			                            : strcmp(act, "unr") == 0 ? "unwind"
			                                                      : "bad",
			                 "%s: record %zu", real[f], i);
			cr_assert_eq(num(cpu ? r->cpu : r->wall), time, "%s: record %zu", real[f], i);
			name = line + n + 1; /* after the depth mark */
			while (*name == '.')
				name++;
			if (strncmp(name, "???.??? methodId: ", 18) == 0) {
				unsigned id = (unsigned)strtoul(name + 18, NULL, 16);
				cr_assert_eq(r->id, id);
				cr_assert(strncmp(r->method, "(unknown method ", 16) == 0);
				unknown++;
				continue;
			}
			ours = t_dmt_name(name);
			cr_assert_str_eq(r->method, ours, "%s: record %zu", real[f], i);
			free(ours);
		}
		cr_assert_eq(i, d.n, "%s: %zu records, dmtracedump %zu", real[f], d.n, i);
		fprintf(stderr, "dmtracedump -o %s: the same %zu records (%zu of unknown methods)\n",
		        real[f], i, unknown);
		free(text);
		dump_free(&d);
		if (plain != path) {
			unlink(plain);
			free(plain);
		}
		free(path);
	}
}
