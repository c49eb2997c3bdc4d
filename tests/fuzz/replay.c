/*
 * replay.c - runs the fuzz harness over files and folders of inputs (the
 * fuzz corpora, tests/data/bad, the samples), so whatever fuzzing found
 * stays fixed in every build, sanitized or not.
 *
 *   fuzz_replay [--pair] PATH...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *p = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!p) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, int *count)
{
	struct stat sb;
	DIR *d;
	struct dirent *ent;
	char sub[4096];
	int r = 0;

	if (stat(path, &sb) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (!d)
		return -1;
	while ((ent = readdir(d)) != NULL && r == 0) {
		if (ent->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
		r = run_path(sub, count);
	}
	closedir(d);
	return r;
}

int main(int argc, char **argv)
{
	int i, count = 0;

	for (i = 1; i < argc; i++)
		if (run_path(argv[i], &count))
			return 1;
	printf("replayed %d inputs\n", count);
	return count > 0 ? 0 : 1;
}
