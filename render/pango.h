/*
 * pango.h - Pango's functions, loaded the first time a label needs shaping
 * (pango.c).  Most graphs have no such label, and a program linked with
 * Pango loads it, GLib and a dozen more libraries at every start: about
 * 5 ms before main(), on every run.  font.c calls Pango only through this,
 * and asks here which characters need it not.
 */
#ifndef AF_PANGO_H
#define AF_PANGO_H

#include <stdint.h>

#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>

/* Every function font.c calls, each a field of af_pango by its own name. */
#define AF_PANGO_FUNCTIONS(X)                       \
	X(g_object_unref)                           \
	X(pango_attr_font_features_new)             \
	X(pango_attr_list_insert)                   \
	X(pango_attr_list_new)                      \
	X(pango_attr_list_unref)                    \
	X(pango_cairo_context_set_font_options)     \
	X(pango_cairo_font_map_new_for_font_type)   \
	X(pango_cairo_show_layout_line)             \
	X(pango_cairo_update_context)               \
	X(pango_context_set_language)               \
	X(pango_context_set_round_glyph_positions)  \
	X(pango_fc_font_map_set_config)             \
	X(pango_font_description_free)              \
	X(pango_font_description_new)               \
	X(pango_font_description_set_absolute_size) \
	X(pango_font_description_set_family_static) \
	X(pango_font_map_create_context)            \
	X(pango_language_from_string)               \
	X(pango_layout_get_line_readonly)           \
	X(pango_layout_get_lines_readonly)          \
	X(pango_layout_get_log_attrs_readonly)      \
	X(pango_layout_get_unknown_glyphs_count)    \
	X(pango_layout_new)                         \
	X(pango_layout_set_attributes)              \
	X(pango_layout_set_font_description)        \
	X(pango_layout_set_single_paragraph_mode)   \
	X(pango_layout_set_text)

typedef struct af_pango {
#define AF_PANGO_FIELD(name) __typeof__(&name) name;
	AF_PANGO_FUNCTIONS(AF_PANGO_FIELD)
#undef AF_PANGO_FIELD
} af_pango;

/** Pango, loaded once for the process (any thread may ask first); NULL
 * when it cannot be: then *why says why, until the process ends. */
const af_pango *af_pango_load(const char **why);

/** 1 when code point `cp`, beyond ASCII (which is always plain), is one
 * DejaVu Sans draws without shaping where it has a glyph for it
 * (af_font_plain()): then Pango is not needed for it. */
int af_pango_unneeded(uint32_t cp);

#endif
