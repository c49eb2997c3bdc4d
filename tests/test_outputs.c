/*
 * test_outputs.c - where the command's files go: special files written
 * into, symbolic links followed, long names, runs that fail or are
 * interrupted by a signal leaving nothing (and the older files intact),
 * and every output of a run put in place together at the end.
 */
#define _DEFAULT_SOURCE /* mknod, makedev */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

#define SAMPLE AF_TEST_SAMPLES "/app.trace"

/* A fresh empty folder under the tests' tmp folder.  Caller frees. */
static char *fresh_dir(const char *tag)
{
	char *dir = t_tmp(tag), cmd[2048];

	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	cr_assert_eq(system(cmd), 0);
	return dir;
}

static void remove_dir(char *dir)
{
	char cmd[2048];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free(dir);
}

static char *join(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	cr_assert_not_null(p);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

static int exists(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0;
}

/* Fails unless the folder holds exactly the names given (NULL-ended). */
static void holds_only(const char *dir, ...)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	size_t want = 0, seen = 0;
	va_list ap;
	const char *n;

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	va_start(ap, dir);
	while (va_arg(ap, const char *))
		want++;
	va_end(ap);
	while ((ent = readdir(d)) != NULL) {
		int known = 0;
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		va_start(ap, dir);
		while ((n = va_arg(ap, const char *)) != NULL)
			known |= strcmp(n, ent->d_name) == 0;
		va_end(ap);
		cr_assert(known, "%s holds '%s'", dir, ent->d_name);
		seen++;
	}
	closedir(d);
	cr_assert_eq(seen, want, "%s holds %zu files, not %zu", dir, seen, want);
}

/* Runs a shell command (printf-formatted); returns its exit status, -1
 * when it did not exit.  Its standard error in *err when not NULL. */
__attribute__((format(printf, 2, 3))) static int sh(char **err, const char *fmt, ...)
{
	char cmd[8192], *e = t_tmp("sh.err");
	va_list ap;
	size_t len;
	int n, status;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n + strlen(e) + 16 < sizeof cmd);
	sprintf(cmd + n, " 2>'%s'", e);
	status = system(cmd);
	if (err)
		*err = (char *)t_read(e, &len);
	unlink(e);
	free(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Starts the command in the background with `argv` (NULL-ended, without
 * the program), standard input from /dev/null, standard error into
 * `err_path`, no core files, every signal's default action but `ignored`'s
 * (0: none); returns its pid. */
static pid_t start(const char *err_path, const char *const *argv, int ignored)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rlimit no = {0, 0};
		const char *args[32];
		int i, in = open("/dev/null", O_RDONLY),
		       er = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		sigset_t none;
		setrlimit(RLIMIT_CORE, &no);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (i = 1; i < 32; i++)
			signal(i, i == ignored ? SIG_IGN : SIG_DFL);
		dup2(in, 0);
		dup2(er, 2);
		args[0] = AF_TEST_CLI;
		for (i = 0; argv[i] && i < 30; i++)
			args[i + 1] = argv[i];
		args[i + 1] = NULL;
		execv(AF_TEST_CLI, (char *const *)args);
		_exit(127);
	}
	return pid;
}

/* Waits up to `seconds` for `pid`; its wait status, or -1 after killing
 * it when it did not end in time. */
static int wait_for(pid_t pid, double seconds)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	int status, i;

	for (i = 0; i < seconds * 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* Waits up to 20 s for a name starting with '.' in `dir` (a temporary
 * file or folder); 1 when one appeared. */
static int temp_appears(const char *dir)
{
	struct timespec tick = {0, 5 * 1000 * 1000};
	int i;

	for (i = 0; i < 4000; i++) {
		DIR *d = opendir(dir);
		struct dirent *ent;
		int found = 0;
		while (d && (ent = readdir(d)) != NULL)
			found |= ent->d_name[0] == '.' && strcmp(ent->d_name, ".") &&
			         strcmp(ent->d_name, "..");
		if (d)
			closedir(d);
		if (found)
			return 1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

Test(outputs, fifo_gets_the_graph)
{
	char *dir = fresh_dir("fifo"), *fifo = join(dir, "o.svg"),
	     *got = join(dir, "got");
	char *err = NULL;
	uint8_t *data;
	size_t len;
	struct stat sb;
	pid_t reader;
	int status;

	cr_assert_eq(mkfifo(fifo, 0666), 0);
	/* the reader opens first, and blocks until the command opens too */
	reader = fork();
	cr_assert_geq(reader, 0);
	if (reader == 0) {
		char chunk[65536];
		ssize_t n = -1;
		int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT, 0666);
		while (in >= 0 && out >= 0 && (n = read(in, chunk, sizeof chunk)) > 0)
			if (write(out, chunk, (size_t)n) != n)
				_exit(1);
		_exit(in >= 0 && out >= 0 && n == 0 ? 0 : 1);
	}
	cr_assert_eq(sh(&err, "'%s' -o '%s' '%s'", AF_TEST_CLI, fifo, SAMPLE), 0, "%s",
	             err);
	free(err);
	status = wait_for(reader, 10);
	cr_assert(status == 0, "the FIFO's reader got no end of file");
	data = t_read(got, &len);
	cr_assert(data && len > 1000 && strncmp((char *)data, "<?xml", 5) == 0,
	          "the reader got %zu bytes", len);
	free(data);
	cr_assert_eq(lstat(fifo, &sb), 0);
	cr_assert(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
	holds_only(dir, "o.svg", "got", NULL);
	free(fifo);
	free(got);
	remove_dir(dir);
}

/* As root, a device node like /dev/null (c 1 3) in a temporary folder:
 * written into, never replaced. */
Test(outputs, character_device_is_written_into)
{
	char *dir = fresh_dir("chardev"), *dev = join(dir, "null"), *err = NULL;
	struct stat sb;
	int fd;

	if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		cr_log_info("skipped: cannot make a device node (%s): needs root",
		            strerror(errno));
		remove_dir(dir);
		free(dev);
		cr_skip_test("mknod needs root");
	}
	fd = open(dev, O_WRONLY);
	if (fd < 0) {
		cr_log_info("skipped: %s cannot be opened (%s): a nodev mount", dev,
		            strerror(errno));
		remove_dir(dir);
		free(dev);
		cr_skip_test("the tmp folder is mounted nodev");
	}
	close(fd);
	cr_assert_eq(
	    sh(&err, "'%s' --format folded -o '%s' '%s'", AF_TEST_CLI, dev, SAMPLE), 0,
	    "%s", err);
	free(err);
	cr_assert_eq(sh(&err, "'%s' --report '%s' -o '%s/g.png' '%s'", AF_TEST_CLI, dev,
	                dir, SAMPLE),
	             0, "%s", err);
	free(err);
	cr_assert_eq(lstat(dev, &sb), 0);
	cr_assert(S_ISCHR(sb.st_mode) && sb.st_rdev == makedev(1, 3),
	          "the device node was replaced");
	holds_only(dir, "null", "g.png", NULL);
	free(dev);
	remove_dir(dir);
}

Test(outputs, symbolic_link_to_a_file_replaces_the_file)
{
	char *dir = fresh_dir("links"), *sub = join(dir, "real"),
	     *link = join(dir, "l.svg");
	char *target = join(sub, "graph.svg"), *dangling = join(dir, "d.folded");
	char *err = NULL, buf[256];
	uint8_t *data;
	size_t len;
	ssize_t n;
	struct stat sb;

	cr_assert_eq(mkdir(sub, 0777), 0);
	t_write(target, "old", 3);
	/* a relative link is read from the link's folder */
	cr_assert_eq(symlink("real/graph.svg", link), 0);
	cr_assert_eq(sh(&err, "cd / && '%s' -o '%s' '%s'", AF_TEST_CLI, link, SAMPLE), 0,
	             "%s", err);
	free(err);
	cr_assert_eq(lstat(link, &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode), "the link was replaced by a file");
	n = readlink(link, buf, sizeof buf - 1);
	cr_assert_eq(n, 14);
	cr_assert(memcmp(buf, "real/graph.svg", 14) == 0);
	data = t_read(target, &len);
	cr_assert(data && strncmp((char *)data, "<?xml", 5) == 0,
	          "the target is not new");
	free(data);
	holds_only(sub, "graph.svg", NULL);

	/* a link to a missing file: the file is created where it points */
	cr_assert_eq(symlink("real/new.folded", dangling), 0);
	cr_assert_eq(sh(&err, "'%s' -o '%s' '%s'", AF_TEST_CLI, dangling, SAMPLE), 0,
	             "%s", err);
	free(err);
	cr_assert_eq(lstat(dangling, &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode));
	holds_only(sub, "graph.svg", "new.folded", NULL);
	holds_only(dir, "real", "l.svg", "d.folded", NULL);

	/* a folder is not a file to replace: said before anything is drawn */
	cr_assert_eq(sh(&err, "'%s' --format svg -o '%s' '%s'", AF_TEST_CLI, sub, SAMPLE),
	             1);
	cr_assert(strstr(err, ": cannot create: Is a directory"), "%s", err);
	free(err);
	holds_only(sub, "graph.svg", "new.folded", NULL);
	free(dangling);
	free(target);
	free(link);
	free(sub);
	remove_dir(dir);
}

/* /proc/self/fd/N, /dev/fd/N, /dev/stdout and /dev/stderr are the
 * command's own descriptors: written at their offset (appended to with
 * >>), the file behind them never replaced. */
Test(outputs, own_descriptors_are_written_into)
{
	static const char *names[] = {"/proc/self/fd/1", "/dev/fd/1", "/dev/stdout"};
	char *dir = fresh_dir("fds"), *out = join(dir, "out"), *err = NULL;
	struct stat before, after;
	uint8_t *data;
	size_t len, k;

	for (k = 0; k < sizeof names / sizeof names[0]; k++) {
		t_write(out, "first\n", 6);
		cr_assert_eq(stat(out, &before), 0);
		cr_assert_eq(sh(&err, "'%s' --format folded -o %s '%s' >>'%s'",
		                AF_TEST_CLI, names[k], SAMPLE, out),
		             0, "%s: %s", names[k], err);
		free(err);
		cr_assert_eq(stat(out, &after), 0);
		cr_assert_eq(before.st_ino, after.st_ino, "%s: the file was replaced",
		             names[k]);
		data = t_read(out, &len);
		cr_assert(
		    strncmp((char *)data, "first\n", 6) == 0 &&
		        strstr((char *)data, "\nmain;android.app.ActivityThread.main;"),
		    "%s: %.40s", names[k], (char *)data);
		free(data);
	}
	/* the report on standard error, the graph on standard output */
	cr_assert_eq(
	    sh(&err,
	       "'%s' --report /dev/stderr -o /dev/stdout --format folded '%s' >'%s'",
	       AF_TEST_CLI, SAMPLE, out),
	    0, "%s", err);
	cr_assert(strncmp(err, "method\t", 7) == 0, "%.60s", err);
	free(err);
	data = t_read(out, &len);
	cr_assert(strstr((char *)data, "\nmain;android.app.ActivityThread.main;"));
	free(data);
	cr_assert_eq(lstat("/dev/stdout", &before), 0);
	cr_assert(S_ISLNK(before.st_mode), "/dev/stdout is no longer a link");
	holds_only(dir, "out", NULL);
	free(out);
	remove_dir(dir);
}

/* A name of 254 or 255 bytes is legal: its temporary file is not longer. */
Test(outputs, longest_names)
{
	char *dir = fresh_dir("long"), name[256], *path, *err = NULL;
	size_t n;

	for (n = 254; n <= 255; n++) {
		memset(name, 'g', n - 4);
		memcpy(name + n - 4, ".svg", 5);
		path = join(dir, name);
		cr_assert_eq(sh(&err, "'%s' -o '%s' '%s'", AF_TEST_CLI, path, SAMPLE), 0,
		             "%zu bytes: %s", n, err);
		free(err);
		cr_assert(exists(path));
		holds_only(dir, name, NULL);
		unlink(path);
		free(path);
	}
	remove_dir(dir);
}

/* Nothing of a failed run stays: the report waits for the graph. */
Test(outputs, report_waits_for_the_graph)
{
	char *dir = fresh_dir("allornot"), *err = NULL, *dir_out;

	cr_assert_eq(sh(&err, "cd '%s' && '%s' --report r.tsv -o nodir/out.svg '%s'", dir,
	                AF_TEST_CLI, SAMPLE),
	             1);
	cr_assert(strstr(err, "nodir/out.svg: cannot create: No such file or directory"),
	          "%s", err);
	free(err);
	holds_only(dir, NULL);
	/* nor is the graph written to standard output first */
	cr_assert_eq(sh(&err,
	                "cd '%s' && '%s' --report nodir/r.tsv --format folded '%s' -o - "
	                ">out",
	                dir, AF_TEST_CLI, SAMPLE),
	             1);
	cr_assert(strstr(err, "nodir/r.tsv: cannot create: No such file or directory"),
	          "%s", err);
	free(err);
	cr_assert_eq(sh(NULL, "test -s '%s/out'", dir), 1, "the graph was written");
	cr_assert_eq(unlink(dir_out = join(dir, "out")), 0);
	free(dir_out);
	/* both, when both can be written */
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --report r.tsv -o out.svg '%s'", dir,
	                AF_TEST_CLI, SAMPLE),
	             0, "%s", err);
	free(err);
	holds_only(dir, "r.tsv", "out.svg", NULL);
	/* not both into one file */
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --report out.svg -o out.svg '%s'", dir,
	                AF_TEST_CLI, SAMPLE),
	             2);
	cr_assert(strstr(err, "--report and -o both name 'out.svg'"), "%s", err);
	free(err);
	remove_dir(dir);
}

/* --cp: a palette.map that cannot be saved fails the run before the graph
 * replaces the old one.  The folder of palette.map is made unwritable:
 * as root, the command runs as nobody. */
Test(outputs, unsaved_palette_keeps_the_old_graph)
{
	/* nobody must reach the command, the sample and both folders: a folder
	 * of its own under /tmp, not the build tree, which may sit in a folder
	 * only root can enter (a fresh clone under mktemp -d) */
	char base[] = "/tmp/aflame-nobody-XXXXXX", *dir, *ro, *rw, *svg, *map, *cli, *trace;
	char *err = NULL, *conf;
	const char *as = "";
	uint8_t *data;
	size_t len;

	cr_assert_not_null(mkdtemp(base));
	cr_assert_eq(chmod(base, 0755), 0);
	dir = strdup(base);
	ro = join(dir, "ro");
	rw = join(dir, "rw");
	svg = join(rw, "out.svg");
	map = join(ro, "palette.map");
	cli = join(dir, "aflame-render");
	trace = join(dir, "app.trace");
	conf = join(dir, "fonts.conf");
	cr_assert_eq(sh(&err, "cp '%s' '%s' && cp '%s' '%s' && cp '%s' '%s' && chmod 0755 '%s' && "
	                "chmod 0644 '%s' '%s'",
	                AF_TEST_CLI, cli, SAMPLE, trace, AF_TEST_SOURCE "/fonts/fonts.conf", conf,
	                cli, trace, conf),
	             0);
	free(err);
	err = NULL;
	cr_assert_eq(mkdir(ro, 0755), 0);
	cr_assert_eq(mkdir(rw, 0777), 0);
	cr_assert_eq(chmod(rw, 0777), 0);
	t_write(map, "x->rgb(1,2,3)\n", 14);
	t_write(svg, "old", 3);
	cr_assert_eq(chmod(svg, 0666), 0);
	cr_assert_eq(chmod(ro, 0555), 0);
	if (geteuid() == 0) {
		if (access("/usr/bin/setpriv", X_OK) != 0) {
			cr_log_info("skipped: root, and no setpriv to run as nobody");
			cr_skip_test("needs setpriv as root");
		}
		as = "XDG_CACHE_HOME=/tmp HOME=/tmp setpriv --reuid=65534 --regid=65534 "
		     "--clear-groups ";
	}
	cr_assert_eq(sh(&err, "cd '%s' && AFLAME_FONTCONF='%s' %s'%s' --cp -o '%s' '%s'", ro, conf,
	                as, cli, svg, trace),
	             1);
	cr_assert(strstr(err, "palette.map: cannot create: Permission denied"), "%s",
	          err);
	free(err);
	data = t_read(svg, &len);
	cr_assert(len == 3 && memcmp(data, "old", 3) == 0, "out.svg was replaced");
	free(data);
	holds_only(rw, "out.svg", NULL);
	holds_only(ro, "palette.map", NULL);
	chmod(ro, 0755);
	free(map);
	free(svg);
	free(rw);
	free(ro);
	free(cli);
	free(trace);
	free(conf);
	remove_dir(dir);
}

/* A per-thread set that cannot be drawn creates no folder. */
Test(outputs, failed_sets_create_nothing)
{
	char *dir = fresh_dir("setfail"), *zero = join(dir, "zero.folded"), *err = NULL;

	t_write(zero, "a;b 0\n", 6);
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --per-thread --thread nobody -o s '%s'",
	                dir, AF_TEST_CLI, SAMPLE),
	             1);
	cr_assert(strstr(err, "no thread with records matches the --thread filter"), "%s",
	          err);
	free(err);
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --per-thread --cp -o s '%s'", dir,
	                AF_TEST_CLI, SAMPLE),
	             2);
	cr_assert(strstr(err, "--cp does not go with --per-thread"), "%s", err);
	free(err);
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --per-thread -o a/b/s zero.folded", dir,
	                AF_TEST_CLI),
	             1);
	cr_assert(strstr(err, "zero.folded: nothing to draw"), "%s", err);
	free(err);
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --per-thread -o s --clock wait '%s'", dir,
	                AF_TEST_CLI, AF_TEST_SAMPLES "/app-dalvik-v1.trace"),
	             1);
	free(err);
	holds_only(dir, "zero.folded", NULL);
	/* the folders above a new set are made at the end */
	cr_assert_eq(sh(&err, "cd '%s' && '%s' --per-thread -o a/b/s '%s'", dir,
	                AF_TEST_CLI, SAMPLE),
	             0, "%s", err);
	free(err);
	holds_only(dir, "zero.folded", "a", NULL);
	cr_assert_eq(sh(NULL, "test -f '%s/a/b/s/index.html'", dir), 0);
	free(zero);
	remove_dir(dir);
}

/* A set that fails part way leaves the older set as it was. */
Test(outputs, failed_set_keeps_the_old_one)
{
	char *dir = fresh_dir("setkeep"), *set = join(dir, "s"), *err = NULL;
	char *all = join(set, "all.svg"), *index = join(set, "index.html");
	char *blocker = join(set, "3-pool-1-thread-1.svg");
	uint8_t *all0, *index0, *all1, *index1;
	size_t la0, li0, la1, li1;

	cr_assert_eq(sh(&err, "'%s' --per-thread -o '%s' '%s'", AF_TEST_CLI, set, SAMPLE),
	             0, "%s", err);
	free(err);
	all0 = t_read(all, &la0);
	index0 = t_read(index, &li0);
	/* a folder where a graph goes: that graph cannot be written */
	cr_assert_eq(unlink(blocker), 0);
	cr_assert_eq(mkdir(blocker, 0777), 0);
	cr_assert_eq(sh(&err, "'%s' --per-thread --title New --jobs 1 -o '%s' '%s'",
	                AF_TEST_CLI, set, SAMPLE),
	             1);
	cr_assert(strstr(err, "3-pool-1-thread-1.svg: cannot create: Is a directory"),
	          "%s", err);
	free(err);
	all1 = t_read(all, &la1);
	index1 = t_read(index, &li1);
	cr_assert(la0 == la1 && memcmp(all0, all1, la0) == 0, "all.svg was replaced");
	cr_assert(li0 == li1 && memcmp(index0, index1, li0) == 0,
	          "index.html was replaced");
	holds_only(set, "index.html", "all.svg", "all.thumb.png", "1-main.svg",
	           "1-main.thumb.png", "2-RenderThread.svg", "2-RenderThread.thumb.png",
	           "3-pool-1-thread-1.svg", "3-pool-1-thread-1.thumb.png",
	           "4-pool-1-thread-2.svg", "4-pool-1-thread-2.thumb.png", "5-sync.svg",
	           "5-sync.thumb.png", NULL);
	/* and one that succeeds replaces it, the index last */
	cr_assert_eq(rmdir(blocker), 0);
	cr_assert_eq(sh(&err, "'%s' --per-thread --title New -o '%s' '%s'", AF_TEST_CLI,
	                set, SAMPLE),
	             0, "%s", err);
	free(err);
	free(all1);
	all1 = t_read(all, &la1);
	cr_assert(strstr((char *)all1, ">New</text>"));
	free(all0);
	free(all1);
	free(index0);
	free(index1);
	free(blocker);
	free(index);
	free(all);
	free(set);
	remove_dir(dir);
}

/* A run killed by any signal that can be caught, while a finished output
 * waits for another one (a FIFO nobody reads): the temporary files go,
 * the older files stay, and the command dies of that signal. */
Test(outputs, signals_remove_temporary_files)
{
	static const int sigs[] = {SIGINT,  SIGTERM,  SIGHUP,  SIGQUIT, SIGUSR1,
	                           SIGUSR2, SIGALRM,  SIGPIPE, SIGXCPU, SIGVTALRM,
	                           SIGPROF, SIGIO,    SIGPWR,  SIGSYS,  SIGTRAP,
	                           SIGABRT, SIGSTKFLT};
	const size_t nsigs = sizeof sigs / sizeof sigs[0];
	char *dir = fresh_dir("signals"), *fifo = join(dir, "report.tsv");
	char *svg = join(dir, "out.svg"), *errp = t_tmp("signals.err");
	size_t k, len;
	uint8_t *data;

	cr_assert_eq(mkfifo(fifo, 0666), 0);
	t_write(svg, "old", 3);
	/* and one real-time signal, last */
	for (k = 0; k <= nsigs; k++) {
		int sig = k < nsigs ? sigs[k] : SIGRTMIN + 3;
		const char *argv[] = {"--report", fifo, "-o", svg, SAMPLE, NULL};
		pid_t pid;
		int status;

		pid = start(errp, argv, 0);
		if (!temp_appears(dir)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			cr_assert_fail("signal %d: no temporary file while waiting", sig);
		}
		cr_assert_eq(kill(pid, sig), 0);
		status = wait_for(pid, 10);
		cr_assert(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == sig,
		          "signal %d: status %d", sig, status);
		holds_only(dir, "report.tsv", "out.svg", NULL);
		data = t_read(svg, &len);
		cr_assert(len == 3 && memcmp(data, "old", 3) == 0,
		          "signal %d: out.svg replaced", sig);
		free(data);
	}
	unlink(errp);
	free(errp);
	free(svg);
	free(fifo);
	remove_dir(dir);
}

/* The same for a per-thread set: a new set's folder, and an older set. */
Test(outputs, signals_remove_unfinished_sets)
{
	char *dir = fresh_dir("sigset"), *fifo = join(dir, "report.tsv");
	char *set = join(dir, "s"), *errp = t_tmp("sigset.err"), *err = NULL;
	const char *argv[] = {"--per-thread", "--report", fifo, "-o", set, SAMPLE, NULL};
	pid_t pid;
	int status;

	cr_assert_eq(mkfifo(fifo, 0666), 0);
	pid = start(errp, argv, 0);
	cr_assert(temp_appears(dir), "no temporary folder");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	status = wait_for(pid, 10);
	cr_assert(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	holds_only(dir, "report.tsv", NULL);

	cr_assert_eq(sh(&err, "'%s' --per-thread -o '%s' '%s'", AF_TEST_CLI, set, SAMPLE),
	             0, "%s", err);
	free(err);
	pid = start(errp, argv, 0);
	cr_assert(temp_appears(set), "no temporary file");
	cr_assert_eq(kill(pid, SIGUSR1), 0);
	status = wait_for(pid, 10);
	cr_assert(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1);
	holds_only(dir, "report.tsv", "s", NULL);
	holds_only(set, "index.html", "all.svg", "all.thumb.png", "1-main.svg",
	           "1-main.thumb.png", "2-RenderThread.svg", "2-RenderThread.thumb.png",
	           "3-pool-1-thread-1.svg", "3-pool-1-thread-1.thumb.png",
	           "4-pool-1-thread-2.svg", "4-pool-1-thread-2.thumb.png", "5-sync.svg",
	           "5-sync.thumb.png", NULL);
	unlink(errp);
	free(errp);
	free(set);
	free(fifo);
	remove_dir(dir);
}

/* Past the file size limit (SIGXFSZ), a clear error and no file. */
Test(outputs, file_size_limit)
{
	char *dir = fresh_dir("fsize"), *png = join(dir, "big.png"), *err = NULL;

	if (access("/usr/bin/prlimit", X_OK) != 0) {
		cr_log_info("skipped: no prlimit (util-linux)");
		remove_dir(dir);
		cr_skip_test("needs prlimit");
	}
	cr_assert_eq(sh(&err, "prlimit --fsize=100000 '%s' --scale 4 -o '%s' '%s'",
	                AF_TEST_CLI, png, SAMPLE),
	             1, "%s", err);
	cr_assert(strstr(err, "big.png: cannot write: File too large"), "%s", err);
	free(err);
	holds_only(dir, NULL);
	/* standard output alike */
	cr_assert_eq(sh(&err,
	                "prlimit --fsize=100000 '%s' --scale 4 --format png '%s' >'%s'",
	                AF_TEST_CLI, SAMPLE, png),
	             1, "%s", err);
	cr_assert(strstr(err, "(stdout): cannot write: File too large"), "%s", err);
	free(err);
	free(png);
	remove_dir(dir);
}

/* A signal ignored when the command starts (nohup) stays ignored. */
Test(outputs, ignored_signals_stay_ignored)
{
	char *dir = fresh_dir("nohup"), *fifo = join(dir, "report.tsv");
	char *svg = join(dir, "out.svg"), *errp = t_tmp("nohup.err");
	const char *argv[] = {"--report", fifo, "-o", svg, SAMPLE, NULL};
	struct timespec pause = {0, 300 * 1000 * 1000};
	pid_t pid;
	int status;

	cr_assert_eq(mkfifo(fifo, 0666), 0);
	pid = start(errp, argv, SIGHUP);
	cr_assert(temp_appears(dir), "no temporary file");
	cr_assert_eq(kill(pid, SIGHUP), 0);
	nanosleep(&pause, NULL);
	cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "SIGHUP ended the command");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	status = wait_for(pid, 10);
	cr_assert(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	holds_only(dir, "report.tsv", NULL);
	unlink(errp);
	free(errp);
	free(svg);
	free(fifo);
	remove_dir(dir);
}

/* The shim (tests/fsync_shim.c) preloaded into the command, writing what it
 * saw to `log`; `fail`: the text of the paths whose fsync fails. */
#define SHIMMED(log, fail)                                                          \
	"AF_SHIM_LOG='" log "' AF_SHIM_FAIL='" fail "' LD_PRELOAD='" AF_TEST_FSYNC_SHIM \
	"' ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0\" "

/* Lines of `log` that begin with `what`. */
static size_t log_lines(const char *log, const char *what)
{
	size_t n = 0, len, k = strlen(what);
	char *text = (char *)t_read(log, &len), *line = text;

	while (line && *line) {
		char *end = strchr(line, '\n');
		n += strncmp(line, what, k) == 0;
		line = end ? end + 1 : line + strlen(line);
	}
	free(text);
	return n;
}

/* Every file a run puts in place is on disk (fsynced) before it is renamed
 * there: a graph and its report, and each file of a per-thread set. */
Test(outputs, every_file_is_fsynced_before_it_is_put_in_place)
{
	char *dir = fresh_dir("synced"), *log = join(dir, "shim.log"), *err = NULL;

	cr_assert_eq(sh(&err, "cd '%s' && " SHIMMED("shim.log", "") "'%s' -o one.svg "
	                "--report methods.tsv '%s'", dir, AF_TEST_CLI, SAMPLE),
	             0, "%s", err);
	free(err);
	cr_assert_eq(sh(&err, "cd '%s' && " SHIMMED("shim.log", "") "'%s' --per-thread "
	                "--format svg,png -o set '%s'", dir, AF_TEST_CLI, SAMPLE),
	             0, "%s", err);
	free(err);
	cr_assert_eq(sh(&err, "cd '%s' && grep UNSYNCED shim.log >&2; test $? = 1", dir), 0,
	             "renamed into place before fsync:\n%s", err);
	free(err);
	/* one.svg, methods.tsv; the set's index and, for the merged graph and
	 * each of the sample's 5 threads, an SVG, a PNG and a thumbnail */
	cr_assert_geq(log_lines(log, "synced "), 2 + 1 + 6 * 3);
	free(log);
	remove_dir(dir);
}

/* A file that cannot be put on disk fails the run, which then puts nothing
 * in place: the older graph and set stay as they were, no temporary file
 * is left. */
Test(outputs, a_failed_fsync_puts_nothing_in_place)
{
	char *dir = fresh_dir("syncfail"), *old = join(dir, "one.svg"), *err = NULL;
	uint8_t *text;
	size_t len;

	t_write(old, "older", 5);
	cr_assert_eq(sh(&err, "cd '%s' && " SHIMMED("shim.log", "syncfail/") "'%s' -q -o "
	                "one.svg -o set --per-thread '%s'", dir, AF_TEST_CLI, SAMPLE),
	             1);
	cr_assert(strstr(err, ": cannot write: Input/output error"), "%s", err);
	free(err);
	cr_assert_eq(sh(&err, "cd '%s' && " SHIMMED("shim.log", "syncfail/") "'%s' -q -o "
	                "one.svg '%s'", dir, AF_TEST_CLI, SAMPLE),
	             1);
	cr_assert(strstr(err, "one.svg: cannot write: Input/output error"), "%s", err);
	free(err);
	text = t_read(old, &len);
	cr_assert(len == 5 && memcmp(text, "older", 5) == 0, "one.svg was replaced");
	free(text);
	holds_only(dir, "one.svg", NULL);
	free(old);
	remove_dir(dir);
}
