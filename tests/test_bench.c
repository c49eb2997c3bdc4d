/*
 * test_bench.c - what the benchmark program (bench/bench.c) does to the
 * machine around its timings: before each timed run it removes the
 * command's last output, and that must never be a device or a pipe (as
 * root, removing /dev/null breaks the machine); and it refuses a path its
 * shell commands cannot hold.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

#define SAMPLE AF_TEST_SAMPLES "/app.trace"

/* Drains a pipe until told to stop. */
typedef struct drain {
	int fd;
	atomic_int stop;
	size_t got;
} drain;

static void *drain_pipe(void *arg)
{
	drain *d = arg;
	char buf[65536];

	while (!atomic_load(&d->stop)) {
		struct pollfd p = {d->fd, POLLIN, 0};
		ssize_t n;
		if (poll(&p, 1, 50) <= 0)
			continue;
		if ((n = read(d->fd, buf, sizeof buf)) > 0)
			d->got += (size_t)n;
	}
	return NULL;
}

/* Runs a shell command; its exit status, and its stderr in *err. */
static int run(const char *cmd, char **err)
{
	char *e = t_tmp("bench.err"), *full = malloc(strlen(cmd) + strlen(e) + 16);
	size_t n;
	int status;

	cr_assert_not_null(full);
	sprintf(full, "%s 2>'%s'", cmd, e);
	status = system(full);
	*err = (char *)t_read(e, &n);
	unlink(e);
	free(e);
	free(full);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(bench, a_pipe_given_as_the_output_is_written_into_never_removed)
{
	char *fifo = t_tmp("bench-out.svg"), cmd[4096], *err = NULL;
	drain d = {.fd = -1};
	pthread_t th;
	struct stat sb;
	int status;

	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	/* held open for reading and writing: no open of it ever waits, and
	 * what the command writes is drained */
	d.fd = open(fifo, O_RDWR | O_NONBLOCK);
	cr_assert_geq(d.fd, 0);
	cr_assert_eq(pthread_create(&th, NULL, drain_pipe, &d), 0);
	snprintf(cmd, sizeof cmd, "'%s' --compare '%s' '%s' 1 -o '%s' '%s' >/dev/null",
	         AF_TEST_BENCH, AF_TEST_CLI, AF_TEST_CLI, fifo, SAMPLE);
	status = run(cmd, &err);
	atomic_store(&d.stop, 1);
	pthread_join(th, NULL);
	close(d.fd);
	cr_assert_eq(status, 0, "aflame-bench --compare failed: %s", err ? err : "");
	cr_assert_eq(lstat(fifo, &sb), 0, "the pipe was removed");
	cr_assert(S_ISFIFO(sb.st_mode), "the pipe was replaced by another file");
	cr_assert_gt(d.got, 1000, "both runs wrote their SVG into the pipe");
	unlink(fifo);
	free(fifo);
	free(err);
}

Test(bench, a_path_with_a_single_quote_is_refused_and_nothing_is_made)
{
	char *dir = t_tmp("it's"), cmd[4096], *err = NULL;
	struct stat sb;
	int status;

	snprintf(cmd, sizeof cmd, "'%s' --targets '%s' \"%s\" 1", AF_TEST_BENCH,
	         AF_TEST_CLI, dir);
	status = run(cmd, &err);
	cr_assert_eq(status, 2);
	cr_assert_not_null(err);
	cr_assert(strstr(err, "a path with a ' in it cannot be used"), "%s", err);
	cr_assert_neq(stat(dir, &sb), 0, "the work folder was made");
	free(dir);
	free(err);
}

Test(bench, an_output_path_with_a_quote_removes_no_other_file)
{
	char *a = t_tmp("a"), *out = t_tmp("a'b.svg"), cmd[4096], *err = NULL;
	int status;

	/* --compare quotes its ARGS: the output is 'DIR/a'\''b.svg', whose
	 * first quoted part names the file DIR/a */
	t_write(a, "keep", 4);
	snprintf(cmd, sizeof cmd, "'%s' --compare '%s' '%s' 1 -o \"%s\" '%s' >/dev/null",
	         AF_TEST_BENCH, AF_TEST_CLI, AF_TEST_CLI, out, SAMPLE);
	status = run(cmd, &err);
	cr_assert_eq(status, 0, "aflame-bench --compare failed: %s", err ? err : "");
	cr_assert_eq(access(a, F_OK), 0, "a file the output's name begins with was removed");
	unlink(a);
	unlink(out);
	free(a);
	free(out);
	free(err);
}
