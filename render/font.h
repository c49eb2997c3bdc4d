/*
 * font.h - the pinned font's cairo objects, for the cairo renderer, and
 * which characters no renderer draws (the style and the font agree on them).
 */
#ifndef AF_FONT_H
#define AF_FONT_H

#include <cairo.h>

#include "error.h"

/** The face and the font options every label is measured with; both stay
 * owned by `f`. */
cairo_font_face_t *af_font_face(af_font *f, const cairo_font_options_t **options);

/** 1 for the code points no renderer draws: C0 controls, DEL and the
 * non-characters (XML forbids U+FFFE/U+FFFF, cairo refuses them all).  The
 * font measures them as zero wide, so widths match what is drawn. */
static inline int af_text_dropped(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || af_noncharacter(cp);
}

/** af_font_fit() of the first `len` bytes of `name`. */
size_t af_font_fit_len(af_font *f, const char *name, size_t len, double avail,
                       double size, int *dots);

#endif
