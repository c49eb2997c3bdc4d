/*
 * pango.c - see pango.h.  The library is opened by its run-time name and
 * never closed (GLib's types cannot be unloaded); its functions are found
 * among it and the libraries it needs.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "pango.h"

#define AF_PANGO_SONAME "libpangocairo-1.0.so.0"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AF_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(AF_ASAN)
/* Sanitizer builds only: two leaks of Debian 12's libraries, which the
 * fonts bring in.  Pango loads fontconfig's default configuration once per
 * process, in a thread of its own (FcInit), though the font map is given
 * the project's, and fontconfig 2.14 leaks two blocks parsing Debian's
 * files; cairo 1.16 leaks a block subsetting Noto Sans CJK (a CFF font)
 * into a PDF.  Their frames have no frame pointers, so the leaks can only
 * be named by their library, and the list is not printed (the command's
 * messages are tested).  Weak: a program's own lists win. */
const char *__lsan_default_suppressions(void) __attribute__((weak));
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\nleak:libcairo.so\n";
}

const char *__lsan_default_options(void) __attribute__((weak));
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

static af_pango af_pango_fns;
static const af_pango *af_pango_ready;
static char af_pango_why[256];
static pthread_once_t af_pango_once = PTHREAD_ONCE_INIT;

static void af_pango_open(void)
{
	void *lib = dlopen(AF_PANGO_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!lib) {
		snprintf(af_pango_why, sizeof af_pango_why, "cannot load Pango: %s", dlerror());
		return;
	}
	/* a function pointer is set through a void pointer, as POSIX has it */
#define AF_PANGO_FIND(name)                                           \
	if (!missing && !(*(void **)&af_pango_fns.name = dlsym(lib, #name))) \
		missing = #name;
	AF_PANGO_FUNCTIONS(AF_PANGO_FIND)
#undef AF_PANGO_FIND
	if (missing) {
		snprintf(af_pango_why, sizeof af_pango_why,
		         "cannot load Pango: %s has no %s", AF_PANGO_SONAME, missing);
		return;
	}
	af_pango_ready = &af_pango_fns;
}

const af_pango *af_pango_load(const char **why)
{
	pthread_once(&af_pango_once, af_pango_open);
	if (!af_pango_ready && why)
		*why = af_pango_why;
	return af_pango_ready;
}
