/*
 * test_variants.c - every trace layout the parser accepts gives the same
 * call tree, and every hostile input in data/bad gives its exact error.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "support.h"

#define M0 0u  /* ART numbers methods from 0: its key line says "0" */
#define M1 4u
#define M2 8u

static const char *const want_wall =
	"main;com.example.App.onCreate 30\n"
	"main;com.example.App.onCreate;com.example.View.inflate 50\n"
	"worker;com.example.View.inflate 7\n";
static const char *const want_cpu =
	"main;com.example.App.onCreate 3\n"
	"main;com.example.App.onCreate;com.example.View.inflate 5\n"
	"worker;com.example.View.inflate 1\n";

/* The same small program in any layout. */
static uint8_t *program(af_writer_options o, size_t *len, size_t *key_len)
{
	af_writer *w = af_writer_new(&o);

	cr_assert_not_null(w, "writer rejected the options");
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	cr_assert_eq(af_writer_method(w, M0, "com.example.App", "onCreate",
	                              "(Landroid/os/Bundle;)V", "App.java"), 0);
	cr_assert_eq(af_writer_method(w, M1, "com.example.View", "inflate", "()V",
	                              "View.java"), 0);
	cr_assert_eq(af_writer_method(w, M2, "com.example.View", "unused", "()V",
	                              "View.java"), 0);
	cr_assert_eq(af_writer_record(w, 1, M0, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, M1, AF_ENTER, 1, 10), 0);
	cr_assert_eq(af_writer_record(w, 2, M1, AF_ENTER, 0, 12), 0);
	cr_assert_eq(af_writer_record(w, 2, M1, AF_EXIT, 1, 19), 0);
	cr_assert_eq(af_writer_record(w, 1, M1, AF_EXIT, 6, 60), 0);
	cr_assert_eq(af_writer_record(w, 1, M0, AF_EXIT, 8, 80), 0);
	return t_finish(w, len, key_len);
}

static void check_layout(af_writer_options o, int wall, int cpu)
{
	size_t len;
	uint8_t *buf = program(o, &len, NULL);
	af_trace *t = t_parse(buf, len);
	const af_trace_info *i = af_trace_get_info(t);

	cr_assert_eq(i->has_clock[AF_CLOCK_WALL], wall);
	cr_assert_eq(i->has_clock[AF_CLOCK_CPU], cpu);
	cr_assert_eq(i->records, 6);
	cr_assert_eq(i->methods, 3);
	cr_assert_eq(i->threads_with_records, 2);
	af_trace_free(t);
	if (wall) {
		char *f = t_folded(buf, len, AF_CLOCK_WALL, NULL);
		cr_assert_str_eq(f, want_wall);
		free(f);
	}
	if (cpu) {
		char *f = t_folded(buf, len, AF_CLOCK_CPU, NULL);
		cr_assert_str_eq(f, want_cpu);
		free(f);
	}
	free(buf);
}

Test(variants, regular_v3_dual)
{
	check_layout((af_writer_options){.clock = AF_WRITER_DUAL}, 1, 1);
}

Test(variants, regular_v3_dalvik)
{
	check_layout((af_writer_options){.clock = AF_WRITER_DUAL, .dalvik = 1}, 1, 1);
}

Test(variants, regular_v3_one_clock_10_byte_records)
{
	check_layout((af_writer_options){.version = 3, .clock = AF_WRITER_WALL}, 1, 0);
}

Test(variants, regular_v2_wall)
{
	check_layout((af_writer_options){.version = 2, .clock = AF_WRITER_WALL}, 1, 0);
}

Test(variants, regular_v2_thread_cpu)
{
	check_layout((af_writer_options){.version = 2, .clock = AF_WRITER_THREAD_CPU},
	             0, 1);
}

Test(variants, regular_v1_thread_cpu_dalvik)
{
	check_layout((af_writer_options){.version = 1, .clock = AF_WRITER_THREAD_CPU,
	                                 .dalvik = 1},
	             0, 1);
}

Test(variants, streaming_dual)
{
	check_layout((af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                 .clock = AF_WRITER_DUAL},
	             1, 1);
}

Test(variants, streaming_one_clock_named_by_the_summary)
{
	check_layout((af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                 .clock = AF_WRITER_THREAD_CPU},
	             0, 1);
	check_layout((af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                 .clock = AF_WRITER_WALL},
	             1, 0);
}

Test(variants, streaming_cut_short_renders_what_is_there)
{
	af_writer_options o = {.variant = AF_VARIANT_STREAMING,
	                       .clock = AF_WRITER_DUAL, .no_summary = 1};
	size_t len;
	uint8_t *buf = program(o, &len, NULL);
	af_trace *t = t_parse(buf, len - 5); /* and a partial last record */
	const af_trace_info *i = af_trace_get_info(t);
	char *f;

	cr_assert(i->summary_missing);
	cr_assert(i->clock_assumed);
	cr_assert_eq(i->truncated_bytes, 9);
	cr_assert_eq(i->records, 5);
	cr_assert(i->has_clock[AF_CLOCK_WALL] && i->has_clock[AF_CLOCK_CPU]);
	af_trace_free(t);
	f = t_folded(buf, len - 5, AF_CLOCK_WALL, NULL);
	/* onCreate is still open: it closes at main's last record */
	cr_assert_str_eq(f, "main;com.example.App.onCreate 10\n"
	                    "main;com.example.App.onCreate;com.example.View.inflate 50\n"
	                    "worker;com.example.View.inflate 7\n");
	free(f);
	free(buf);

	/* a one-clock streaming trace with no summary: ART's wall default */
	o.clock = AF_WRITER_WALL;
	buf = program(o, &len, NULL);
	t = t_parse(buf, len);
	cr_assert(af_trace_get_info(t)->has_clock[AF_CLOCK_WALL]);
	cr_assert_not(af_trace_get_info(t)->has_clock[AF_CLOCK_CPU]);
	af_trace_free(t);
	free(buf);
}

Test(variants, regular_cut_mid_record_keeps_whole_records)
{
	size_t len;
	uint8_t *buf = program((af_writer_options){.clock = AF_WRITER_DUAL}, &len, NULL);
	af_trace *t = t_parse(buf, len - 3);

	cr_assert_eq(af_trace_get_info(t)->records, 5);
	cr_assert_eq(af_trace_get_info(t)->truncated_bytes, 11);
	af_trace_free(t);
	free(buf);
}

Test(variants, gzip_of_any_variant)
{
	af_writer_options all[] = {
		{.clock = AF_WRITER_DUAL},
		{.variant = AF_VARIANT_STREAMING, .clock = AF_WRITER_DUAL},
	};
	size_t k;

	for (k = 0; k < 2; k++) {
		size_t len, zlen;
		uint8_t *buf = program(all[k], &len, NULL);
		uint8_t *z = t_gzip(buf, len, &zlen);
		af_trace *t = t_parse(z, zlen);
		char *f;
		cr_assert(af_trace_get_info(t)->gzip);
		af_trace_free(t);
		f = t_folded(z, zlen, AF_CLOCK_WALL, NULL);
		cr_assert_str_eq(f, want_wall);
		free(f);
		free(z);
		free(buf);
	}
}

Test(variants, key_and_data_pair_by_either_path_or_base_name)
{
	size_t len, key_len;
	uint8_t *buf = program((af_writer_options){.clock = AF_WRITER_DUAL}, &len,
	                       &key_len);
	char *key = t_tmp("pair.key"), *data = t_tmp("pair.data"), *base = t_tmp("pair");
	const char *paths[3];
	size_t i;

	t_write(key, buf, key_len);
	t_write(data, buf + key_len, len - key_len);
	paths[0] = key;
	paths[1] = data;
	paths[2] = base;
	for (i = 0; i < 3; i++) {
		af_trace *t = NULL;
		af_tree *tree = NULL;
		af_error e = {0};
		char *text = NULL;
		size_t tlen;
		FILE *f;
		cr_assert_eq(af_trace_open(paths[i], NULL, &t, &e), AF_OK,
		             "%s: %s", paths[i], e.message);
		cr_assert_eq(af_trace_get_info(t)->variant, AF_VARIANT_KEY_DATA);
		cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
		f = open_memstream(&text, &tlen);
		cr_assert_eq(af_folded_write(tree, AF_CLOCK_WALL, f, &e), AF_OK);
		fclose(f);
		cr_assert_str_eq(text, want_wall);
		free(text);
		af_tree_free(tree);
		af_trace_free(t);
	}
	{
		/* a data half alone says what it looked for */
		af_trace *t = NULL;
		af_error e = {0};
		unlink(key);
		cr_assert_eq(af_trace_open(data, NULL, &t, &e), AF_ERR_FORMAT);
		cr_assert(strstr(e.message, "without its key"), "%s", e.message);
	}
	unlink(data);
	free(key);
	free(data);
	free(base);
	free(buf);
}

Test(variants, key_with_crlf_and_third_party_sections)
{
	size_t len, key_len, i, n = 0;
	uint8_t *buf = program((af_writer_options){.clock = AF_WRITER_DUAL}, &len,
	                       &key_len);
	const char extra[] = "*extra-info\r\nsdk=telescope\r\n*extra-info-end\r\n";
	uint8_t *crlf = malloc(len * 2 + sizeof extra);
	char *f;

	memcpy(crlf, extra, sizeof extra - 1);
	n = sizeof extra - 1;
	for (i = 0; i < key_len; i++) {
		if (buf[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = buf[i];
	}
	memcpy(crlf + n, buf + key_len, len - key_len);
	n += len - key_len;
	f = t_folded(crlf, n, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, want_wall);
	free(f);
	free(crlf);
	free(buf);
}

Test(variants, old_method_line_forms)
{
	static const char key[] =
		"*version\n2\nclock=wall\n*threads\n1\tmain\n*methods\n"
		"0x4\tonly.a.name\n"
		"0x8\tcom.example.A\tfour\t(I)V\n"
		"0xc\tcom.example.A\tfour\tA.java\n"
		"0x10\tcom.example.A\tthree\n"
		"*end\n";
	uint8_t buf[sizeof key + 32 + 8 * 10];
	size_t n = sizeof key - 1, r;
	static const uint32_t ids[] = {4, 8, 12, 16};
	char *f;
	af_tree_options sig = {.signatures = 1};

	memcpy(buf, key, n);
	memset(buf + n, 0, 32);
	memcpy(buf + n, "SLOW\x02\x00\x20\x00", 8);
	n += 32;
	for (r = 0; r < 8; r++) {
		uint8_t *p = buf + n;
		uint32_t ma = ids[r / 2] | (uint32_t)(r & 1), t = (uint32_t)(r * 5);
		p[0] = 1;
		p[1] = 0;
		memcpy(p + 2, &ma, 4); /* the test runs on little-endian machines */
		memcpy(p + 6, &t, 4);
		n += 10;
	}
	f = t_folded(buf, n, AF_CLOCK_WALL, &sig);
	cr_assert_str_eq(f, "main;com.example.A.four 5\n"
	                    "main;com.example.A.four(int) 5\n"
	                    "main;com.example.A.three 5\n"
	                    "main;only.a.name 5\n");
	free(f);
}

/* Every file in data/bad with a .error fails to parse with that message;
 * one with a .folded instead is damaged but usable: it parses, and its
 * graph on the default clock is exactly that text. */
Test(variants, hostile_inputs_give_their_exact_error)
{
	DIR *d = opendir(AF_TEST_DATA "/bad");
	struct dirent *ent;
	int count = 0, usable = 0;

	cr_assert_not_null(d);
	while ((ent = readdir(d)) != NULL) {
		char path[1024], epath[1024], fpath[1024], got[512];
		size_t len, elen, nl = strlen(ent->d_name);
		uint8_t *buf, *want;
		af_trace *t = NULL;
		af_error e = {0};

		if (nl < 7 || strcmp(ent->d_name + nl - 6, ".trace") != 0)
			continue;
		snprintf(path, sizeof path, "%s/bad/%s", AF_TEST_DATA, ent->d_name);
		snprintf(epath, sizeof epath, "%s/bad/%.*s.error", AF_TEST_DATA,
		         (int)(nl - 6), ent->d_name);
		snprintf(fpath, sizeof fpath, "%s/bad/%.*s.folded", AF_TEST_DATA,
		         (int)(nl - 6), ent->d_name);
		buf = t_read(path, &len);
		cr_assert_not_null(buf);
		want = t_read(epath, &elen);
		if (!want) {
			uint8_t *graph = t_read(fpath, &elen);
			char *f;
			cr_assert_not_null(graph, "%s has no .error nor .folded file",
			                   ent->d_name);
			t = t_parse(buf, len);
			f = t_folded(buf, len,
			             af_trace_get_info(t)->has_clock[AF_CLOCK_WALL]
			                     ? AF_CLOCK_WALL : AF_CLOCK_CPU, NULL);
			cr_expect_str_eq(f, (char *)graph, "%s", ent->d_name);
			af_trace_free(t);
			free(f);
			free(graph);
			free(buf);
			usable++;
			continue;
		}
		cr_assert_neq(af_trace_parse(buf, len, NULL, &t, &e), AF_OK,
		              "%s parsed", ent->d_name);
		cr_assert_null(t);
		if (e.offset >= 0)
			snprintf(got, sizeof got, "%s (byte %lld)\n", e.message, e.offset);
		else
			snprintf(got, sizeof got, "%s\n", e.message);
		cr_expect_str_eq(got, (char *)want, "%s", ent->d_name);
		cr_expect_geq(e.offset, 0, "%s: no byte offset", ent->d_name);
		free(buf);
		free(want);
		count++;
	}
	closedir(d);
	cr_assert_geq(count, 60);
	cr_assert_geq(usable, 15);
}

Test(variants, limits_stop_hostile_depth_and_size)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	af_parse_options p = {.limits = {.max_depth = 100}};
	size_t len, i;
	uint8_t *buf;
	af_trace *t = NULL;
	af_error e = {0};

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "a.B", "deep", "()V", ""), 0);
	for (i = 0; i < 1000; i++)
		cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 0, (uint32_t)i), 0);
	buf = t_finish(w, &len, NULL);
	cr_assert_eq(af_trace_parse(buf, len, &p, &t, &e), AF_ERR_LIMIT);
	cr_assert_str_eq(e.message, "thread 1's stack is deeper than 100 frames");
	cr_assert_null(t);
	/* the default limit takes 1000 frames without recursion anywhere */
	t = t_parse(buf, len);
	cr_assert_eq(af_trace_get_info(t)->open_at_end, 1000);
	af_trace_free(t);
	free(buf);
}

Test(variants, gzip_bomb_stops_at_the_input_limit)
{
	/* 16 MB of folded lines inflate from a few kB; the limit here is 1 MB */
	static const char line[] = "main;a;b 1\n";
	size_t n = 16u << 20, zlen, i;
	uint8_t *text = malloc(n), *z;
	af_parse_options p = {.limits = {.max_input = 1u << 20}};
	af_trace *t = NULL;
	af_error e = {0};
	char want[128];

	cr_assert_not_null(text);
	for (i = 0; i < n; i++)
		text[i] = (uint8_t)line[i % (sizeof line - 1)];
	z = t_gzip(text, n, &zlen);
	cr_assert_lt(zlen, 100000);
	cr_assert_eq(af_trace_parse(z, zlen, &p, &t, &e), AF_ERR_LIMIT, "%s", e.message);
	cr_assert_null(t);
	snprintf(want, sizeof want, "gzip data of %zu bytes inflates past the 1048576-byte "
	         "input limit", zlen);
	cr_assert_str_eq(e.message, want);
	free(z);
	free(text);
}

/* A gzip of zeros (a bomb, 1 GB in the issue) is gzip: it is not called "not
 * gzip", and it stops at the first megabyte inflated, long before any limit
 * (here 4 GB of zeros, which would pass the 2 GB input limit). */
Test(variants, gzip_of_zeros_is_said_to_hold_no_trace)
{
	size_t n = 64u << 20, zlen, k, total = 0;
	uint8_t *zeros = calloc(1, n), *z, *bomb;
	af_trace *t = NULL;
	af_error e = {0};

	cr_assert_not_null(zeros);
	z = t_gzip(zeros, n, &zlen);
	/* gzip members one after another inflate as one input */
	bomb = malloc(zlen * 64);
	cr_assert_not_null(bomb);
	for (k = 0; k < 64; k++) {
		memcpy(bomb + total, z, zlen);
		total += zlen;
	}
	cr_assert_eq(af_trace_parse(bomb, total, NULL, &t, &e), AF_ERR_FORMAT, "%s",
	             e.message);
	cr_assert_null(t);
	cr_assert_str_eq(e.message, "gzip data holding neither an Android method trace nor "
	                 "folded stacks (no *version key, no SLOW header, no \"frame;frame "
	                 "COUNT\" line)");
	cr_assert_eq(e.offset, 0);
	/* and a small one, inflated whole before anything is told, says the same */
	free(z);
	z = t_gzip(zeros, 100, &zlen);
	cr_assert_eq(af_trace_parse(z, zlen, NULL, &t, &e), AF_ERR_FORMAT);
	cr_assert(strncmp(e.message, "gzip data holding neither", 25) == 0, "%s", e.message);
	free(z);
	free(bomb);
	free(zeros);
}

Test(variants, one_megabyte_names_and_the_name_limit)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	size_t big = 1000000, len;
	char *name = malloc(big + 1);
	uint8_t *buf;
	af_trace *t = NULL;
	af_error e = {0};
	af_parse_options small = {.limits = {.max_name_len = 4096}};
	char *f;

	memset(name, 'x', big);
	name[big] = '\0';
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "a.B", name, "()V", ""), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, 1, 1), 0);
	buf = t_finish(w, &len, NULL);
	f = t_folded(buf, len, AF_CLOCK_WALL, NULL); /* under the 1 MiB default */
	cr_assert_eq(strlen(f), strlen("main;a.B.") + big + strlen(" 1\n"));
	free(f);
	cr_assert_eq(af_trace_parse(buf, len, &small, &t, &e), AF_ERR_LIMIT);
	cr_assert_str_eq(e.message, "key line longer than 4096 bytes");
	free(buf);
	free(name);
}

Test(variants, every_thread_id)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	size_t len;
	uint32_t tid;
	uint8_t *buf;
	af_trace *t;
	af_tree *tree = NULL;
	af_error e;

	cr_assert_eq(af_writer_method(w, 4, "a.B", "run", "()V", ""), 0);
	for (tid = 1; tid <= 65535; tid++) {
		cr_assert_eq(af_writer_record(w, tid, 4, AF_ENTER, 0, 0), 0);
		cr_assert_eq(af_writer_record(w, tid, 4, AF_EXIT, 1, 1), 0);
	}
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	cr_assert_eq(af_trace_get_info(t)->threads_with_records, 65535);
	cr_assert_eq(af_trace_get_info(t)->unknown_threads, 65535);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_tree_size(tree), 1 + 2 * 65535);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* A trace read on two cores, each taking some of the threads, gives what
 * one core gives: the same paths, counts, thread order and, past the node
 * limit, the same error at the same byte. */
static uint8_t *busy_trace(size_t *len)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	uint32_t depth[7] = {0}, stack[7][40], clk[7] = {0}, seed = 12345;
	uint32_t m, tid;
	size_t i;

	for (tid = 1; tid <= 5; tid++) { /* threads 6 and 7 are not declared */
		char name[16];
		snprintf(name, sizeof name, "t%u", tid);
		cr_assert_eq(af_writer_thread(w, tid * 1000, name), 0);
	}
	for (m = 0; m < 64; m++) {
		char name[16];
		snprintf(name, sizeof name, "m%u", m);
		cr_assert_eq(af_writer_method(w, m * 4, "a.B", name, "()V", ""), 0);
	}
	/* thread 3 starts inside a call: an orphan exit re-roots it */
	cr_assert_eq(af_writer_record(w, 3000, 8, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 3000, 8, AF_EXIT, 1, 2), 0);
	cr_assert_eq(af_writer_record(w, 3000, 12, AF_EXIT, 2, 3), 0);
	for (i = 0; i < 40000; i++) {
		uint32_t k, r;
		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		k = r % 7; /* the thread, skewed towards the first */
		if (k > 3 && (r & 0x100))
			k = 0;
		tid = (k + 1) * 1000;
		clk[k] += 1 + (r >> 20) % 7;
		if (depth[k] < 40 && (depth[k] == 0 || (r >> 12) % 3)) {
			/* callees depend on the caller, so paths repeat */
			uint32_t caller = depth[k] ? stack[k][depth[k] - 1] : 0;
			m = (caller * 7 + (r >> 14) % 3) % 64;
			stack[k][depth[k]++] = m;
			cr_assert_eq(af_writer_record(w, tid, m * 4, AF_ENTER, clk[k] / 3, clk[k]), 0);
		} else if (depth[k]) {
			m = stack[k][--depth[k]];
			/* now and then an exit names another method */
			cr_assert_eq(af_writer_record(w, tid, ((r >> 16) % 97 ? m : 63) * 4,
			                              (r >> 24) % 50 ? AF_EXIT : AF_UNWIND,
			                              clk[k] / 3, clk[k]), 0);
		}
	}
	return t_finish(w, len, NULL);
}

static char *described(const uint8_t *buf, size_t len, int jobs,
                       const af_limits *limits, af_status *st, af_error *e)
{
	af_parse_options p = {.jobs = jobs};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	char *text = NULL;
	size_t tlen = 0, i;
	FILE *f = open_memstream(&text, &tlen);
	const af_trace_info *in;
	af_clock c;

	if (limits)
		p.limits = *limits;
	*st = af_trace_parse(buf, len, &p, &t, e);
	if (*st != AF_OK) {
		fclose(f);
		free(text);
		return NULL;
	}
	in = af_trace_get_info(t);
	fprintf(f, "records %llu enters %llu exits %llu unwinds %llu orphans %llu "
	        "mismatched %llu open %llu threads %u unknown %u\n",
	        (unsigned long long)in->records, (unsigned long long)in->enters,
	        (unsigned long long)in->exits, (unsigned long long)in->unwinds,
	        (unsigned long long)in->orphan_exits,
	        (unsigned long long)in->mismatched_exits,
	        (unsigned long long)in->open_at_end, in->threads_with_records,
	        in->unknown_threads);
	for (i = 0; i < af_trace_thread_count(t); i++) {
		af_thread_info ti;
		af_trace_thread(t, i, &ti);
		fprintf(f, "thread %u %s\n", ti.tid, ti.name);
	}
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, e), AF_OK);
	for (c = 0; c < AF_CLOCK_COUNT; c++)
		cr_assert_eq(af_folded_write(tree, c, f, e), AF_OK);
	fclose(f);
	af_tree_free(tree);
	af_trace_free(t);
	return text;
}

/* Each path's subtree totals, where the trace's threads were read on two
 * cores, are added up on two cores too (no orphan exit: the second core's
 * paths hang under its own roots): the same totals as one core's, seen
 * through a tree cut at a share of them (af_tree_options.prune); and the
 * same count of method ids the table does not name, and of their calls. */
Test(variants, two_cores_add_up_what_one_adds_up)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	uint32_t depth[4] = {0}, stack[4][30], clk[4] = {0}, seed = 777, m, tid;
	size_t len, i, k;
	uint8_t *buf;
	char *text[2];

	for (tid = 1; tid <= 4; tid++) {
		char name[16];
		snprintf(name, sizeof name, "t%u", tid);
		cr_assert_eq(af_writer_thread(w, tid, name), 0);
	}
	for (m = 0; m < 32; m++) {
		char name[16];
		snprintf(name, sizeof name, "m%u", m);
		cr_assert_eq(af_writer_method(w, m * 4, "a.B", name, "()V", ""), 0);
	}
	for (i = 0; i < 30000; i++) {
		uint32_t r;
		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		k = r % 4;
		clk[k] += 1 + (r >> 20) % 5;
		if (depth[k] < 30 && (depth[k] == 0 || (r >> 12) % 3)) {
			uint32_t caller = depth[k] ? stack[k][depth[k] - 1] : 0;
			/* each thread calls methods of its own (so each core calls
			 * some the other does not), and now and then ids 32 to 35,
			 * which the method table does not name */
			m = (r >> 16) % 8 ? (uint32_t)k * 8 + (caller * 5 + (r >> 14) % 4) % 8
			                  : 32 + (r >> 19) % 4;
			stack[k][depth[k]++] = m;
			cr_assert_eq(af_writer_record(w, (uint32_t)k + 1, m * 4, AF_ENTER,
			                              clk[k] / 2, clk[k]), 0);
		} else if (depth[k]) {
			m = stack[k][--depth[k]];
			cr_assert_eq(af_writer_record(w, (uint32_t)k + 1, m * 4, AF_EXIT,
			                              clk[k] / 2, clk[k]), 0);
		}
	}
	buf = t_finish(w, &len, NULL);
	for (k = 0; k < 2; k++) {
		af_parse_options po = {.jobs = (int)k + 1};
		af_tree_options to = {.prune = 0.002, .prune_clock = AF_CLOCK_CPU};
		af_trace *t = NULL;
		af_tree *tree = NULL;
		af_error e = {0};
		const af_trace_info *in;
		size_t tlen = 0;
		char *nodes;
		FILE *f = open_memstream(&text[k], &tlen);

		cr_assert_eq(af_trace_parse(buf, len, &po, &t, &e), AF_OK, "%s", e.message);
		in = af_trace_get_info(t);
		cr_assert_eq(in->orphan_exits, 0);
		fprintf(f, "unknown ids %u, their calls %llu\n", in->unknown_methods,
		        (unsigned long long)in->unknown_method_calls);
		cr_assert_eq(af_tree_from_trace(t, &to, &tree, &e), AF_OK, "%s", e.message);
		nodes = t_node_totals(tree); /* in any order: the cores' paths come in another */
		fputs(nodes, f);
		free(nodes);
		fclose(f);
		af_tree_free(tree);
		af_trace_free(t);
	}
	cr_assert(strstr(text[0], "unknown ids 4,"), "%.200s", text[0]);
	cr_assert(strcmp(text[0], text[1]) == 0, "two cores:\n%.400s\none core:\n%.400s",
	          text[1], text[0]);
	free(text[0]);
	free(text[1]);
	free(buf);
}

Test(variants, two_cores_read_what_one_reads)
{
	size_t len;
	uint8_t *buf = busy_trace(&len);
	af_status st1, st2;
	af_error e1 = {0}, e2 = {0};
	char *one = described(buf, len, 1, NULL, &st1, &e1);
	char *two = described(buf, len, 2, NULL, &st2, &e2);
	af_limits few = {.max_nodes = 0};

	cr_assert_eq(st1, AF_OK, "%s", e1.message);
	cr_assert_eq(st2, AF_OK, "%s", e2.message);
	cr_assert(strstr(one, "orphans 1 "), "%.300s", one);
	cr_assert(strstr(one, "unknown 2"), "%.300s", one);
	/* (compared whole, reported short: the texts are long) */
	cr_assert(strcmp(two, one) == 0, "two cores:\n%.400s\none core:\n%.400s", two, one);
	free(one);
	free(two);

	/* a node limit one core passes half-way: the same error either way */
	few.max_nodes = 3000;
	one = described(buf, len, 1, &few, &st1, &e1);
	two = described(buf, len, 2, &few, &st2, &e2);
	cr_assert_eq(st1, AF_ERR_LIMIT, "%s", e1.message);
	cr_assert_eq(st2, st1);
	cr_assert_str_eq(e2.message, e1.message);
	cr_assert_eq(e2.offset, e1.offset);
	cr_assert_null(one);
	cr_assert_null(two);
	free(buf);
}
/* A regular trace cut at every byte: inside the key the key's error, inside
 * the header the header's, among the records a graph of the whole records
 * with the rest counted as cut off. */
Test(variants, regular_trace_cut_at_every_byte)
{
	size_t len, key_len, cut;
	uint8_t *buf = program((af_writer_options){.clock = AF_WRITER_DUAL}, &len,
	                       &key_len);

	for (cut = 0; cut < len; cut++) {
		af_trace *t = NULL;
		af_error e = {0};
		af_status st = af_trace_parse(buf, cut, NULL, &t, &e);
		size_t records = key_len + 32;
		if (cut < key_len) {
			cr_assert_neq(st, AF_OK, "cut at %zu", cut);
			cr_assert(cut == 0 || strncmp(e.message, "key section ends without", 24) == 0,
			          "cut at %zu: %s", cut, e.message);
			cr_assert_eq(e.offset, (long long)cut); /* the end of the input */
		} else if (cut < records) {
			cr_assert_eq(st, AF_ERR_TRUNCATED, "cut at %zu: %s", cut, e.message);
			/* where the header ends, or, once the data offset is read,
			 * the field that points past the end */
			cr_assert_eq(e.offset, (long long)(cut < key_len + 18 ? cut : key_len + 6),
			             "cut at %zu: %s", cut, e.message);
		} else {
			const af_trace_info *i;
			cr_assert_eq(st, AF_OK, "cut at %zu: %s", cut, e.message);
			i = af_trace_get_info(t);
			cr_assert_eq(i->truncated_bytes, (cut - records) % 14, "cut at %zu", cut);
			cr_assert_eq(i->data_end, cut - i->truncated_bytes);
			cr_assert_eq(i->records, (cut - records) / 14);
		}
		af_trace_free(t);
	}
	free(buf);
}

/* A streaming trace cut at every byte: a cut header is an error; after it,
 * whatever whole records and items are there make the graph. */
Test(variants, streaming_trace_cut_at_every_byte)
{
	size_t len, cut;
	uint8_t *buf = program((af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                           .clock = AF_WRITER_DUAL}, &len, NULL);
	uint64_t last_records = 0;

	for (cut = 0; cut < len; cut++) {
		af_trace *t = NULL;
		af_error e = {0};
		af_status st = af_trace_parse(buf, cut, NULL, &t, &e);
		if (cut < 32) {
			cr_assert_neq(st, AF_OK, "cut at %zu", cut);
			cr_assert_geq(e.offset, 0);
			cr_assert_leq(e.offset, (long long)cut);
			continue;
		}
		cr_assert_eq(st, AF_OK, "cut at %zu: %s", cut, e.message);
		cr_assert(af_trace_get_info(t)->summary_missing, "cut at %zu", cut);
		cr_assert_eq(af_trace_get_info(t)->data_end +
		             af_trace_get_info(t)->truncated_bytes, cut);
		/* records only come, never go, as the cut moves on */
		cr_assert_geq(af_trace_get_info(t)->records, last_records);
		last_records = af_trace_get_info(t)->records;
		af_trace_free(t);
	}
	cr_assert_eq(last_records, 6);
	free(buf);
}

/* Item types 0 and 4 to 255 do not exist: each is refused where it is. */
Test(variants, every_unknown_streaming_item_type)
{
	size_t len;
	uint8_t *buf = program((af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                           .clock = AF_WRITER_DUAL,
	                                           .no_summary = 1}, &len, NULL);
	uint8_t *bad = malloc(len + 3);
	unsigned type;

	memcpy(bad, buf, len);
	for (type = 0; type < 256; type++) {
		af_trace *t = NULL;
		af_error e = {0};
		char want[64];
		if (type >= 1 && type <= 3)
			continue;
		bad[len] = 0;
		bad[len + 1] = 0;
		bad[len + 2] = (uint8_t)type;
		cr_assert_eq(af_trace_parse(bad, len + 3, NULL, &t, &e), AF_ERR_RECORD);
		snprintf(want, sizeof want, "unknown streaming item type %u", type);
		cr_assert_str_eq(e.message, want);
		cr_assert_eq(e.offset, (long long)len + 2);
	}
	free(bad);
	free(buf);
}

/* Folded lines of 10 MB: one frame that long is over the name limit, and
 * a million frames deep is over the depth limit, unless they are raised. */
Test(variants, ten_megabyte_folded_lines)
{
	size_t n = 10u << 20, len, i;
	char *text = malloc(n + 64);
	af_parse_options big = {.limits = {.max_name_len = 16u << 20,
	                                   .max_depth = 2000000}};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e = {0};

	/* one frame of 10 MB */
	memcpy(text, "main;", 5);
	memset(text + 5, 'x', n);
	len = 5 + n + (size_t)sprintf(text + 5 + n, " 3\n");
	cr_assert_eq(af_trace_parse(text, len, NULL, &t, &e), AF_ERR_LIMIT);
	cr_assert_str_eq(e.message, "frame name longer than 1048576 bytes");
	cr_assert_eq(e.offset, 5);
	cr_assert_eq(af_trace_parse(text, len, &big, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_trace_get_info(t)->lines, 1);
	af_trace_free(t);

	/* 10 MB of ten-byte frames: 1,048,576 deep */
	for (i = 0; i < n; i += 10)
		memcpy(text + i, "frame0001;", 10);
	len = n - 1 + (size_t)sprintf(text + n - 1, " 3\n");
	cr_assert_eq(af_trace_parse(text, len, NULL, &t, &e), AF_ERR_LIMIT);
	cr_assert_str_eq(e.message, "stack deeper than 1000000 frames");
	cr_assert_eq(e.offset, 10000000);
	cr_assert_eq(af_trace_parse(text, len, &big, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_size(tree), 1 + n / 10);
	af_tree_free(tree);
	af_trace_free(t);
	free(text);
}
