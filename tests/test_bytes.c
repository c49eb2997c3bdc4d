/*
 * test_bytes.c - src/bytes.c: a large input is read in a window (a file
 * mapped without reading it ahead; a pipe or inflated gzip spilled to a
 * temporary file with no name), and gives the graph its bytes give.  On
 * its own in this suite: Criterion's runner itself leaks a block under
 * LeakSanitizer when this long test shares a parallel run with others.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* A large input is read in a window (src/bytes.c): a file mapped without
 * being read ahead, a pipe and an inflated gzip stream spilled to a
 * temporary file with no name; the pages behind the parse handed back.
 * Each way gives the graph the bytes give when parsed from memory, a
 * spill leaves nothing in TMPDIR, and with no TMPDIR to spill to the
 * stream stays in memory. */
Test(bytes, large_inputs_read_in_a_window_give_the_same_graph, .timeout = 900)
{
	char *path = t_tmp("window.trace"), *gz_path = t_tmp("window.trace.gz");
	char *dir = t_tmp("window-tmp"), cmd[8192], *listing;
	static const char *const ways[] = {"file", "pipe", "gzip", "pipe, no TMPDIR"};
	size_t len, gz_len, i;
	uint8_t *buf = t_long_trace(5400000, &len), *gz;
	char *want = t_folded(buf, len, AF_CLOCK_WALL, NULL);

	cr_assert_gt(len, 72u << 20, "past the 64 MiB window");
	t_write(path, buf, len);
	gz = t_gzip(buf, len, &gz_len);
	t_write(gz_path, gz, gz_len);
	free(gz);
	free(buf);
	cr_assert_eq(mkdir(dir, 0700), 0);
	for (i = 0; i < 4; i++) {
		char *out = t_tmp("window.folded"), *got;
		size_t n;
		switch (i) {
		case 0:
			snprintf(cmd, sizeof cmd, "TMPDIR='%s' '%s' -o '%s' '%s'", dir, AF_TEST_CLI,
			         out, path);
			break;
		case 1:
			snprintf(cmd, sizeof cmd, "cat '%s' | TMPDIR='%s' '%s' -o '%s' -", path, dir,
			         AF_TEST_CLI, out);
			break;
		case 2:
			snprintf(cmd, sizeof cmd, "TMPDIR='%s' '%s' -o '%s' '%s'", dir, AF_TEST_CLI,
			         out, gz_path);
			break;
		default:
			snprintf(cmd, sizeof cmd, "cat '%s' | TMPDIR='%s/none' '%s' -o '%s' -", path,
			         dir, AF_TEST_CLI, out);
			break;
		}
		cr_assert_eq(system(cmd), 0, "%s", ways[i]);
		got = (char *)t_read(out, &n);
		cr_assert_not_null(got, "%s", ways[i]);
		cr_assert(n == strlen(want) && memcmp(got, want, n) == 0, "%s: another graph",
		          ways[i]);
		free(got);
		free(out);
	}
	snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
	listing = t_popen_text(cmd);
	cr_assert_str_eq(listing, "", "a spill leaves nothing behind");
	free(listing);
	rmdir(dir);
	unlink(path);
	unlink(gz_path);
	free(want);
	free(path);
	free(gz_path);
	free(dir);
}
