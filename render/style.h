/*
 * style.h - what the SVG and cairo renderers share: frame colours, tooltip
 * text and XML escaping.
 */
#ifndef AF_STYLE_H
#define AF_STYLE_H

#include <stdio.h>

#include "internal.h"

typedef struct af_rgb {
	unsigned char r, g, b;
} af_rgb;

/** The warm palette, keyed by a hash of the frame name: the same name has
 * the same colour in every graph. */
af_rgb af_style_color(const char *name);

/** "850 µs", "12.3 ms", "1.23 s". */
void af_style_time(char *out, size_t n, uint64_t us);

/** The tooltip of a frame: "NAME (TIME, P%, N calls)". */
int af_style_tooltip(af_buf *b, const af_layout *l, const af_rect *r);

/** Writes `len` bytes of `s` as XML character data: markup characters
 * escaped, invalid UTF-8 as U+FFFD, characters XML forbids dropped. */
void af_xml_escape(FILE *out, const char *s, size_t len);

#endif
