/*
 * test_spill.c - src/bytes.c: a pipe past the 64 MiB window is spilled to
 * a temporary file; when that file cannot be written the command stops
 * with the reason, leaves no output and nothing in TMPDIR.  The write is
 * made to fail for real without root: the command runs under a small
 * RLIMIT_FSIZE with SIGXFSZ ignored, so write() fails with EFBIG.  A suite
 * of its own (test_bytes.c says why long runs stay alone).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* Runs `cmd` (a shell command writing into TMPDIR `dir`, its stderr into
 * `errs`) with files limited to `mib` MiB; checks that it stops with exit 1
 * and `want` on stderr, and leaves neither `out` nor anything in `dir`. */
static void stops_at_the_spill(const char *cmd, unsigned mib, const char *dir,
                               const char *out, const char *errs, const char *want)
{
	char ls[4096], *listing, *said;
	size_t n;
	pid_t pid;
	int status;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* the error file and the output are smaller: the spill's
		 * write fails with EFBIG, not a signal */
		struct rlimit rl = {(rlim_t)mib << 20, (rlim_t)mib << 20};
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "the command was killed (signal %d)",
	          WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	cr_assert_eq(WEXITSTATUS(status), 1, "exit status %d", WEXITSTATUS(status));
	said = (char *)t_read(errs, &n);
	cr_assert_not_null(said);
	cr_assert_str_eq(said, want);
	cr_assert_neq(access(out, F_OK), 0, "an output file was left");
	snprintf(ls, sizeof ls, "find '%s' -mindepth 1 -print", dir);
	listing = t_popen_text(ls);
	cr_assert_str_eq(listing, "", "the spill left in TMPDIR: %s", listing);
	free(listing);
	free(said);
}

/* A trace's first bytes (nothing refuses it at its start), then `mib` MiB
 * of zeros through a pipe into the command, its files limited to `limit`
 * MiB: it stops at the spill. */
static void pipe_spill_stops(unsigned mib, unsigned limit)
{
	char *head = t_tmp("spill-head.trace"), *dir = t_tmp("spill-tmp");
	char *out = t_tmp("spill.svg"), *errs = t_tmp("spill.err");
	char cmd[8192];
	size_t len;
	uint8_t *buf = t_long_trace(1000, &len);

	t_write(head, buf, len);
	free(buf);
	unlink(out);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(cmd, sizeof cmd,
	         "{ cat '%s'; head -c %llu /dev/zero; } | TMPDIR='%s' '%s' -o '%s' - 2>'%s'",
	         head, (unsigned long long)mib << 20, dir, AF_TEST_CLI, out, errs);
	stops_at_the_spill(cmd, limit, dir, out, errs,
	                   "aflame-render: (stdin): cannot keep the input in a "
	                   "temporary file: File too large\n");
	rmdir(dir);
	unlink(head);
	unlink(errs);
	free(head);
	free(dir);
	free(out);
	free(errs);
}

/* 72 MiB: past the window, so spilled; its first write fails */
Test(spill, a_spill_that_cannot_be_written_stops_the_run, .timeout = 600)
{
	pipe_spill_stops(72, 16);
}

/* Past the first 64 MiB, a pipe's spill is written on a thread of its own
 * while the rest is read: a failure there stops the run as well. */
Test(spill, a_pipe_spill_that_fails_on_its_thread_stops_the_run, .timeout = 600)
{
	pipe_spill_stops(160, 96);
}

/* The same for gzip'd input, whose spill is written on a thread of its own
 * while the rest is inflated. */
Test(spill, a_gzip_spill_that_cannot_be_written_stops_the_run, .timeout = 600)
{
	char *gz = t_tmp("spill.trace.gz"), *dir = t_tmp("spill-gz-tmp");
	char *out = t_tmp("spill-gz.svg"), *errs = t_tmp("spill-gz.err");
	char cmd[8192], want[8192];
	size_t len;
	uint8_t *buf = t_long_trace(1000, &len);
	FILE *p;

	/* the trace's first bytes and 72 MiB of zeros, gzip'd: a small file
	 * that inflates past the window */
	snprintf(cmd, sizeof cmd, "{ cat; head -c 75497472 /dev/zero; } | gzip -1 > '%s'", gz);
	p = popen(cmd, "w");
	cr_assert_not_null(p);
	cr_assert_eq(fwrite(buf, 1, len, p), len);
	cr_assert_eq(pclose(p), 0);
	free(buf);
	unlink(out);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(cmd, sizeof cmd, "TMPDIR='%s' '%s' -o '%s' '%s' 2>'%s'", dir, AF_TEST_CLI,
	         out, gz, errs);
	snprintf(want, sizeof want, "aflame-render: %s: cannot keep the input in a "
	                            "temporary file: File too large\n", gz);
	stops_at_the_spill(cmd, 16, dir, out, errs, want);
	rmdir(dir);
	unlink(gz);
	unlink(errs);
	free(gz);
	free(dir);
	free(out);
	free(errs);
}
