/*
 * font.h - the pinned font's cairo objects, for the cairo renderer.
 */
#ifndef AF_FONT_H
#define AF_FONT_H

#include <cairo.h>

#include "aflame/aflame.h"

/** The face and the font options every label is measured with; both stay
 * owned by `f`. */
cairo_font_face_t *af_font_face(af_font *f, const cairo_font_options_t **options);

/** af_font_fit() of the first `len` bytes of `name`. */
size_t af_font_fit_len(af_font *f, const char *name, size_t len, double avail,
                       double size, int *dots);

#endif
