/*
 * style.c - frame colours, backgrounds, label fitting and text contrast
 * (the tooltips' text is tooltip.c's).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "font.h"
#include "layout.h"
#include "style.h"
#include "tree.h"

static const char *const af_palette_names[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "red",
	"green", "blue", "aqua", "yellow", "purple", "orange", "android",
};

/* The android palette's kinds, in legend order. */
static const struct af_kind_style {
	const char *label;
	af_rgb base;  /* the darkest shade; names add up to `spread` */
	int spread;
} af_android[] = {
	{"app", {70, 170, 70}, 50},
	{"android", {225, 140, 40}, 30},
	{"java / kotlin / androidx", {80, 140, 215}, 40},
	{"idle", {185, 185, 185}, 25},
	{"blocked", {215, 60, 60}, 35},
	{"thread", {215, 205, 150}, 20},
	{"native", {160, 110, 190}, 35},
	{"kernel", {120, 120, 130}, 30},
};

static int af_has_prefix(const char *s, const char *const *heads)
{
	for (; *heads; heads++) {
		const char *h = *heads, *p = s;
		/* most names differ at the first byte: no strlen, no call */
		while (*h && *h == *p) {
			h++;
			p++;
		}
		if (!*h)
			return 1;
	}
	return 0;
}

static int af_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Which of af_android[] a frame is. */
static int af_android_kind(const af_node_info *ni)
{
	static const char *const idle[] = {
		"android.os.MessageQueue.nativePollOnce", "android.os.MessageQueue.next",
		NULL};
	/* the calls that block, and under them the runtime's own way of
	 * blocking: Dalvik's Thread.sleep calls VMThread.sleep, Unsafe.park
	 * calls Thread.parkFor$ (or parkUntil$) on Android, which waits in
	 * Object.wait; these never return before the thread is woken, whoever
	 * calls them, so they are red by their name too (in --reverse and
	 * --focus views as well, where no blocked frame stands above them) */
	static const char *const blocked[] = {
		"java.lang.Object.wait", "java.lang.Thread.sleep", "java.lang.Thread.join",
		"java.lang.VMThread.sleep", "java.lang.Thread.parkFor",
		"java.lang.Thread.parkUntil", "java.util.concurrent.locks.",
		"sun.misc.Unsafe.park", "jdk.internal.misc.Unsafe.park",
		"java.util.concurrent.CountDownLatch.await",
		"java.util.concurrent.Semaphore.acquire", "java.util.concurrent.FutureTask.get",
		NULL};
	static const char *const platform[] = {
		"android.", "com.android.", "dalvik.", "libcore.", "org.apache.harmony.",
		NULL};
	static const char *const libs[] = {
		"java.", "javax.", "jdk.", "sun.", "kotlin.", "kotlinx.", "androidx.",
		"com.google.", "okhttp3.", "okio.", "retrofit2.", "io.reactivex.", NULL};

	/* native frames of profiles: the kernel's (perf's "_[k]" mark,
	 * symbols of [kernel.kallsyms]), ART's own C++ (art::) as the
	 * platform's, other C++ names and frames named by their library
	 * ("libc.so+0x4a2c"), a mangled name kept as written */
	static const char *const art[] = {"art::", "android::", NULL};

	const char *name = ni->full_name;
	/* every native mark holds one of these: most names have none */
	int marked = strpbrk(name, "[:+") != NULL;

	if (ni->depth == 0 || ni->thread)
		return 5;
	if (marked && (strstr(name, "[kernel.kallsyms]") || af_ends_with(name, "_[k]")))
		return 7;
	if (af_has_prefix(name, art))
		return 1;
	if ((marked && (strstr(name, "::") || strstr(name, ".so+0x"))) ||
	    (name[0] == '_' && name[1] == 'Z'))
		return 6;
	if (af_has_prefix(ni->full_name, idle))
		return 3;
	if (af_has_prefix(ni->full_name, blocked))
		return 4;
	if (af_has_prefix(ni->full_name, platform))
		return 1;
	if (af_has_prefix(ni->full_name, libs))
		return 2;
	return 0;
}

size_t af_style_legend(size_t i, const char **label, af_rgb *color)
{
	const size_t n = sizeof af_android / sizeof af_android[0];
	if (i < n) {
		af_rgb c = af_android[i].base;
		c.r = (unsigned char)(c.r + af_android[i].spread / 2);
		c.g = (unsigned char)(c.g + af_android[i].spread / 2);
		c.b = (unsigned char)(c.b + af_android[i].spread / 2);
		*label = af_android[i].label;
		*color = c;
	}
	return n;
}

int af_palette_from_name(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof af_palette_names / sizeof af_palette_names[0]; i++)
		if (strcmp(name, af_palette_names[i]) == 0)
			return (int)i;
	return -1;
}

static int af_hex(const char *s, af_rgb *c)
{
	unsigned v[6];
	int i;

	if (strlen(s) != 7 || s[0] != '#')
		return -1;
	for (i = 0; i < 6; i++) {
		char h = s[i + 1];
		if (h >= '0' && h <= '9')
			v[i] = (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			v[i] = (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			v[i] = (unsigned)(h - 'A' + 10);
		else
			return -1;
	}
	c->r = (unsigned char)(v[0] * 16 + v[1]);
	c->g = (unsigned char)(v[2] * 16 + v[3]);
	c->b = (unsigned char)(v[4] * 16 + v[5]);
	return 0;
}

static af_rgb af_rgb_of(unsigned r, unsigned g, unsigned b)
{
	af_rgb c = {(unsigned char)r, (unsigned char)g, (unsigned char)b};
	return c;
}

af_status af_style_init(af_style *s, const af_layout *l,
                        const af_render_options *opt, af_error *err)
{
	const char *bg = opt->bgcolors;

	memset(s, 0, sizeof *s);
	s->layout = l;
	s->opt = opt;
	s->differential = af_tree_is_differential(l->tree);
	s->seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
	if ((unsigned)opt->palette > AF_PALETTE_ANDROID)
		return af_fail(err, AF_ERR_ARG, -1, "unknown palette");
	if (!bg) /* flamegraph.pl's choice: the palette's own background */
		bg = opt->palette == AF_PALETTE_MEM ? "green"
		     : opt->palette == AF_PALETTE_IO || opt->palette == AF_PALETTE_WAKEUP ||
		               opt->palette == AF_PALETTE_CHAIN
		             ? "blue"
		     : opt->palette >= AF_PALETTE_RED && opt->palette <= AF_PALETTE_ORANGE
		             ? "grey" /* the flat palettes */
		             : "yellow";
	if (opt->dark && !opt->bgcolors) {
		s->bg[0] = af_rgb_of(0x1e, 0x1f, 0x24);
		s->bg[1] = af_rgb_of(0x15, 0x16, 0x1a);
	} else if (strcmp(bg, "yellow") == 0) {
		s->bg[0] = af_rgb_of(0xee, 0xee, 0xee);
		s->bg[1] = af_rgb_of(0xee, 0xee, 0xb0);
	} else if (strcmp(bg, "blue") == 0) {
		s->bg[0] = af_rgb_of(0xee, 0xee, 0xee);
		s->bg[1] = af_rgb_of(0xe0, 0xe0, 0xff);
	} else if (strcmp(bg, "green") == 0) {
		s->bg[0] = af_rgb_of(0xee, 0xf2, 0xee);
		s->bg[1] = af_rgb_of(0xe0, 0xff, 0xe0);
	} else if (strcmp(bg, "grey") == 0) {
		s->bg[0] = af_rgb_of(0xf8, 0xf8, 0xf8);
		s->bg[1] = af_rgb_of(0xe8, 0xe8, 0xe8);
	} else if (af_hex(bg, &s->bg[0]) == 0) {
		s->bg[1] = s->bg[0];
	} else {
		return af_fail(err, AF_ERR_ARG, -1,
		               "unknown background '%s' (yellow, blue, green, grey or #rrggbb)",
		               bg);
	}
	return AF_OK;
}

/* Three fractions in [0,1) from a name: a hash of all of it by default;
 * with AF_COLOR_HASH, weighted towards the first characters (so names that
 * share a start share a hue); with AF_COLOR_RANDOM, random. */
static void af_fractions(af_style *s, const char *name, double v[3])
{
	uint64_t h = 0xcbf29ce484222325ull;
	const unsigned char *p;
	int i;

	if (s->opt->color_mode == AF_COLOR_RANDOM) {
		for (i = 0; i < 3; i++) {
			s->seed ^= s->seed << 13;
			s->seed ^= s->seed >> 7;
			s->seed ^= s->seed << 17;
			v[i] = (double)(s->seed >> 11) / 9007199254740992.0;
		}
		return;
	}
	if (s->opt->color_mode == AF_COLOR_HASH) {
		double sum = 0, weight = 1, max = 0;
		size_t n = strlen(name), k;
		for (k = 0; k < n && k < 12; k++) {
			sum += ((unsigned char)name[k] % 13) / 12.0 * weight;
			max += weight;
			weight *= 0.7;
		}
		v[0] = max > 0 ? sum / max : 0;
		sum = 0, weight = 1, max = 0;
		for (k = 0; k < n && k < 12; k++) {
			sum += ((unsigned char)name[n - 1 - k] % 13) / 12.0 * weight;
			max += weight;
			weight *= 0.7;
		}
		v[1] = v[2] = max > 0 ? sum / max : 0;
		return;
	}
	for (p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	v[0] = (double)(h & 0xFFFF) / 65536.0;
	v[1] = (double)((h >> 16) & 0xFFFF) / 65536.0;
	v[2] = (double)((h >> 32) & 0xFFFF) / 65536.0;
}

/* The palettes that pick a hue by what a frame is, by flamegraph.pl's
 * rules, in its order; the name keeps its annotation. */
static af_palette af_kind(af_palette p, const char *name)
{
	/* flamegraph.pl's Java packages (^L?(java|...)/), and their dotted
	 * forms, as Android traces name classes */
	static const char *const java[] = {
		"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/",
		"Ljava/", "Ljavax/", "Ljdk/", "Lnet/", "Lorg/", "Lcom/", "Lio/", "Lsun/",
		"java.", "javax.", "jdk.", "net.", "org.", "com.", "io.", "sun.",
		"kotlin.", "android.", "androidx.", "dalvik.", NULL};

	switch (p) {
	case AF_PALETTE_JAVA:
		return af_ends_with(name, "_[j]")   ? AF_PALETTE_GREEN
		       : af_ends_with(name, "_[i]") ? AF_PALETTE_AQUA
		       : af_has_prefix(name, java)  ? AF_PALETTE_GREEN
		       : strstr(name, ":::")        ? AF_PALETTE_GREEN  /* perf-map-agent */
		       : strstr(name, "::")         ? AF_PALETTE_YELLOW /* C++ */
		       : af_ends_with(name, "_[k]") ? AF_PALETTE_ORANGE
		                                    : AF_PALETTE_RED;
	case AF_PALETTE_PERL:
		return strstr(name, "::")                         ? AF_PALETTE_YELLOW
		       : strstr(name, "Perl") || strstr(name, ".pl") ? AF_PALETTE_GREEN
		       : af_ends_with(name, "_[k]")                 ? AF_PALETTE_ORANGE
		                                                    : AF_PALETTE_RED;
	case AF_PALETTE_JS: {
		const char *slash = strchr(name, '/');
		if (af_ends_with(name, "_[j]"))
			return slash ? AF_PALETTE_GREEN : AF_PALETTE_AQUA; /* source, builtin */
		return strstr(name, "::")                    ? AF_PALETTE_YELLOW
		       : slash && strstr(slash + 1, ".js")    ? AF_PALETTE_GREEN
		       : strchr(name, ':')                    ? AF_PALETTE_AQUA
		       : strcmp(name, " ") == 0               ? AF_PALETTE_GREEN /* no symbol */
		       : strstr(name, "_[k]")                 ? AF_PALETTE_ORANGE
		                                              : AF_PALETTE_RED;
	}
	case AF_PALETTE_CHAIN: /* a waker's frames are named "..._[w]" */
		return strstr(name, "_[w]") ? AF_PALETTE_AQUA : AF_PALETTE_BLUE;
	case AF_PALETTE_WAKEUP:
		return AF_PALETTE_AQUA;
	default:
		return p;
	}
}

static af_rgb af_palette_fill(af_style *s, const af_node_info *ni, const af_rect *rect);

void af_style_free(af_style *s)
{
	if (!s->cached)
		af_free(af_layout_mem(s->layout), s->memo);
	s->memo = NULL;
	af_free(af_layout_mem(s->layout), s->fills);
	s->fills = NULL;
	s->kinds_made = 0;
}

af_status af_render_cache_new(af_render_cache **out, af_error *err)
{
	af_mem *mem = af_mem_new(NULL, UINT64_MAX);
	af_render_cache *c = mem ? af_calloc(mem, 1, sizeof *c) : NULL;

	*out = NULL;
	if (!c) {
		af_mem_unref(mem);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the render cache");
	}
	c->mem = mem;
	*out = c;
	return AF_OK;
}

void af_render_cache_free(af_render_cache *c)
{
	af_mem *mem;

	if (!c)
		return;
	mem = c->mem;
	af_free(mem, c->memo);
	af_free(mem, c);
	af_mem_unref(mem);
}

/* The cache's memo for the names of `s`'s tree, `n` of them: emptied
 * when it was for other names or another palette; NULL when the tree's
 * names are its own, or without memory. */
static af_fill_memo *af_cache_memo(af_style *s, size_t n)
{
	af_render_cache *c = s->opt->cache;
	uint64_t serial = af_tree_names_serial(s->layout->tree);

	if (!c || !serial)
		return NULL;
	if (c->serial != serial || c->palette != s->opt->palette ||
	    c->color_mode != s->opt->color_mode) {
		if (c->n)
			memset(c->memo, 0, c->n * sizeof *c->memo);
		c->serial = serial;
		c->palette = s->opt->palette;
		c->color_mode = s->opt->color_mode;
	}
	if (c->n < n) {
		af_fill_memo *m = af_realloc(c->mem, c->memo, n * sizeof *m);
		if (!m)
			return NULL;
		memset(m + c->n, 0, (n - c->n) * sizeof *m);
		c->memo = m;
		c->n = n;
	}
	return c->memo;
}

double af_style_change(const af_style *s, const af_node_info *ni, const af_rect *r)
{
	double d = ni->removed ? -(double)ni->self[s->layout->clock]
	           : r->own ? (double)ni->self[s->layout->clock] - (double)ni->base_self : 0;
	if (s->opt->negate)
		d = -d;
	return d == 0 ? 0 : d; /* never -0 */
}

af_rgb af_style_fill(af_style *s, const af_node_info *ni, const af_rect *rect)
{
	af_namemap *map = s->opt->colormap;
	const char *known;
	unsigned r, g, b;
	char text[32];
	af_rgb c;

	if (!map || (s->differential && rect->changed) || strcmp(ni->name, "-") == 0 ||
	    strcmp(ni->name, "--") == 0)
		return af_palette_fill(s, ni, rect);
	/* --cp: a name keeps the colour it had in earlier graphs */
	known = af_namemap_get(map, ni->name);
	if (known && sscanf(known, "rgb(%u,%u,%u)", &r, &g, &b) == 3 && r < 256 &&
	    g < 256 && b < 256)
		return af_rgb_of(r, g, b);
	c = af_palette_fill(s, ni, rect);
	snprintf(text, sizeof text, "rgb(%u,%u,%u)", c.r, c.g, c.b);
	if (af_namemap_set(map, ni->name, text) != AF_OK)
		s->failed = 1;
	return c;
}

static af_rgb af_palette_work(af_style *s, const af_node_info *ni, const af_rect *rect);

/* The memo of the name of `rect`'s frame, made at the first call; NULL
 * without memory (then slower, never wrong). */
static af_fill_memo *af_style_memo(af_style *s, const af_rect *rect)
{
	const af_tree *tree = s->layout->tree;

	if (!s->memo && !s->no_memo) {
		size_t n = af_tree_name_count(tree);
		s->memo = af_cache_memo(s, n ? n : 1);
		s->cached = s->memo != NULL;
		if (!s->memo)
			s->memo = af_calloc(af_layout_mem(s->layout), n ? n : 1, sizeof *s->memo);
		s->no_memo = !s->memo;
	}
	return s->memo ? &s->memo[af_tree_name_id(tree, rect->node)] : NULL;
}

int af_style_kind_known(af_style *s, const af_rect *r)
{
	af_fill_memo *m = r->depth > 1 ? af_style_memo(s, r) : NULL;
	return m && m->kind ? m->kind - 1 : -1;
}

size_t af_style_kind(af_style *s, const af_node_info *ni, const af_rect *rect)
{
	af_fill_memo *m;

	/* the root and threads are of their own kind, whatever their name */
	if (ni->depth == 0 || ni->thread || !(m = af_style_memo(s, rect)))
		return (size_t)af_android_kind(ni);
	if (!m->kind)
		m->kind = (unsigned char)(af_android_kind(ni) + 1);
	return m->kind - 1u;
}

/* A palette's fill depends on the frame's name alone, but for a change's
 * colour, random colours and the android palette's root and threads: it
 * is worked out once per name (the per-name work, kinds by prefix and a
 * hash of the whole name, cost more than drawing the frame). */
static int af_fill_of_name(const af_style *s, const af_rect *rect, int root_or_thread)
{
	return !(s->differential && rect->changed) && s->opt->color_mode != AF_COLOR_RANDOM &&
	       !(s->opt->palette == AF_PALETTE_ANDROID && root_or_thread);
}

static af_rgb af_palette_fill(af_style *s, const af_node_info *ni, const af_rect *rect)
{
	af_fill_memo *m;

	if (!af_fill_of_name(s, rect, ni->depth == 0 || ni->thread) ||
	    !(m = af_style_memo(s, rect)))
		return af_palette_work(s, ni, rect);
	if (!m->known) {
		m->c = af_palette_work(s, ni, rect);
		m->known = 1;
	}
	return m->c;
}

af_rgb af_style_fill_rect(af_style *s, const af_rect *r)
{
	af_fill_memo *m;
	af_node_info ni;

	/* the memo's fill, the node unread (from depth 2: no root, no thread) */
	if (!s->opt->colormap && r->depth > 1 && af_fill_of_name(s, r, 0) &&
	    (m = af_style_memo(s, r)) && m->known)
		return m->c;
	af_tree_node(s->layout->tree, r->node, &ni);
	return af_style_fill(s, &ni, r);
}

/* The kind frame `r` shows in the android legend, or -1: none for a
 * separator, nor for a differential frame coloured by its change. */
static int af_legend_kind(af_style *s, const af_rect *r)
{
	af_node_info ni;
	int known;

	if (s->differential && r->changed)
		return -1;
	if ((known = af_style_kind_known(s, r)) >= 0)
		return known;
	af_tree_node(s->layout->tree, r->node, &ni);
	if (strcmp(ni.name, "-") == 0 || strcmp(ni.name, "--") == 0)
		return -1;
	return (int)af_style_kind(s, &ni, r);
}

unsigned af_style_kinds(af_style *s)
{
	const af_layout *l = s->layout;
	const af_pnode *nodes = af_tree_nodes(l->tree);
	size_t i;

	if (s->kinds_made)
		return s->kinds;
	s->fills = af_malloc(af_layout_mem(l), (l->nrects ? l->nrects : 1) * sizeof *s->fills);
	for (i = 0; i < l->nrects; i++) {
		const af_rect *r = &l->rects[i];
		/* the frames' nodes and their names' memos lie all over memory,
		 * in no order of the frames': each is fetched some frames ahead */
		if (i + 16 < l->nrects)
			__builtin_prefetch(&nodes[l->rects[i + 16].node]);
		if (s->memo && i + 8 < l->nrects)
			__builtin_prefetch(&s->memo[nodes[l->rects[i + 8].node].key]);
		/* the fill first: it notes the kind of its name with it */
		af_rgb c = af_style_fill_rect(s, r);
		int kind = af_legend_kind(s, r);
		if (s->fills)
			s->fills[i] = c;
		if (kind >= 0)
			s->kinds |= 1u << kind;
	}
	s->kinds_made = 1;
	return s->kinds;
}

static af_rgb af_palette_work(af_style *s, const af_node_info *ni, const af_rect *rect)
{
	af_palette p = s->opt->palette;
	double v[3];

	/* flamegraph.pl's separators, in every palette */
	if (strcmp(ni->name, "--") == 0)
		return af_rgb_of(160, 160, 160);
	if (strcmp(ni->name, "-") == 0)
		return af_rgb_of(200, 200, 200);
	if (s->differential && rect->changed) {
		/* white when unchanged; red where it grew, blue where it shrank,
		 * by flamegraph.pl's arithmetic */
		double d = af_style_change(s, ni, rect), max = (double)s->layout->max_delta, k;
		if (max <= 0 || d == 0)
			return af_rgb_of(255, 255, 255);
		k = 210 * (max - (d < 0 ? -d : d)) / max;
		if (k < 0)
			k = 0;
		return d > 0 ? af_rgb_of(255, (unsigned)k, (unsigned)k)
		             : af_rgb_of((unsigned)k, (unsigned)k, 255);
	}
	if (p == AF_PALETTE_ANDROID) {
		const struct af_kind_style *k = &af_android[af_style_kind(s, ni, rect)];
		unsigned add;
		af_fractions(s, ni->full_name, v);
		add = (unsigned)(k->spread * v[0]);
		return af_rgb_of(k->base.r + add, k->base.g + add, k->base.b + add);
	}
	p = af_kind(p, ni->full_name);
	af_fractions(s, ni->full_name, v);
	switch (p) {
	case AF_PALETTE_MEM:
		return af_rgb_of(0, 190 + (unsigned)(50 * v[1]), (unsigned)(210 * v[0]));
	case AF_PALETTE_IO: {
		unsigned x = 80 + (unsigned)(60 * v[0]);
		return af_rgb_of(x, x, 190 + (unsigned)(55 * v[1]));
	}
	case AF_PALETTE_RED: {
		unsigned x = 50 + (unsigned)(80 * v[0]);
		return af_rgb_of(200 + (unsigned)(55 * v[0]), x, x);
	}
	case AF_PALETTE_GREEN: {
		unsigned x = 50 + (unsigned)(60 * v[0]);
		return af_rgb_of(x, 200 + (unsigned)(55 * v[0]), x);
	}
	case AF_PALETTE_BLUE: {
		unsigned x = 80 + (unsigned)(60 * v[0]);
		return af_rgb_of(x, x, 205 + (unsigned)(50 * v[0]));
	}
	case AF_PALETTE_YELLOW: {
		unsigned x = 175 + (unsigned)(55 * v[0]);
		return af_rgb_of(x, x, 50 + (unsigned)(20 * v[0]));
	}
	case AF_PALETTE_PURPLE: {
		unsigned x = 190 + (unsigned)(65 * v[0]);
		return af_rgb_of(x, 80 + (unsigned)(60 * v[0]), x);
	}
	case AF_PALETTE_AQUA: {
		unsigned x = 165 + (unsigned)(55 * v[0]);
		return af_rgb_of(50 + (unsigned)(60 * v[0]), x, x);
	}
	case AF_PALETTE_ORANGE:
		return af_rgb_of(190 + (unsigned)(65 * v[0]), 90 + (unsigned)(65 * v[0]), 0);
	default: /* hot */
		return af_rgb_of(205 + (unsigned)(50 * v[2]), (unsigned)(230 * v[0]),
		                 (unsigned)(55 * v[1]));
	}
}

size_t af_style_shown(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kwij", name[len - 2]) && name[len - 2])
		return len - 4;
	return len;
}

size_t af_style_fit(af_style *s, const char *name, double w, int *dots)
{
	double fs = s->layout->font_size, fw = s->opt->fontwidth;
	size_t len, i = 0, chars, keep, n = 0;
	unsigned char c0 = (unsigned char)name[0];
	uint32_t cp;

	/* most frames are narrower than their name's first character: then,
	 * as af_font_fit_len() finds, no label, and the name is not read on */
	if (fw <= 0 && c0 >= 0x20 && c0 < 0x7F &&
	    (w - 6) / fs < af_font_advance(s->opt->font, c0)) {
		*dots = 0;
		return 0;
	}
	len = af_style_shown(name, strlen(name));
	if (fw <= 0)
		return af_font_fit_len(s->opt->font, name, len, w - 6, fs, dots);
	/* flamegraph.pl: as many characters as int(w / (size * width)), the
	 * last two of them ".." when the name is longer, nothing under three */
	*dots = 0;
	chars = (size_t)(w / (fs * fw));
	if (w <= 0 || chars < 3)
		return 0;
	while (i < len) {
		size_t k = af_utf8_decode((const unsigned char *)name + i, len - i, &cp);
		i += k ? k : 1;
		n++;
	}
	if (chars >= n)
		return len;
	*dots = 1;
	for (i = 0, keep = 0; keep < chars - 2; keep++) {
		size_t k = af_utf8_decode((const unsigned char *)name + i, len - i, &cp);
		i += k ? k : 1;
	}
	return i;
}

/* WCAG relative luminance of an sRGB colour. */
static double af_luminance(af_rgb c)
{
	const unsigned char v[3] = {c.r, c.g, c.b};
	double lin[3];
	int i;

	for (i = 0; i < 3; i++) {
		double x = v[i] / 255.0;
		lin[i] = x <= 0.03928 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

double af_style_contrast(af_rgb a, af_rgb b)
{
	double x = af_luminance(a), y = af_luminance(b);
	return x > y ? (x + 0.05) / (y + 0.05) : (y + 0.05) / (x + 0.05);
}

af_rgb af_style_ink(const af_style *s, af_ink role)
{
	/* on a light and on a dark background: the text, a muted line (the
	 * subtitle), the buttons */
	static const af_rgb light[] = {{0, 0, 0}, {0x59, 0x59, 0x59}, {0x50, 0x50, 0x50}};
	static const af_rgb dark[] = {{0xd8, 0xd8, 0xd8}, {0xa0, 0xa0, 0xa0}, {0xb4, 0xb4, 0xb4}};
	const af_rgb black = {0, 0, 0}, white = {255, 255, 255};
	double lum = (af_luminance(s->bg[0]) + af_luminance(s->bg[1])) / 2;
	af_rgb c = lum < 0.18 ? dark[role] : light[role];

	/* any background (--bgcolors #rrggbb): black or white when the
	 * theme's colour would not stand out 4.5:1 from both ends */
	if (af_style_contrast(c, s->bg[0]) >= 4.5 && af_style_contrast(c, s->bg[1]) >= 4.5)
		return c;
	if (fmin(af_style_contrast(black, s->bg[0]), af_style_contrast(black, s->bg[1])) >=
	    fmin(af_style_contrast(white, s->bg[0]), af_style_contrast(white, s->bg[1])))
		return black;
	return white;
}

int af_style_label_light(af_rgb fill)
{
	const af_rgb black = {0, 0, 0}, white = {255, 255, 255};
	return af_style_contrast(white, fill) > af_style_contrast(black, fill);
}
