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

/* The characters of DejaVu Sans that need no shaping: Latin, Greek and
 * Cyrillic letters without combining marks, spaces, punctuation, letterlike
 * and number forms, arrows, mathematical operators, technical symbols, box
 * drawing and geometric shapes.  Left out: U+00AD (soft hyphen, not drawn),
 * the tone letters U+02E5-U+02E9 (they join), the combining marks
 * U+0483-U+0489, U+2027 (a hyphenation point, drawn otherwise at the end),
 * the format characters of U+200B-U+200F and U+2028-U+202F, and
 * U+25FD/U+25FE (emoji presentation).  Only the
 * code points DejaVu Sans has a glyph for count (af_font_plain());
 * tests/test_font.c shapes every one of them to check it. */
int af_pango_unneeded(uint32_t cp)
{
	static const uint32_t ranges[][2] = {
		{0x00A0, 0x00AC}, {0x00AE, 0x02E4}, {0x02EA, 0x02FF}, {0x0370, 0x0482},
		{0x048A, 0x052F}, {0x1E00, 0x1FFF}, {0x2000, 0x200A}, {0x2010, 0x2026},
		{0x2030, 0x205E},
		{0x2070, 0x20CF}, {0x2100, 0x23FF}, {0x2500, 0x25FC}, {0x25FF, 0x25FF},
		{0xFFFD, 0xFFFD},
	};
	size_t i;

	for (i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return 1;
	return 0;
}
