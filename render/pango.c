/*
 * pango.c - see pango.h.  The library is opened by its run-time name
 * (dl.c), once for the process.
 */
#include <pthread.h>

#include "dl.h"
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
#define AF_PANGO_NAME(name) #name,
	static const char *const names[] = {AF_PANGO_FUNCTIONS(AF_PANGO_NAME)};
#undef AF_PANGO_NAME
	void (*fns[sizeof names / sizeof names[0]])(void);
	size_t i = 0;

	if (af_dl_load(AF_PANGO_SONAME, "Pango", names, fns, sizeof names / sizeof names[0],
	               af_pango_why, sizeof af_pango_why))
		return;
#define AF_PANGO_SET(name) af_pango_fns.name = (__typeof__(af_pango_fns.name))fns[i++];
	AF_PANGO_FUNCTIONS(AF_PANGO_SET)
#undef AF_PANGO_SET
	af_pango_ready = &af_pango_fns;
}

const af_pango *af_pango_load(const char **why)
{
	pthread_once(&af_pango_once, af_pango_open);
	if (!af_pango_ready && why)
		*why = af_pango_why;
	return af_pango_ready;
}
