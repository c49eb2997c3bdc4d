/*
 * test_font.c - names in every script draw: no glyph is missing, shaped
 * text is cut only between what a reader sees, the plain fast path draws
 * exactly what Pango would, and PNG and PDF show the text (pixels, fonts).
 * Uses render/font.h, the library's own view of its fonts.
 */
#include <cairo.h>
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"
#include "support.h"

TestSuite(font, .init = t_font_open, .fini = t_font_close, .timeout = 600);

/* Names as developers type them, one a script. */
static const char *const scripts[][2] = {
	{"Chinese", "\xe5\x90\x8e\xe5\x8f\xb0\xe5\x90\x8c\xe6\xad\xa5.\xe4\xbb\xbb\xe5\x8a\xa1"},
	{"Japanese", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83\xa1\xe3\x82\xbd"
	             "\xe3\x83\x83\xe3\x83\x89"},
	{"Korean", "\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4.\xeb\xa9\x94\xec\x84\x9c\xeb\x93\x9c"},
	{"Arabic", "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7.\xd8\xa8\xd8\xa7\xd9\x84\xd8\xb9"
	           "\xd8\xa7\xd9\x84\xd9\x85"},
	{"Hebrew", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d.\xd7\xa2\xd7\x95\xd7\x9c\xd7\x9d"},
	{"Devanagari", "\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5"
	               "\x87.\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7"},
	{"Thai", "\xe0\xb8\xaa\xe0\xb8\xa7\xe0\xb8\xb1\xe0\xb8\xaa\xe0\xb8\x94\xe0\xb8\xb5"},
	{"emoji", "\xf0\x9f\x94\x84\xf0\x9f\x9a\x80\xe2\x9d\xa4\xef\xb8\x8f\xf0\x9f\x91\x8d"
	          "\xf0\x9f\x8f\xbd\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
	          "\xf0\x9f\x91\xa7\xf0\x9f\x87\xab\xf0\x9f\x87\xb7" "1\xef\xb8\x8f\xe2\x83\xa3"},
	{"combining marks", "e\xcc\x81te\xcc\x81 n\xcc\x83 a\xcc\x8a"},
	{"the sample's thread", "\xe5\x90\x8e\xe5\x8f\xb0 sync \xf0\x9f\x94\x84"},
};

Test(font, every_script_draws)
{
	size_t i;

	for (i = 0; i < sizeof scripts / sizeof scripts[0]; i++)
		cr_expect_eq(af_font_unknown_glyphs(t_font, scripts[i][1]), 0,
		             "%s: %d characters of \"%s\" have no glyph", scripts[i][0],
		             af_font_unknown_glyphs(t_font, scripts[i][1]), scripts[i][1]);
}

/* The check above can fail: a character no font has is counted. */
Test(font, a_character_no_font_has_is_counted)
{
	cr_assert_eq(af_font_unknown_glyphs(t_font, "a\xf4\x8f\xbf\xbd" "b"), 1); /* U+10FFFD */
}

/* A clone, made for another thread, measures every script as its font
 * does, while both are used at once (a set's workers draw with clones). */
static const char *const plain_names[] = {
	"android.os.Handler.dispatchMessage", "caf\xc3\xa9.na\xc3\xafve()",
	"\xce\xb1\xce\xb2\xce\xb3.\xd0\xb4\xd0\xb0()", "a \xe2\x86\x92 b",
};
#define T_NAMES (sizeof scripts / sizeof scripts[0] + sizeof plain_names / sizeof plain_names[0])

typedef struct t_measured {
	af_font *font;
	double width[T_NAMES][2];
} t_measured;

static const char *t_name(size_t i)
{
	size_t n = sizeof scripts / sizeof scripts[0];
	return i < n ? scripts[i][1] : plain_names[i - n];
}

static void *measure_all(void *arg)
{
	t_measured *m = arg;
	size_t i;
	int round;

	for (round = 0; round < 2; round++) /* measured, then kept */
		for (i = 0; i < T_NAMES; i++)
			m->width[i][round] = af_font_text_width(m->font, t_name(i), strlen(t_name(i)),
			                                        12);
	return NULL;
}

Test(font, a_clone_measures_what_its_font_measures)
{
	t_measured m[3] = {{.font = t_font}};
	pthread_t th[2];
	af_error e = {0};
	size_t i, k;

	for (k = 1; k < 3; k++)
		cr_assert_eq(af_font_clone(t_font, &m[k].font, &e), AF_OK, "%s", e.message);
	for (k = 0; k < 2; k++)
		cr_assert_eq(pthread_create(&th[k], NULL, measure_all, &m[k + 1]), 0);
	measure_all(&m[0]);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	for (k = 1; k < 3; k++) {
		for (i = 0; i < T_NAMES; i++) {
			cr_expect_gt(m[0].width[i][0], 0, "%s", t_name(i));
			cr_expect_eq(m[k].width[i][0], m[0].width[i][0], "%s", t_name(i));
			cr_expect_eq(m[k].width[i][1], m[0].width[i][0], "%s", t_name(i));
		}
		af_font_free(m[k].font);
	}
}

/* Lines of every plain character: ASCII, and each plain code point above
 * it, 48 to a line.  Returns how many lines; frees with free_lines(). */
static size_t plain_lines(char ***out)
{
	char **lines = NULL, *line = NULL;
	size_t n = 0, len = 0, count = 0;
	uint32_t cp;

	for (cp = 0x20; cp < 0x10000; cp++) {
		char utf8[4];
		size_t k;
		if (af_text_dropped(cp) || !af_font_plain(t_font, cp))
			continue;
		if (cp < 0x80)
			utf8[0] = (char)cp, k = 1;
		else if (cp < 0x800)
			utf8[0] = (char)(0xC0 | (cp >> 6)), utf8[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
		else
			utf8[0] = (char)(0xE0 | (cp >> 12)), utf8[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
			utf8[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
		if (!line || (cp >= 0x80 && (count == 48 || (unsigned char)line[0] < 0x80))) {
			lines = realloc(lines, (n + 1) * sizeof *lines);
			line = lines[n++] = calloc(48 * 3 + 95 + 1, 1);
			len = count = 0;
		}
		memcpy(line + len, utf8, k);
		len += k;
		count++;
	}
	*out = lines;
	return n;
}

static void free_lines(char **lines, size_t n)
{
	while (n--)
		free(lines[n]);
	free(lines);
}

/* A context on `s`, painted white, drawing black in the library's face at
 * 12 px. */
static cairo_t *white_canvas(cairo_surface_t *s)
{
	cairo_t *cr = cairo_create(s);
	const cairo_font_options_t *fo;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_face(cr, af_font_face(t_font, &fo));
	cairo_set_font_options(cr, fo);
	cairo_set_font_size(cr, 12);
	return cr;
}

/* Each of `lines` drawn at 12 px, with af_font_show() or through Pango. */
static cairo_surface_t *draw_lines(char **lines, size_t n, int shaped)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1100,
	                                                (int)(20 * n + 10));
	cairo_t *cr = white_canvas(s);
	size_t i;

	for (i = 0; i < n; i++) {
		cairo_move_to(cr, 4, 16 + 20.0 * (double)i);
		cr_assert_eq(shaped ? af_font_show_shaped(t_font, cr, lines[i], 12)
		                    : af_font_show(t_font, cr, lines[i], 12), 0);
	}
	cr_assert_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return s;
}

/* The fast path measures and draws plain text exactly as Pango lays it
 * out: the same widths, the same pixels. */
Test(font, plain_text_is_drawn_as_pango_lays_it_out)
{
	char **lines;
	size_t n = plain_lines(&lines), i;
	cairo_surface_t *fast, *slow;
	int a, b;

	cr_assert_gt(n, 40, "only %zu lines of plain characters", n);
	for (i = 0; i < n; i++) {
		double w = af_font_text_width(t_font, lines[i], strlen(lines[i]), 12);
		cr_expect_eq(w, af_font_shaped_width(t_font, lines[i], 12),
		             "line %zu \"%s\": %.17g measured, %.17g shaped", i, lines[i], w,
		             af_font_shaped_width(t_font, lines[i], 12));
	}
	fast = draw_lines(lines, n, 0);
	slow = draw_lines(lines, n, 1);
	for (i = 0; i < n; i++) {
		int stride = cairo_image_surface_get_stride(fast), most = 0;
		size_t at = (size_t)stride * 20 * i, len = (size_t)stride * 20, j;
		const unsigned char *p = cairo_image_surface_get_data(fast) + at;
		const unsigned char *q = cairo_image_surface_get_data(slow) + at;
		/* the same glyphs at the same places; only where two scripts
		 * meet (Greek and Coptic, say), Pango draws each run apart and
		 * the glyphs' antialiased edges that overlap blend twice */
		for (j = 0; j < len; j++)
			most = abs(p[j] - q[j]) > most ? abs(p[j] - q[j]) : most;
		cr_expect_leq(most, 16, "line %zu \"%s\" is drawn otherwise than Pango draws it "
		              "(a pixel %d off)", i, lines[i], most);
	}
	cairo_surface_destroy(fast);
	cairo_surface_destroy(slow);
	free_lines(lines, n);
	/* no pair of ASCII characters changes the other's advance */
	for (a = 0x20; a < 0x7F; a++)
		for (b = 0x20; b < 0x7F; b++) {
			char s[3] = {(char)a, (char)b, 0};
			double w = af_font_text_width(t_font, s, 2, 12);
			double p = af_font_shaped_width(t_font, s, 12);
			if (w != p)
				cr_assert_fail("\"%s\": %.17g measured, %.17g shaped", s, w, p);
		}
}

/* The places of `name`, checked for order and against its bytes. */
static const af_cut *cuts_of(const char *name, size_t *n)
{
	size_t len = strlen(name), j, u16 = 0, i = 0;
	const af_cut *c = af_font_cuts(t_font, name, len, n);

	cr_assert_not_null(c, "\"%s\" has no places", name);
	cr_assert_gt(*n, 0);
	for (j = 0; j < *n; j++) {
		cr_assert(c[j].end <= len && (c[j].end == len || (name[c[j].end] & 0xC0) != 0x80),
		          "\"%s\": a place inside a character (byte %zu)", name, c[j].end);
		if (j) {
			cr_assert_gt(c[j].end, c[j - 1].end);
			cr_assert_gt(c[j].u16, c[j - 1].u16);
			cr_assert_geq(c[j].w, c[j - 1].w);
		}
	}
	cr_assert_eq(c[*n - 1].end, len);
	/* the last place is the whole name, as the script's string counts it */
	while (i < len) {
		unsigned char b = (unsigned char)name[i];
		size_t k = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
		u16 += k == 4 ? 2 : 1;
		i += k;
	}
	cr_assert_eq(c[*n - 1].u16, u16, "\"%s\": %u UTF-16 units, not %zu", name,
	             c[*n - 1].u16, u16);
	return c;
}

/* 1 when `name` may be cut after `end` bytes. */
static int has_place(const af_cut *c, size_t n, size_t end)
{
	size_t j;
	for (j = 0; j < n; j++)
		if (c[j].end == end)
			return 1;
	return 0;
}

Test(font, shaped_names_are_cut_between_what_a_reader_sees)
{
	size_t n;
	const af_cut *c;

	/* a mark stays on its letter */
	c = cuts_of("xe\xcc\x81y", &n);
	cr_assert(has_place(c, n, 1) && !has_place(c, n, 2) && has_place(c, n, 4));
	/* an emoji sequence is one picture */
	c = cuts_of("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7x", &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(c[0].end, 18);
	cr_assert_eq(c[0].u16, 8);
	c = cuts_of("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa", &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(c[0].end, 8);
	/* a Devanagari conjunct is one cluster of glyphs */
	c = cuts_of("\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7", &n);
	cr_assert(!has_place(c, n, 3) && !has_place(c, n, 6));
	/* Arabic, and a plain part before it: each character there */
	c = cuts_of("ab \xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7", &n);
	cr_assert(has_place(c, n, 1) && has_place(c, n, 2) && has_place(c, n, 5));
	/* a plain name has none: it is fitted character by character */
	cr_assert_null(af_font_cuts(t_font, "com.example.Caf\xc3\xa9", 17, &n));
	cr_assert_eq(n, 0);
}

/* flame.js's loop over a shaped name's places (fitCuts). */
static size_t fit_on_places(const char *name, size_t len, double avail, int *dots)
{
	size_t n, j, fit = 0;
	const af_cut *c = af_font_cuts(t_font, name, len, &n);
	double dot = 2 * af_font_advance(t_font, '.');

	*dots = 0;
	cr_assert_not_null(c);
	for (j = 0; j < n && c[j].w <= avail; j++)
		if (c[j].w + dot <= avail)
			fit = c[j].end;
	if (j == n)
		return len;
	*dots = fit > 0;
	return fit;
}

/* The C side walks a shaped name's plain start character by character and
 * changes to its places at the first that is not plain; the script only
 * has the places.  Both must cut every name alike at every width. */
Test(font, fitting_a_shaped_name_agrees_with_its_places)
{
	static const char *const names[] = {
		"com.example.Foo.\xe5\x90\x8e\xe5\x8f\xb0\xe5\x90\x8c\xe6\xad\xa5",
		"\xe5\x90\x8e\xe5\x8f\xb0 sync \xf0\x9f\x94\x84",
		"abc (\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7) def",
		"\x01\x02\xe5\x90\x8e\xe5\x8f\xb0", /* dropped characters first */
		"a\xff\xfe\xe5\x90\x8e b",           /* invalid bytes */
		"xe\xcc\x81" "e\xcc\x81" "e\xcc\x81" "tail",
		"keycap 1\xef\xb8\x8f\xe2\x83\xa3 after",
		"\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 x",
	};
	char *longer[3];
	size_t i, k;

	/* longer than what is measured shaped: plain then not, not then plain,
	 * and not plain throughout */
	longer[0] = malloc(AF_FONT_SHAPED + 600);
	memset(longer[0], 'a', AF_FONT_SHAPED + 500);
	strcpy(longer[0] + AF_FONT_SHAPED + 500, "\xe5\x90\x8e");
	longer[1] = malloc(AF_FONT_SHAPED + 600);
	strcpy(longer[1], "\xe5\x90\x8e");
	memset(longer[1] + 3, 'b', AF_FONT_SHAPED + 500);
	longer[1][AF_FONT_SHAPED + 503] = '\0';
	longer[2] = malloc(3 * (AF_FONT_SHAPED + 100) + 1);
	for (k = 0; k < AF_FONT_SHAPED + 100; k++)
		memcpy(longer[2] + 3 * k, "\xe5\x90\x8e", 3);
	longer[2][3 * (AF_FONT_SHAPED + 100)] = '\0';
	for (i = 0; i < sizeof names / sizeof names[0] + 3; i++) {
		const char *name = i < sizeof names / sizeof names[0]
		                   ? names[i] : longer[i - sizeof names / sizeof names[0]];
		size_t len = strlen(name);
		double whole = af_font_text_width(t_font, name, len, 12), avail;
		double step = len > 100 ? 7.3 : 0.37;
		for (avail = -1; avail < whole + 30; avail += step) {
			int d1, d2;
			size_t n1 = af_font_fit(t_font, name, avail, 12, &d1);
			size_t n2 = fit_on_places(name, len, avail / 12, &d2);
			if (n1 != n2 || d1 != d2)
				cr_assert_fail("name %zu at %.2f px: %zu bytes%s walked, %zu%s on its "
				               "places", i, avail, n1, d1 ? " + .." : "", n2,
				               d2 ? " + .." : "");
		}
	}
	/* never whole when longer than measured, even with all the room */
	{
		int d;
		cr_assert_lt(af_font_fit(t_font, longer[2], 1e9, 12, &d), strlen(longer[2]));
		cr_assert_eq(af_font_fit(t_font, longer[0], 1e9, 12, &d), AF_FONT_SHAPED,
		             "the measured part fits, then the name is cut");
		cr_assert_eq(d, 1);
	}
	for (k = 0; k < 3; k++)
		free(longer[k]);
}

Test(font, arabic_joins_and_marks_sit_on_their_letters)
{
	const char *arabic = scripts[3][1];
	size_t len = strlen(arabic), i = 0;
	double joined = af_font_text_width(t_font, arabic, len, 12), alone = 0;

	while (i < len) {
		uint32_t cp = ((uint32_t)(arabic[i] & 0x1F) << 6) | (arabic[i + 1] & 0x3F);
		if ((unsigned char)arabic[i] < 0x80)
			cp = (uint32_t)arabic[i], i += 1;
		else
			i += 2;
		alone += 12 * af_font_advance(t_font, cp);
	}
	cr_assert_gt(joined, 0);
	cr_assert_neq(joined, alone, "the letters were not joined");
	/* e + U+0301 is as wide as é */
	cr_assert_eq(af_font_text_width(t_font, "e\xcc\x81", 3, 12),
	             af_font_text_width(t_font, "\xc3\xa9", 2, 12));
}

/* `text` at (10, 20) on a white surface, 12 px. */
static cairo_surface_t *draw_at(const char *const *texts, const double *x, size_t n)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 120, 30);
	cairo_t *cr = white_canvas(s);
	size_t i;

	for (i = 0; i < n; i++) {
		cairo_move_to(cr, x[i], 20);
		cr_assert_eq(af_font_show(t_font, cr, texts[i], 12), 0);
	}
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return s;
}

static int same_pixels(cairo_surface_t *a, cairo_surface_t *b)
{
	return memcmp(cairo_image_surface_get_data(a), cairo_image_surface_get_data(b),
	              (size_t)cairo_image_surface_get_stride(a) * 30) == 0;
}

/* Hebrew alef then bet, logically: bet is drawn on the left. */
Test(font, right_to_left_is_drawn_right_to_left)
{
	const char *word[] = {"\xd7\x90\xd7\x91"};
	const char *rtl[] = {"\xd7\x91", "\xd7\x90"}, *ltr[] = {"\xd7\x90", "\xd7\x91"};
	double x0[] = {10}, xr[2], xl[2];
	cairo_surface_t *drawn, *right, *left;

	xr[0] = xl[0] = 10;
	xr[1] = 10 + af_font_text_width(t_font, rtl[0], 2, 12);
	xl[1] = 10 + af_font_text_width(t_font, ltr[0], 2, 12);
	drawn = draw_at(word, x0, 1);
	right = draw_at(rtl, xr, 2);
	left = draw_at(ltr, xl, 2);
	cr_assert(same_pixels(drawn, right), "not drawn right to left");
	cr_assert(!same_pixels(drawn, left));
	cairo_surface_destroy(drawn);
	cairo_surface_destroy(right);
	cairo_surface_destroy(left);
}

/* The graph of folded text "t;NAME 1" drawn by `format` (PNG or PDF) at
 * 600 px; with PNG, the label's ink: 1 for each pixel of NAME's frame that
 * is not its fill, in *mask (w x h, caller frees).  Returns the output. */
static char *graph_of(const char *name, af_format format, size_t *olen,
                      unsigned char **mask, int *w, int *h)
{
	char folded[256];
	af_trace *t;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_layout_options lo = {.width = 600};
	af_render_options ro = {.font = t_font};
	af_error e = {0};
	char *out = NULL;
	size_t i;
	FILE *f;

	snprintf(folded, sizeof folded, "t;%s 1\n", name);
	t = t_parse((const uint8_t *)folded, strlen(folded));
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
	f = open_memstream(&out, olen);
	cr_assert_eq(af_cairo_write(l, format, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	if (format == AF_FORMAT_PNG) {
		cairo_surface_t *img = t_png_image(out, *olen);
		const unsigned char *px;
		int stride, x, y;
		cr_assert_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
		px = cairo_image_surface_get_data(img);
		stride = cairo_image_surface_get_stride(img);
		for (i = 0; i < l->nrects; i++) {
			af_node_info ni;
			const af_rect *rc = &l->rects[i];
			uint32_t fill;
			af_tree_node(l->tree, rc->node, &ni);
			if (strcmp(ni.name, name) != 0)
				continue;
			*w = (int)rc->w - 4;
			*h = (int)rc->h - 2;
			*mask = calloc((size_t)(*w * *h), 1);
			/* the fill, at the right end of the frame, past the label */
			fill = ((const uint32_t *)(px + stride * (int)(rc->y + rc->h / 2)))
			       [(int)(rc->x + rc->w) - 3] & 0xFFFFFF;
			for (y = 0; y < *h; y++)
				for (x = 0; x < *w; x++) {
					uint32_t p = ((const uint32_t *)(px + stride * ((int)rc->y + 1 + y)))
					             [(int)rc->x + 2 + x] & 0xFFFFFF;
					(*mask)[y * *w + x] = p != fill;
				}
		}
		cr_assert_not_null(*mask, "no frame named \"%s\"", name);
		cairo_surface_destroy(img);
	}
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	return out;
}

/* A PNG label shows its characters: two names of the same characters in
 * another order draw other pixels.  (Missing glyphs are all the same box:
 * drawn with boxes, the two would look alike.) */
Test(font, png_labels_draw_their_characters)
{
	static const char *const pairs[][2] = {
		{"\xe5\x90\x8e\xe5\x8f\xb0\xe5\x90\x8c\xe6\xad\xa5",
		 "\xe5\x90\x8c\xe6\xad\xa5\xe5\x90\x8e\xe5\x8f\xb0"}, /* Chinese */
		{"\xe3\x83\xa1\xe3\x82\xbd\xe3\x83\x83\xe3\x83\x89",
		 "\xe3\x83\x89\xe3\x83\x83\xe3\x82\xbd\xe3\x83\xa1"}, /* Japanese */
		{"\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa4\xa4",
		 "\xe0\xa4\xa4\xe0\xa4\xb8\xe0\xa4\xae\xe0\xa4\xa8"}, /* Devanagari */
		{"\xf0\x9f\x94\x84\xf0\x9f\x98\x80\xf0\x9f\x9a\x80",
		 "\xf0\x9f\x9a\x80\xf0\x9f\x98\x80\xf0\x9f\x94\x84"}, /* emoji */
	};
	size_t k;

	for (k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
		unsigned char *m[2] = {NULL, NULL};
		int w[2], h[2], j, ink = 0;
		size_t len;
		for (j = 0; j < 2; j++)
			free(graph_of(pairs[k][j], AF_FORMAT_PNG, &len, &m[j], &w[j], &h[j]));
		cr_assert(w[0] == w[1] && h[0] == h[1]);
		for (j = 0; j < w[0] * h[0]; j++)
			ink += m[0][j];
		cr_assert_gt(ink, 30, "\"%s\": no label drawn", pairs[k][0]);
		cr_assert(memcmp(m[0], m[1], (size_t)(w[0] * h[0])) != 0,
		          "\"%s\" and \"%s\" draw the same pixels", pairs[k][0], pairs[k][1]);
		free(m[0]);
		free(m[1]);
	}
}

/* A PDF embeds the fallback fonts the names need. */
Test(font, pdf_embeds_the_fonts_of_its_names)
{
	static const char *const want[][2] = {
		{"\xe5\x90\x8e\xe5\x8f\xb0 sync", "NotoSansCJK"},
		{"\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87",
		 "NotoSansDevanagari"},
	};
	size_t k;

	for (k = 0; k < sizeof want / sizeof want[0]; k++) {
		size_t len;
		char *pdf = graph_of(want[k][0], AF_FORMAT_PDF, &len, NULL, NULL, NULL);
		size_t i, n = strlen(want[k][1]);
		for (i = 0; i + n <= len && memcmp(pdf + i, want[k][1], n) != 0; i++)
			;
		cr_assert(i + n <= len, "the PDF of \"%s\" has no %s", want[k][0], want[k][1]);
		free(pdf);
	}
}

/* The SVG names the families the PNG is drawn with, and draws as measured. */
Test(font, svg_names_the_pinned_families)
{
	static const char folded[] = "t;\xe5\x90\x8e\xe5\x8f\xb0 1\n";
	af_trace *t = t_parse((const uint8_t *)folded, sizeof folded - 1);
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_render_options ro = {.font = t_font};
	af_error e = {0};
	char *svg = NULL;
	size_t len;
	FILE *f;

	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK);
	f = open_memstream(&svg, &len);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	cr_assert_not_null(strstr(svg, "font-family:\"DejaVu Sans\",Verdana,\"Noto Sans CJK SC\","
	                               "\"Noto Color Emoji\",sans-serif"));
	cr_assert_not_null(strstr(svg, "font-kerning:none"));
	/* the script has the name's places */
	cr_assert_not_null(strstr(svg, "cuts:{"));
	cr_assert_null(strstr(svg, "cuts:{}"));
	free(svg);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
}
