/*
 * test_input.c - inputs that go wrong around the parsers: a file another
 * program cuts short while it is read (in the library, deterministically,
 * and a real second process against the command), SIGBUS that is not
 * ours, the limits' messages (--max-nodes, the memory budget), and input
 * bytes quoted in messages, which must never reach a terminal raw.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

/* A file for the command's graph (never /dev/null: how the command treats
 * special files is another suite's matter). */
static const char *out_svg(void)
{
	static char path[1024];
	snprintf(path, sizeof path, "%s/%d-input-out.svg", AF_TEST_TMP, (int)getpid());
	return path;
}

typedef struct cutter {
	const char *path;
	off_t to;
	int calls;
} cutter;

/* Progress callback: the first call truncates the file being parsed. */
static void cut_file(void *ctx, uint64_t done, uint64_t total)
{
	cutter *c = ctx;
	(void)done;
	(void)total;
	if (c->calls++ == 0)
		cr_assert_eq(truncate(c->path, c->to), 0, "%s", strerror(errno));
}

/* The SIGBUS: a mapped input cut short while it is parsed.  The
 * progress callback runs inside the parse, after the file was mapped, so
 * the cut falls between reads every time; on one core and on two (the
 * second core reads pages the first never touched). */
Test(input, a_file_cut_short_while_parsed_is_an_error_not_a_crash)
{
	size_t len;
	uint8_t *buf = t_long_trace(1200000, &len);
	char *path = t_tmp("cut.trace");
	static const off_t cuts[] = {0, 4096, 6u << 20};
	size_t k;
	int jobs;

	for (k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
		for (jobs = 1; jobs <= 2; jobs++) {
			cutter c = {.path = path, .to = cuts[k]};
			af_parse_options po = {.jobs = jobs, .progress = cut_file,
			                       .progress_ctx = &c};
			af_trace *t = NULL;
			af_error e = {0};
			char want[160];

			t_write(path, buf, len);
			cr_assert_eq(af_trace_open(path, &po, &t, &e), AF_ERR_IO,
			             "cut to %lld, %d cores: %s", (long long)cuts[k], jobs,
			             e.message);
			cr_assert_null(t);
			cr_assert_gt(c.calls, 0);
			snprintf(want, sizeof want, "changed while it was read: it shrank "
			         "from %zu to %lld bytes", len, (long long)cuts[k]);
			cr_assert_str_eq(e.message, want);
			cr_assert_eq(e.offset, -1);
		}
	}
	/* and a file left alone parses, with the guard in place */
	t_write(path, buf, len);
	{
		af_trace *t = NULL;
		af_error e = {0};
		cr_assert_eq(af_trace_open(path, NULL, &t, &e), AF_OK, "%s", e.message);
		cr_assert_eq(af_trace_get_info(t)->records, 1200000 - 1200000 % 2);
		af_trace_free(t);
	}
	unlink(path);
	free(path);
	free(buf);
}

/* Folded text of `lines` distinct three-frame paths: slow enough to parse
 * (every name is new) for another process to act while it is read. */
static void write_slow_folded(const char *path, long lines)
{
	FILE *f = fopen(path, "w");
	long i;

	cr_assert_not_null(f);
	for (i = 0; i < lines; i++)
		fprintf(f, "main;com.example.Feature%ld.run;com.example.Step%ld.work%ld %ld\n",
		        i % 997, i, i % 13, i % 7 + 1);
	cr_assert_eq(fclose(f), 0);
}

/* 1 when /proc/PID/maps maps `path`. */
static int maps_file(pid_t pid, const char *path)
{
	char maps[64], line[4096];
	FILE *f;
	int found = 0;

	snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, path) != NULL;
	fclose(f);
	return found;
}

/* The reproduction with a real second process: the command draws a
 * large folded file and this process truncates it as soon as the command
 * has it mapped.  The command must say so and leave no output.  When the
 * command was done reading before the cut (a loaded machine can stall this
 * process), it rightly succeeds: the run is tried again with twice the
 * input, up to four times.  A crash fails at once. */
Test(input, the_command_reports_a_file_another_process_cuts_short, .timeout = 600)
{
	char *in = t_tmp("shrinking.folded"), *out = t_tmp("shrinking.svg");
	char *errpath = t_tmp("shrinking.err");
	long lines = 400000;
	int attempt, caught = 0;

	if (access("/proc/self/maps", R_OK) != 0)
		cr_skip_test("no /proc/PID/maps to see when the input is mapped");
	for (attempt = 0; attempt < 4 && !caught; attempt++, lines *= 2) {
		pid_t pid;
		int status, seen = 0;
		size_t n;
		char *err;

		write_slow_folded(in, lines);
		unlink(out);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(120);
			execl(AF_TEST_CLI, AF_TEST_CLI, "-q", "-o", out, in, (char *)NULL);
			_exit(121);
		}
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (maps_file(pid, in)) {
				seen = 1;
				cr_assert_eq(truncate(in, 0), 0);
				cr_assert_eq(waitpid(pid, &status, 0), pid);
				break;
			}
		}
		err = (char *)t_read(errpath, &n);
		cr_assert_not_null(err);
		cr_assert(WIFEXITED(status), "the command died of signal %d: %s",
		          WIFSIGNALED(status) ? WTERMSIG(status) : 0, err);
		if (seen && WEXITSTATUS(status) == 1) {
			char want[1024];
			snprintf(want, sizeof want, "aflame-render: %s: changed while it was "
			         "read: it shrank from ", in);
			cr_assert(strncmp(err, want, strlen(want)) == 0, "%s", err);
			cr_assert(strstr(err, " to 0 bytes\n"), "%s", err);
			cr_assert_eq(access(out, F_OK), -1, "%s was left behind", out);
			caught = 1;
		} else {
			cr_assert_eq(WEXITSTATUS(status), 0, "%s", err);
		}
		free(err);
	}
	cr_assert(caught, "the command read %ld lines before this process could cut "
	          "them four times", lines / 2);
	unlink(in);
	unlink(out);
	unlink(errpath);
	free(in);
	free(out);
	free(errpath);
}

/* Touches the second page of a mapping of a file cut to nothing: a SIGBUS
 * that is not the library's. */
static void foreign_sigbus(const char *path)
{
	char page[8192] = {1};
	volatile const char *p;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, page, sizeof page) != (ssize_t)sizeof page)
		_exit(120);
	p = mmap(NULL, sizeof page, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
		_exit(121);
	(void)p[4096];
}

static void own_handler(int sig)
{
	(void)sig;
	_exit(42);
}

/* The library's SIGBUS handler handles its own mappings only: any other
 * SIGBUS still kills (in an ASan build ASan's handler reports it and
 * exits non-zero or aborts), or reaches the handler the program had before. */
Test(input, sigbus_outside_an_input_is_left_alone)
{
	char *path = t_tmp("foreign.bin");
	int pass;

	for (pass = 0; pass < 2; pass++) {
		pid_t pid = fork();
		int status;

		cr_assert_geq(pid, 0);
		if (pid == 0) {
			af_trace *t = NULL;
			af_error e = {0};
			if (pass == 1) {
				struct sigaction sa;
				memset(&sa, 0, sizeof sa);
				sa.sa_handler = own_handler;
				sigemptyset(&sa.sa_mask);
				sigaction(SIGBUS, &sa, NULL);
			}
			/* a mapped input: the library's handler is in place */
			if (af_trace_open(AF_TEST_SAMPLES "/app.trace", NULL, &t, &e) != AF_OK)
				_exit(122);
			af_trace_free(t);
			/* an ASan build reports the fault on stderr: not this
			 * suite's output */
			{
				int null = open("/dev/null", O_WRONLY);
				if (null >= 0)
					dup2(null, 2);
			}
			foreign_sigbus(path);
			_exit(0); /* the fault was swallowed */
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		if (pass == 1) {
			cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 42,
			          "the program's own handler was not called (status %d)", status);
		} else {
			cr_assert(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
			          "a SIGBUS outside any input was swallowed");
			/* ASan reports it and exits, or aborts (abort_on_error) */
			cr_assert(WIFSIGNALED(status) ? WTERMSIG(status) == SIGBUS ||
			                                        WTERMSIG(status) == SIGABRT
			                              : WEXITSTATUS(status) < 120,
			          "status %d", status);
		}
	}
	unlink(path);
	free(path);
}

/* An endless input no trace starts like is refused at its first bytes:
 * /dev/zero used to be read up to the 2 GiB input limit. */
Test(input, dev_zero_is_refused_at_once, .timeout = 30)
{
	af_trace *t = NULL;
	af_error e = {0};
	char args[2048], *err = NULL;
	static const char want[] = "not an Android method trace nor folded stacks (no "
	                           "*version key, no SLOW header, not gzip, no "
	                           "\"frame;frame COUNT\" line)";

	cr_assert_eq(af_trace_open("/dev/zero", NULL, &t, &e), AF_ERR_FORMAT, "%s",
	             e.message);
	cr_assert_null(t);
	cr_assert_str_eq(e.message, want);
	cr_assert_eq(e.offset, 0);
	snprintf(args, sizeof args, "-o '%s' -", out_svg());
	cr_assert_eq(t_cli(args, "/dev/zero", NULL, &err), 1, "%s", err);
	cr_assert(strstr(err, want), "%s", err);
	free(err);
}

/* ------------------------------------------------------------------ */
/* Limits' messages                                                    */

/* Every --max-nodes below what an input needs stops it with the limit's
 * message: a new thread's root (and an orphan exit's new root) is a call
 * path too, and used to say "out of memory". */
Test(input, every_node_limit_says_it_is_the_limit)
{
	static const char *const samples[] = {"app.trace", "app-streaming.trace",
	                                      "app-dalvik-v1.trace", "app-obfuscated.trace"};
	static const char folded[] = "main;a;b 3\nmain;a;c 2\nworker;d 1\nmain;a;b;e 4\n";
	size_t k;
	int jobs, chart, orphan, stopped = 0;

	for (k = 0; k <= sizeof samples / sizeof samples[0]; k++) {
		size_t len;
		uint8_t *buf;
		char path[1024] = "folded text";

		if (k < sizeof samples / sizeof samples[0]) {
			snprintf(path, sizeof path, "%s/%s", AF_TEST_SAMPLES, samples[k]);
			buf = t_read(path, &len);
		} else {
			buf = (uint8_t *)strdup(folded);
			len = strlen(folded);
		}
		cr_assert_not_null(buf, "%s", path);
		for (jobs = 1; jobs <= 2; jobs++)
			for (chart = 0; chart <= 1; chart++) {
				uint32_t n;
				for (n = 1;; n++) {
					af_parse_options po = {.limits = {.max_nodes = n}, .jobs = jobs,
					                       .flamechart = chart};
					af_trace *t = NULL;
					af_error e = {0};
					af_status st = af_trace_parse(buf, len, &po, &t, &e);
					cr_assert_lt(n, 100000);
					if (st == AF_OK) {
						af_trace_free(t);
						break;
					}
					cr_assert_eq(st, AF_ERR_LIMIT, "sample %zu, %u nodes: %s", k,
					             n, e.message);
					cr_assert(strstr(e.message, "call path"), "%s", e.message);
					stopped++;
				}
			}
		free(buf);
	}
	/* orphan exits: each one adds a root above what the thread ran so far */
	for (orphan = 1; orphan <= 3; orphan++) {
		af_writer_options o = {.clock = AF_WRITER_DUAL};
		af_writer *w = af_writer_new(&o);
		size_t len;
		uint8_t *buf;
		uint32_t n;
		int i;

		cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
		cr_assert_eq(af_writer_method(w, 4, "a.B", "m", "()V", ""), 0);
		for (i = 0; i < orphan; i++)
			cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, (uint32_t)i, (uint32_t)i), 0);
		buf = t_finish(w, &len, NULL);
		for (n = 1;; n++) {
			af_parse_options po = {.limits = {.max_nodes = n}};
			af_trace *t = NULL;
			af_error e = {0};
			af_status st = af_trace_parse(buf, len, &po, &t, &e);
			if (st == AF_OK) {
				af_trace_free(t);
				break;
			}
			cr_assert_eq(st, AF_ERR_LIMIT, "%d orphan exits, %u nodes: %s", orphan,
			             n, e.message);
			stopped++;
		}
		free(buf);
	}
	cr_assert_gt(stopped, 40);
	t_cli_says(1, "cannot add call path 6 (limit 5)",
	           "--max-nodes 5 -o '%s' '%s/app.trace'", out_svg(), AF_TEST_SAMPLES);
}

/* A budget under a megabyte is said in KB or bytes, not "0.00 MB". */
Test(input, small_memory_budgets_are_said_exactly)
{
	t_cli_says(1, ": memory budget of 1 KB exceeded",
	           "--max-memory 1K -o '%s' '%s/app.trace'", out_svg(), AF_TEST_SAMPLES);
	t_cli_says(1, ": memory budget of 1000 bytes exceeded",
	           "--max-memory 1000 -o '%s' '%s/app.trace'", out_svg(), AF_TEST_SAMPLES);
	t_cli_says(1, ": memory budget of 100 KB exceeded",
	           "--max-memory 100K -o '%s' '%s/app.trace'", out_svg(), AF_TEST_SAMPLES);
}

/* Folded text of exactly `n` bytes (n >= 16): lines of one frame, the
 * last one's name padded to the length. */
static uint8_t *folded_of(size_t n)
{
	uint8_t *buf = malloc(n);
	size_t at = 0;

	cr_assert_not_null(buf);
	while (n - at >= 32) {
		memcpy(buf + at, "main;a 1\n", 9);
		at += 9;
	}
	memcpy(buf + at, "main;", 5);
	memset(buf + at + 5, 'b', n - at - 5 - 3);
	memcpy(buf + n - 3, " 1\n", 3);
	return buf;
}

/* `len` bytes of `buf` parsed from a pipe on standard input under the
 * input limit `max`: the status, the message in `e`, and when the input
 * was taken its graph's folded text in `*graph` (else NULL). */
static af_status parse_piped(const uint8_t *buf, size_t len, uint64_t max, af_error *e,
                             char **graph)
{
	af_parse_options po = {.limits = {.max_input = max}};
	af_trace *t = NULL;
	af_status st;
	int fds[2], saved = dup(0), status;
	pid_t child;

	cr_assert(saved >= 0 && pipe(fds) == 0);
	child = fork();
	cr_assert(child >= 0);
	if (child == 0) {
		size_t done = 0;
		close(fds[0]);
		while (done < len) {
			ssize_t w = write(fds[1], buf + done, len - done);
			if (w <= 0)
				_exit(w < 0 && errno == EPIPE ? 0 : 1);
			done += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	cr_assert(dup2(fds[0], 0) == 0);
	close(fds[0]);
	st = af_trace_open("-", &po, &t, e);
	*graph = t ? t_folded_trace(t, AF_CLOCK_WALL, NULL) : NULL;
	cr_assert(dup2(saved, 0) == 0); /* the writer sees the pipe close */
	close(saved);
	cr_assert_eq(waitpid(child, &status, 0), child);
	af_trace_free(t);
	return st;
}

/* An input of exactly the limit's size is taken, whichever way it comes;
 * a byte more is refused with the limit's message.  A pipe held in memory
 * used to be refused at the limit whenever its buffer needed room there,
 * saying it was larger than the limit. */
Test(input, an_input_at_the_limit_is_taken_and_a_byte_more_refused, .timeout = 60)
{
	static const size_t sizes[] = {4096, 65536, 100000, 131072, 1000000};
	char *path = t_tmp("limit.folded"), want[128];
	size_t k;

	for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = sizes[k], zlen;
		af_parse_options po = {.limits = {.max_input = n}};
		af_trace *t = NULL;
		af_error e = {0};
		int more;

		for (more = 0; more <= 1; more++) {
			/* the longer input's last line is one byte longer */
			size_t len = n + (size_t)more;
			uint8_t *buf = folded_of(len), *z;
			char *graph;
			af_status st = parse_piped(buf, len, n, &e, &graph);
			if (!more) {
				char *want_graph = t_folded(buf, len, AF_CLOCK_WALL, NULL);
				cr_expect_eq(st, AF_OK, "%zu bytes piped, limit %zu: %s", len, n,
				             e.message);
				/* every byte read, none twice: the graph of the bytes */
				cr_expect(graph && strcmp(graph, want_graph) == 0,
				          "%zu bytes piped: another graph", len);
				free(want_graph);
			} else {
				snprintf(want, sizeof want, "input is larger than the %zu-byte "
				         "input limit", n);
				cr_expect_eq(st, AF_ERR_LIMIT, "%zu bytes piped, limit %zu", len, n);
				cr_expect_str_eq(e.message, want);
			}
			t_write(path, buf, len);
			st = af_trace_open(path, &po, &t, &e);
			cr_expect_eq(st, more ? AF_ERR_LIMIT : AF_OK, "%zu bytes in a file: %s",
			             len, e.message);
			af_trace_free(t);
			t = NULL;
			z = t_gzip(buf, len, &zlen);
			t_write(path, z, zlen);
			free(z);
			st = af_trace_open(path, &po, &t, &e);
			cr_expect_eq(st, more ? AF_ERR_LIMIT : AF_OK, "%zu bytes gzip'd: %s", len,
			             e.message);
			af_trace_free(t);
			t = NULL;
			free(graph);
			free(buf);
		}
	}
	unlink(path);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Input bytes in messages                                             */

Test(input, text_escape_makes_text_safe_for_a_terminal)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"plain text, \xC3\xA9t\xC3\xA9", "plain text, \xC3\xA9t\xC3\xA9"},
		{"\033]0;PWNED\a", "\\x1B]0;PWNED\\x07"},
		{"\033[2J", "\\x1B[2J"},
		{"tab\there\nnl\rcr", "tab\\there\\nnl\\rcr"},
		{"del\x7F", "del\\x7F"},
		{"c1 \xC2\x9B" "2J", "c1 \\u009B2J"},
		{"bidi \xE2\x80\xAE" "cba", "bidi \\u202Ecba"},
		{"bad \xFF\xC3 utf8 \xED\xA0\x80", "bad \\xFF\\xC3 utf8 \\xED\\xA0\\x80"},
		{"a\\x1B stays", "a\\x1B stays"},
	};
	char out[256], again[256];
	size_t k, n;

	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		n = af_text_escape(out, sizeof out, cases[k].in, strlen(cases[k].in));
		cr_assert_str_eq(out, cases[k].want);
		cr_assert_eq(n, strlen(out));
		/* escaping twice changes nothing */
		af_text_escape(again, sizeof again, out, n);
		cr_assert_str_eq(again, out);
	}
	/* a NUL inside the length is escaped too */
	af_text_escape(out, sizeof out, "a\0b", 3);
	cr_assert_str_eq(out, "a\\x00b");
	/* what does not fit is left out whole: no half escape, no half
	 * character */
	cr_assert_eq(af_text_escape(out, 6, "ab\033cd", 5), 2);
	cr_assert_str_eq(out, "ab");
	cr_assert_eq(af_text_escape(out, 4, "ab\xC3\xA9", 4), 2);
	cr_assert_str_eq(out, "ab");
	cr_assert_eq(af_text_escape(out, 1, "abc", 3), 0);
	cr_assert_str_eq(out, "");
}

/* 1 when `s` holds a byte a terminal would act on. */
static int has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7F)
			return 1;
	return 0;
}

/* The hostile key and mapping files: ESC sequences in a method id,
 * in the vm= value -v prints, and in a class named twice. */
Test(input, escape_sequences_from_inputs_never_reach_stderr)
{
	static const char key[] =
		"*version\n3\ndata-file-overflow=false\nclock=dual\n"
		"vm=\033]0;PWNED\a\033[2J\n"
		"*threads\n1\tmain\n*methods\n0x4\tcom.example.A\trun\t()V\tA.java\n*end\n";
	static const char bad_id[] =
		"*version\n3\nclock=dual\n*threads\n1\tmain\n*methods\n"
		"\033]0;PWNED\a\tcom.example.A\trun\t()V\tA.java\n*end\nSLOW";
	static const char mapping[] = "com.example.A -> \033[2J\033]0;PWNED\a:\n"
	                              "com.example.B -> \033[2J\033]0;PWNED\a:\n";
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	char *trace = t_tmp("escape.trace"), *map = t_tmp("escape.mapping");
	char *idf = t_tmp("escape-id.trace"), *err = NULL, args[4096];
	uint8_t *buf, *data;
	size_t len, key_len;

	/* a real data section after the hostile key */
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "com.example.A", "run", "()V", "A.java"), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 1, 1), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, 5, 5), 0);
	buf = t_finish(w, &len, &key_len);
	data = malloc(sizeof key - 1 + len - key_len);
	cr_assert_not_null(data);
	memcpy(data, key, sizeof key - 1);
	memcpy(data + sizeof key - 1, buf + key_len, len - key_len);
	t_write(trace, data, sizeof key - 1 + len - key_len);
	t_write(idf, bad_id, sizeof bad_id - 1);
	t_write(map, mapping, sizeof mapping - 1);

	snprintf(args, sizeof args, "-v -o '%s' '%s'", out_svg(), trace);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	cr_assert(strstr(err, "vm \\x1B]0;PWNED\\x07\\x1B[2J\n"), "%s", err);
	cr_assert_not(has_control(err), "%s", err);
	free(err);

	snprintf(args, sizeof args, "-o '%s' '%s'", out_svg(), idf);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1, "%s", err);
	cr_assert(strstr(err, ": method id \"\\x1B]0;PWNED\\x07\" is not a number"), "%s",
	          err);
	cr_assert_not(has_control(err), "%s", err);
	free(err);

	snprintf(args, sizeof args, "--mapping '%s' -o '%s' '%s'", map, out_svg(), trace);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1, "%s", err);
	cr_assert(strstr(err, ": class '\\x1B[2J\\x1B]0;PWNED\\x07' is mapped twice "
	                      "(first on line 1) (line 2)\n"), "%s", err);
	cr_assert_not(has_control(err), "%s", err);
	free(err);

	/* a file name with them is escaped as well */
	{
		char *odd = t_tmp("name-\033[2J.trace");
		t_write(odd, bad_id, sizeof bad_id - 1);
		snprintf(args, sizeof args, "-o '%s' '%s'", out_svg(), odd);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 1, "%s", err);
		cr_assert(strstr(err, "name-\\x1B[2J.trace: method id"), "%s", err);
		cr_assert_not(has_control(err), "%s", err);
		free(err);
		unlink(odd);
		free(odd);
	}
	unlink(trace);
	unlink(idf);
	unlink(map);
	free(trace);
	free(idf);
	free(map);
	free(data);
	free(buf);
}
