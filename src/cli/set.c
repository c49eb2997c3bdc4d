/*
 * set.c - a per-thread set: one graph per thread, the merged graph, PNG
 * thumbnails and an index page, rendered by a pool of workers.  Every file
 * depends only on its own thread, so the set is byte for byte the same
 * whatever the number of workers.
 *
 * The thread that parsed the trace is one of the workers, and draws the
 * merged graph first: the blocks the parse freed are in its malloc arena,
 * in memory already, where another thread's arena starts empty and each
 * page it takes is a fault (the merged tree of 1M records: 331 faults, on
 * another thread 691).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define ALL ((size_t)-1)
#define THUMB_W 480
#define THUMB_H 150

typedef struct job {
	size_t thread;        /* index in the trace, or ALL */
	char base[112];       /* file name without extension */
	af_thread_info info;
	double share;
	int skipped;
	char *hot;            /* the frame with the most self time */
	uint64_t hot_self;
	uint64_t total[AF_CLOCK_COUNT];
	uint64_t calls;
	af_tree *tree;        /* built before the set's folder is made (ALL) */
} job;

typedef struct pool {
	const cli *c;
	const af_trace *trace;
	af_clock clock;
	job *jobs;
	size_t njobs, next, done, drawn;
	pthread_mutex_t lock;
	progress prog;
	int failed;
	af_namemap *nameattr;
	out_dir dir;
	/* the font one worker opens and every worker clones (the process's
	 * first font takes fontconfig about 3 ms, a clone next to nothing) */
	pthread_cond_t font_ready;
	af_font *font;
	int font_state; /* 0 unopened, 1 being opened, 2 open, -1 failed */
} pool;

/* "<tid>-<name>" with the name cut down to characters safe in any file
 * system and shell: runs of anything else become one '_'. */
static void safe_name(char *out, size_t n, uint32_t tid, const char *name)
{
	size_t o = (size_t)snprintf(out, n, "%u-", tid), start = o;
	int gap = 0;

	for (; *name && o + 2 < n && o - start < 80; name++) {
		unsigned char ch = (unsigned char)*name;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.') {
			if (gap && o > start)
				out[o++] = '_';
			gap = 0;
			out[o++] = (char)ch;
		} else {
			gap = 1;
		}
	}
	if (o == start)
		o += (size_t)snprintf(out + o, n - o, "thread");
	out[o] = '\0';
}

/* --thread: a thread is drawn when its name or tid is named; --process:
 * when its process's name or pid is. */
static int wanted(const cli *c, const af_thread_info *ti)
{
	char num[16];
	size_t i;
	int in = !c->nprocesses;

	snprintf(num, sizeof num, "%u", ti->pid);
	for (i = 0; i < c->nprocesses && (ti->pid || ti->process); i++)
		if ((ti->process && strcmp(c->processes[i], ti->process) == 0) ||
		    (ti->pid && strcmp(c->processes[i], num) == 0))
			in = 1;
	if (!in)
		return 0;
	if (!c->nthreads)
		return 1;
	snprintf(num, sizeof num, "%u", ti->tid);
	for (i = 0; i < c->nthreads; i++)
		if (strcmp(c->threads[i], ti->name) == 0 || strcmp(c->threads[i], num) == 0)
			return 1;
	return 0;
}

static const char *const ext_of[] = {".svg", ".png", ".pdf", ".folded"};

/* Writes one file of a job; returns 0, or -1 after saying why. */
static int write_one(pool *pl, const job *j, const char *ext, af_format f,
                     const af_tree *tree, const af_layout *layout,
                     const af_render_options *ro)
{
	char name[sizeof j->base + 16];
	af_error e = {0};
	af_status st;
	out_file out;

	snprintf(name, sizeof name, "%s%s", j->base, ext);
	if (out_begin_in(&out, &pl->dir, name))
		return -1;
	if (f == AF_FORMAT_FOLDED)
		st = af_folded_write(tree, pl->clock, out.f, &e);
	else if (f == AF_FORMAT_SVG)
		st = af_svg_write(layout, ro, out.f, &e);
	else
		st = af_cairo_write(layout, f, ro, out.f, &e);
	return out_end(&out, st, &e, input_name(pl->c->input));
}

/* The tree of job `j`: 0; 1 when the view leaves the thread nothing, and
 * it is skipped; -1 after saying why it cannot be drawn. */
static int job_tree(pool *pl, job *j, af_tree **out)
{
	const cli *c = pl->c;
	af_tree_options to = c->tree;
	af_tree *tree = NULL;
	af_error e = {0};
	af_status st;

	*out = NULL;
	if (j->thread != ALL) {
		to.one_thread = 1;
		to.thread = j->thread;
	}
	to.clock = pl->clock;
	if (!(c->formats & (1 << AF_FORMAT_FOLDED)) && !c->layout.flamechart &&
	    !c->layout.keep_narrow) {
		/* subtrees under --minwidth are never drawn: not built (a
		 * thumbnail leaves out more: frames under one of its pixels) */
		to.prune = prune_share(&c->layout);
		to.prune_clock = pl->clock;
	}
	st = af_tree_from_trace(pl->trace, &to, &tree, &e);
	if (st == AF_OK) {
		af_node_info root;
		af_tree_node(tree, 0, &root);
		if (root.total[pl->clock] == 0)
			st = AF_ERR_EMPTY;
	}
	if (st == AF_ERR_EMPTY && j->thread != ALL) {
		/* the view's rules (or the clock) leave this thread nothing */
		af_tree_free(tree);
		j->skipped = 1;
		return 1;
	}
	if (st != AF_OK) {
		if (!tree)
			report_error(input_name(c->input), &e);
		else
			fprintf(stderr, PROG ": %s: nothing to draw on this clock\n",
			        input_name(c->input));
		af_tree_free(tree);
		return -1;
	}
	*out = tree;
	return 0;
}

/* The font of a worker, `*font`, a clone of the pool's.  The worker that
 * asks first opens that, while the others go on to their first trees (one
 * of them names the frames for all meanwhile); they clone it when they
 * first draw (`wait`), waiting for it if need be.  0 (*font still NULL
 * when not the opener and not `wait`), or -1 after saying why the font
 * cannot be had. */
static int worker_font(pool *pl, af_font **font, int wait)
{
	af_error e = {0};
	int opener, state;

	if (*font)
		return 0;
	pthread_mutex_lock(&pl->lock);
	opener = pl->font_state == 0;
	if (opener)
		pl->font_state = 1;
	while (!opener && wait && pl->font_state == 1)
		pthread_cond_wait(&pl->font_ready, &pl->lock);
	state = pl->font_state;
	pthread_mutex_unlock(&pl->lock);
	if (opener) {
		af_font *f = NULL;
		af_status st = af_font_open(NULL, &f, &e);
		pthread_mutex_lock(&pl->lock);
		pl->font = f;
		pl->font_state = state = st == AF_OK ? 2 : -1;
		pthread_cond_broadcast(&pl->font_ready);
		pthread_mutex_unlock(&pl->lock);
		if (st != AF_OK) {
			report_error("font", &e);
			return -1;
		}
	} else if (!wait) {
		return 0;
	}
	if (state < 0) /* the opener said why */
		return -1;
	if (af_font_clone(pl->font, font, &e) != AF_OK) {
		report_error("font", &e);
		return -1;
	}
	return 0;
}

static int render_job(pool *pl, job *j, af_font **font, af_render_cache *cache)
{
	const cli *c = pl->c;
	af_layout_options lo = c->layout;
	af_render_options ro = c->render;
	af_tree *tree = j->tree;
	af_layout *layout = NULL;
	af_error e = {0};
	char title[512], t[48];
	size_t i;
	int f, r = -1;
	const char *clock_name = pl->clock == AF_CLOCK_WALL ? "wall clock"
	                         : pl->clock == AF_CLOCK_CPU ? "thread-cpu" : "wait (off-CPU)";

	j->tree = NULL;
	if (!tree && (r = job_tree(pl, j, &tree)) != 0)
		return r > 0 ? 0 : -1;
	r = -1;
	/* the index shows the frame with the most self time */
	if ((i = af_tree_hottest(tree, pl->clock, 2)) != 0) {
		af_node_info ni;
		af_tree_node(tree, i, &ni);
		free(j->hot);
		j->hot = strdup(ni.name);
		j->hot_self = ni.self[pl->clock];
	}
	{
		af_node_info root;
		af_tree_node(tree, 0, &root);
		for (f = 0; f < AF_CLOCK_COUNT; f++)
			j->total[f] = root.total[f];
	}
	af_format_us(t, sizeof t, j->total[pl->clock]);
	if (j->thread == ALL)
		snprintf(title, sizeof title, "All threads \xE2\x80\x94 %s, %s", clock_name, t);
	else
		snprintf(title, sizeof title, "%s (tid %u) \xE2\x80\x94 %s, %s", j->info.name,
		         j->info.tid, clock_name, t);
	if (!c->layout.title)
		lo.title = title;
	lo.clock = pl->clock;
	if (!c->palette_set && af_trace_get_info(pl->trace)->variant != AF_VARIANT_FOLDED)
		ro.palette = AF_PALETTE_ANDROID;
	lo.legend = ro.palette == AF_PALETTE_ANDROID;
	if (worker_font(pl, font, 1))
		goto out;
	ro.font = *font;
	ro.cache = cache;
	ro.nameattr = pl->nameattr;

	for (f = 0; f <= AF_FORMAT_FOLDED; f++) {
		if (!(c->formats & (1 << f)))
			continue;
		if (f != AF_FORMAT_FOLDED && !layout &&
		    af_layout_build(tree, &lo, &layout, &e) != AF_OK) {
			report_error(input_name(c->input), &e);
			goto out;
		}
		if (write_one(pl, j, ext_of[f], (af_format)f, tree, layout, &ro))
			goto out;
	}
	/* the thumbnail, for the index (and for --thumbnail): from the graph's
	 * frames when it was drawn */
	{
		/* the merged graph's card spans the page: its thumbnail is wider */
		int tw = c->thumb_width ? c->thumb_width : j->thread == ALL ? 2 * THUMB_W : THUMB_W;
		int th = c->thumb_height ? c->thumb_height : j->thread == ALL ? 200 : THUMB_H;
		af_layout *thumb = NULL;
		af_status st;
		if (layout) {
			st = af_layout_thumbnail(layout, tw, th, &thumb, &e);
		} else {
			lo.thumb_width = tw;
			lo.thumb_height = th;
			st = af_layout_build(tree, &lo, &thumb, &e);
		}
		af_layout_free(layout);
		layout = thumb;
		if (st != AF_OK) {
			report_error(input_name(c->input), &e);
			goto out;
		}
	}
	ro.scale = 1;
	ro.quick_png = 1; /* drawn by the dozen, for the index */
	if (write_one(pl, j, ".thumb.png", AF_FORMAT_PNG, tree, layout, &ro))
		goto out;
	r = 0;
out:
	af_layout_free(layout);
	af_tree_free(tree);
	return r;
}

/* The next job to draw, or NULL when none is left or the set failed. */
static job *next_job(pool *pl)
{
	job *j = NULL;

	pthread_mutex_lock(&pl->lock);
	while (pl->next < pl->njobs && !pl->failed) {
		/* the merged graph (last in the list) is the biggest job:
		 * start it first, then the threads biggest first, so no
		 * worker is left alone with a long job at the end */
		size_t at = pl->next++;
		job *cand = &pl->jobs[at == 0 ? pl->njobs - 1 : at - 1];
		if (!cand->skipped) {
			j = cand;
			break;
		}
	}
	pthread_mutex_unlock(&pl->lock);
	return j;
}

/* A worker: draws `first` (when not NULL), then every job it can take. */
static void work(pool *pl, job *first)
{
	af_font *font = NULL;
	af_render_cache *cache = NULL;
	af_error e = {0};
	job *j;

	/* the worker's own font (the first worker opens it before its first
	 * job, unless it has a job already), and its graphs' names' fills,
	 * kept from one graph to the next: the threads' graphs share most
	 * names */
	if ((first || worker_font(pl, &font, 0) == 0) &&
	    af_render_cache_new(&cache, &e) != AF_OK)
		report_error(input_name(pl->c->input), &e);
	if (!cache) {
		af_font_free(font);
		pthread_mutex_lock(&pl->lock);
		pl->failed = 1;
		pthread_mutex_unlock(&pl->lock);
		return;
	}
	while ((j = first ? first : next_job(pl)) != NULL) {
		first = NULL;
		if (render_job(pl, j, &font, cache)) {
			pthread_mutex_lock(&pl->lock);
			pl->failed = 1;
			pthread_mutex_unlock(&pl->lock);
			break;
		}
		pthread_mutex_lock(&pl->lock);
		pl->done++;
		progress_graphs(&pl->prog, pl->done, pl->drawn);
		pthread_mutex_unlock(&pl->lock);
	}
	af_render_cache_free(cache);
	af_font_free(font);
}

static void *worker(void *arg)
{
	work(arg, NULL);
	return NULL;
}

/* Biggest first; ties by thread id, so the order never depends on luck. */
static int by_time(const void *a, const void *b)
{
	const job *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return (x->info.tid > y->info.tid) - (x->info.tid < y->info.tid);
}

static int write_index(pool *pl, job *all)
{
	const cli *c = pl->c;
	const af_trace_info *ti = af_trace_get_info(pl->trace);
	af_index_entry *rows = calloc(pl->njobs ? pl->njobs : 1, sizeof *rows);
	af_index_entry whole = {0};
	af_index_options io = {0};
	char *names = NULL, sub[1024], t[48];
	size_t i, k = 0;
	int first = -1, f, r = -1;
	af_error e = {0};
	out_file out;
	const char *in = strchr(c->input, '/') ? strrchr(c->input, '/') + 1 : c->input;

	for (f = 0; f <= AF_FORMAT_FOLDED && first < 0; f++)
		if (c->formats & (1 << f) && f != AF_FORMAT_FOLDED)
			first = f;
	if (first < 0)
		first = AF_FORMAT_FOLDED;
	names = malloc((pl->njobs + 1) * 2 * 128);
	if (!rows || !names) {
		fputs(PROG ": out of memory\n", stderr);
		goto done;
	}
	for (i = 0; i < pl->njobs; i++) {
		job *j = &pl->jobs[i];
		af_index_entry *e2 = j->thread == ALL ? &whole : &rows[k++];
		char *g = names + i * 256, *th = g + 128;
		snprintf(g, 128, "%s%s", j->base, ext_of[first]);
		snprintf(th, 128, "%s.thumb.png", j->base);
		e2->name = j->thread == ALL ? "All threads" : j->info.name;
		e2->tid = j->info.tid;
		for (f = 0; f < AF_CLOCK_COUNT; f++)
			e2->time[f] = j->skipped ? j->info.total[f] : j->total[f];
		e2->share = j->share;
		e2->records = j->info.records;
		e2->calls = j->info.calls;
		e2->hot_frame = j->hot;
		e2->hot_self = j->hot_self;
		e2->graph = j->skipped ? NULL : g;
		e2->thumb = j->skipped ? NULL : th;
	}
	af_format_us(t, sizeof t, all->info.total[pl->clock]);
	snprintf(sub, sizeof sub, "%s \xE2\x80\x94 %zu threads, %s clock, %s in all; "
	         "threads by the time their graphs hold", in, k,
	         pl->clock == AF_CLOCK_WALL ? "wall"
	         : pl->clock == AF_CLOCK_CPU ? "thread-cpu" : "wait", t);
	io.title = "Flame graphs by thread";
	io.subtitle = sub;
	io.clock = pl->clock;
	io.has_clock[AF_CLOCK_WALL] = ti->has_clock[AF_CLOCK_WALL];
	io.has_clock[AF_CLOCK_CPU] = ti->has_clock[AF_CLOCK_CPU];
	io.has_clock[AF_CLOCK_WAIT] = pl->clock == AF_CLOCK_WAIT;
	io.view_rules = c->tree.focus || c->tree.exclude;
	io.all = &whole;
	io.min_share = c->min_share;
	io.dark = c->render.dark;
	/* opened last, so put in place last */
	if (out_begin_in(&out, &pl->dir, "index.html") == 0) {
		af_status st = af_html_index_write(out.f, &io, rows, k, &e);
		if (out_end(&out, st, &e, input_name(c->input)) == 0)
			r = 0;
	}
done:
	free(rows);
	free(names);
	return r;
}

int run_set(const cli *c, const af_trace *trace, af_clock clock)
{
	pool pl;
	size_t i, n = af_trace_thread_count(trace);
	uint64_t sum = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int workers = c->jobs > 0 ? c->jobs : cores > 0 ? (int)cores : 1;
	pthread_t *tids = NULL;
	job *first;
	int status = 1, w, started = 0, sure;
	af_error e = {0};

	memset(&pl, 0, sizeof pl);
	pl.c = c;
	pl.trace = trace;
	pl.clock = clock;
	if (c->nameattr &&
	    af_namemap_load(c->nameattr, AF_NAMEMAP_ATTRS, &pl.nameattr, &e) != AF_OK) {
		report_error(c->nameattr, &e);
		return 1;
	}
	print_namemap_warning(c->nameattr, pl.nameattr);
	/* the merged graph first, then every thread with time on the clock */
	pl.jobs = calloc(n + 1, sizeof *pl.jobs);
	if (!pl.jobs) {
		fputs(PROG ": out of memory\n", stderr);
		af_namemap_free(pl.nameattr);
		return 1;
	}
	for (i = 0; i < n; i++) {
		job *j = &pl.jobs[pl.njobs];
		af_trace_thread(trace, i, &j->info);
		if (!j->info.records || !wanted(c, &j->info))
			continue;
		j->thread = i;
		safe_name(j->base, sizeof j->base, j->info.tid, j->info.name);
		sum += j->info.total[clock];
		pl.njobs++;
	}
	for (i = 0; i < pl.njobs; i++) {
		job *j = &pl.jobs[i];
		j->share = sum ? 100.0 * (double)j->info.total[clock] / (double)sum : 0;
		j->skipped = j->share < c->min_share || j->info.total[clock] == 0;
	}
	qsort(pl.jobs, pl.njobs, sizeof *pl.jobs, by_time);
	{
		job *all = &pl.jobs[pl.njobs++];
		all->thread = ALL;
		strcpy(all->base, "all");
		all->share = 100;
		all->info.name = "All threads";
		all->info.total[clock] = sum;
		for (i = 0; i + 1 < pl.njobs; i++) {
			all->info.records += pl.jobs[i].info.records;
			all->info.calls += pl.jobs[i].info.calls;
		}
	}
	for (i = 0; i < pl.njobs; i++)
		pl.drawn += !pl.jobs[i].skipped;
	/* the merged graph says whether there is anything to draw, before
	 * the folder is made; threads with time on a recorded clock and no
	 * rule that takes frames away always draw something, and then the
	 * merged graph is built by the pool, alongside the threads' */
	sure = sum > 0 && clock != AF_CLOCK_WAIT && !c->tree.focus && !c->tree.exclude &&
	       !(c->tree.min_share > 0);
	if ((!sure && job_tree(&pl, &pl.jobs[pl.njobs - 1], &pl.jobs[pl.njobs - 1].tree) != 0) ||
	    out_dir_begin(&pl.dir, c->output) != 0) {
		af_tree_free(pl.jobs[pl.njobs - 1].tree);
		for (i = 0; i < pl.njobs; i++)
			free(pl.jobs[i].hot);
		free(pl.jobs);
		af_namemap_free(pl.nameattr);
		return 1;
	}
	progress_init(&pl.prog, c);
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.font_ready, NULL);
	if ((size_t)workers > pl.drawn)
		workers = (int)(pl.drawn ? pl.drawn : 1);
	/* this thread takes the first job (the merged graph), then works
	 * beside the others */
	first = next_job(&pl);
	if (workers > 1 && !(tids = calloc((size_t)workers - 1, sizeof *tids)))
		workers = 1;
	for (w = 1; w < workers; w++)
		if (pthread_create(&tids[started], NULL, worker, &pl) == 0)
			started++;
	work(&pl, first);
	for (w = 0; w < started; w++)
		pthread_join(tids[w], NULL);
	progress_end(&pl.prog);
	if (!pl.failed && write_index(&pl, &pl.jobs[pl.njobs - 1]) == 0)
		status = 0;
	pthread_mutex_destroy(&pl.lock);
	pthread_cond_destroy(&pl.font_ready);
	af_font_free(pl.font);
	for (i = 0; i < pl.njobs; i++) {
		free(pl.jobs[i].hot);
		af_tree_free(pl.jobs[i].tree);
	}
	out_dir_end(&pl.dir);
	free(pl.jobs);
	free(tids);
	af_namemap_free(pl.nameattr);
	return status;
}
