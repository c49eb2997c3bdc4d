/*
 * dl.c - see dl.h.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "dl.h"

int af_dl_load(const char *soname, const char *what, const char *const *names,
               void (**fns)(void), size_t n, char *why, size_t why_len)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!lib) {
		snprintf(why, why_len, "cannot load %s: %s", what, dlerror());
		return -1;
	}
	for (i = 0; i < n; i++) {
		/* a function pointer is set through a void pointer, as POSIX has it */
		*(void **)&fns[i] = dlsym(lib, names[i]);
		if (!fns[i]) {
			snprintf(why, why_len, "cannot load %s: %s has no %s", what, soname,
			         names[i]);
			return -1;
		}
	}
	return 0;
}
