/*
 * report.c - what the command says on standard error: errors with the
 * file and byte, warnings about damaged input, -v summaries, progress.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Text from an input or a file name, made safe for a terminal in `buf`;
 * the library's messages come escaped already. */
static const char *safe(const char *s, char *buf, size_t n)
{
	af_text_escape(buf, n, s, strlen(s));
	return buf;
}

void report_error(const char *file, const af_error *e)
{
	char f[4096];

	safe(file, f, sizeof f);
	if (e->line > 0)
		fprintf(stderr, PROG ": %s: %s (line %lld)\n", f, e->message, e->line);
	else if (e->offset >= 0)
		fprintf(stderr, PROG ": %s: %s (byte %lld)\n", f, e->message, e->offset);
	else
		fprintf(stderr, PROG ": %s: %s\n", f, e->message);
}

const char *input_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "(stdin)" : path;
}

void print_namemap_warning(const char *file, const af_namemap *m)
{
	const char *w = m ? af_namemap_warning(m) : NULL;

	if (w)
		fprintf(stderr, PROG ": %s: warning: %s\n", file, w);
}

static const char *variant_name(af_variant v)
{
	switch (v) {
	case AF_VARIANT_REGULAR: return "regular";
	case AF_VARIANT_STREAMING: return "streaming";
	case AF_VARIANT_KEY_DATA: return "key+data pair";
	case AF_VARIANT_FOLDED: return "folded";
	case AF_VARIANT_ART_V2: return "ART V2";
	case AF_VARIANT_SYSTRACE: return "systrace";
	case AF_VARIANT_PERFETTO: return "perfetto";
	case AF_VARIANT_BTRACE: return "btrace";
	case AF_VARIANT_ART_V6: return "ART long-running methods";
	}
	return "?";
}

void print_summary(const char *name, const af_trace *t)
{
	const af_trace_info *i = af_trace_get_info(t);
	char file[4096], vm[256];

	safe(name, file, sizeof file);
	safe(*i->vm ? i->vm : "?", vm, sizeof vm);
	if (i->pprof) {
		char type[256], unit[256];
		safe(i->sample_type, type, sizeof type);
		safe(i->sample_unit, unit, sizeof unit);
		fprintf(stderr, "%s: pprof profile%s, sample type %s (%s): %llu samples "
		        "with a value\n", file, i->gzip ? " (gzip)" : "", type, unit,
		        (unsigned long long)i->lines);
		return;
	}
	if (i->perfetto_profile) {
		char type[256];
		safe(i->sample_type, type, sizeof type);
		fprintf(stderr, "%s: Perfetto trace%s, %s: %llu samples with a value in "
		        "%zu %s, %u processes\n", file, i->gzip ? " (gzip)" : "",
		        i->perfetto_profile == 1 ? type : "CPU samples",
		        (unsigned long long)i->records, af_trace_thread_count(t),
		        i->perfetto_profile == 1 ? "heaps" : "threads", i->processes);
		return;
	}
	if (i->variant == AF_VARIANT_FOLDED) {
		fprintf(stderr, "%s: folded stacks%s%s: %llu lines, %llu ignored\n", file,
		        i->gzip ? " (gzip)" : "", i->differential ? ", differential" : "",
		        (unsigned long long)i->lines, (unsigned long long)i->ignored_lines);
		return;
	}
	if (i->variant == AF_VARIANT_SYSTRACE) {
		fprintf(stderr, "%s: systrace text%s: %llu ftrace lines, %llu other lines\n"
		        "  slices: %llu begun, %llu ended, %llu open at end (closed at "
		        "their thread's last event); names: %u\n"
		        "  threads with slices: %u, processes: %u; unmatched ends: %llu\n"
		        "  ignored: %llu async marks, %llu counters, %llu other marks; "
		        "clock steps backwards: %llu\n", file, i->gzip ? " (gzip)" : "",
		        (unsigned long long)i->lines, (unsigned long long)i->ignored_lines,
		        (unsigned long long)i->enters, (unsigned long long)i->exits,
		        (unsigned long long)i->open_at_end, i->methods,
		        i->threads_with_records, i->processes,
		        (unsigned long long)i->unmatched_ends,
		        (unsigned long long)i->async_ignored,
		        (unsigned long long)i->counters_ignored,
		        (unsigned long long)i->marks_ignored,
		        (unsigned long long)i->time_backwards[AF_CLOCK_WALL]);
		return;
	}
	if (i->variant == AF_VARIANT_PERFETTO) {
		fprintf(stderr, "%s: Perfetto trace%s: %llu packets\n"
		        "  slices: %llu begun, %llu ended, %llu open at end (closed at "
		        "their thread's last event); names: %u\n"
		        "  threads with slices: %u, processes: %u; unmatched ends: %llu\n"
		        "  ignored: %llu async marks, %llu counters, %llu other marks and "
		        "instants, %llu events whose sequence lost its state; clock steps "
		        "backwards: %llu\n", file, i->gzip ? " (gzip)" : "",
		        (unsigned long long)i->lines,
		        (unsigned long long)i->enters, (unsigned long long)i->exits,
		        (unsigned long long)i->open_at_end, i->methods,
		        i->threads_with_records, i->processes,
		        (unsigned long long)i->unmatched_ends,
		        (unsigned long long)i->async_ignored,
		        (unsigned long long)i->counters_ignored,
		        (unsigned long long)i->marks_ignored,
		        (unsigned long long)i->events_no_state,
		        (unsigned long long)i->time_backwards[AF_CLOCK_WALL]);
		return;
	}
	if (i->variant == AF_VARIANT_BTRACE) {
		fprintf(stderr, "%s: btrace 2.0 trace%s, 16-byte records, clock wall: "
		        "%llu calls on %u threads\n"
		        "  methods: %u%s; calls clipped to their caller: %llu; starts "
		        "clamped: %llu; calls left from an earlier run: %llu; truncated "
		        "bytes: %llu\n", file, i->gzip ? " (gzip)" : "",
		        (unsigned long long)i->enters, i->threads_with_records, i->methods,
		        i->names_missing ? " (no mapping: named method#ID)" : "",
		        (unsigned long long)i->calls_clipped,
		        (unsigned long long)i->starts_clamped,
		        (unsigned long long)i->calls_stale,
		        (unsigned long long)i->truncated_bytes);
		return;
	}
	const char *clock = i->has_clock[0] && i->has_clock[1] ? "dual"
	                    : i->has_clock[AF_CLOCK_WALL]       ? "wall"
	                                                        : "thread-cpu";
	char records[32];

	if (i->record_size)
		snprintf(records, sizeof records, "%u-byte", i->record_size);
	else
		snprintf(records, sizeof records, "LEB128"); /* ART V2 */
	fprintf(stderr,
	        "%s: %s trace%s, version %u (0x%X), %s records, clock %s%s, vm %s\n"
	        "  threads: %u declared, %u with records (%u not declared)\n"
	        "  methods: %u; records: %llu (%llu enters, %llu exits, %llu unwinds)\n"
	        "  orphan exits (re-rooted): %llu; mismatched exits: %llu; "
	        "open at end: %llu\n"
	        "  unknown method ids: %u (%llu calls); bad actions: %llu; "
	        "thread id collisions: %u\n"
	        "  clock steps backwards: cpu %llu, wall %llu; truncated bytes: %llu%s%s\n",
	        file, variant_name(i->variant), i->gzip ? " (gzip)" : "", i->version,
	        i->version, records, clock, i->clock_assumed ? " (inferred)" : "",
	        vm, i->threads_declared, i->threads_with_records,
	        i->unknown_threads, i->methods, (unsigned long long)i->records,
	        (unsigned long long)i->enters, (unsigned long long)i->exits,
	        (unsigned long long)i->unwinds, (unsigned long long)i->orphan_exits,
	        (unsigned long long)i->mismatched_exits,
	        (unsigned long long)i->open_at_end, i->unknown_methods,
	        (unsigned long long)i->unknown_method_calls,
	        (unsigned long long)i->bad_actions, i->thread_id_collisions,
	        (unsigned long long)i->time_backwards[AF_CLOCK_CPU],
	        (unsigned long long)i->time_backwards[AF_CLOCK_WALL],
	        (unsigned long long)i->truncated_bytes,
	        i->summary_missing ? "; summary missing" : "",
	        i->overflow ? "; buffer overflowed (data-file-overflow=true)" : "");
}

void print_warnings(const char *name, const af_trace *t)
{
	const af_trace_info *i = af_trace_get_info(t);
	char file[4096];

	safe(name, file, sizeof file);

	if (i->summary_missing && i->variant == AF_VARIANT_ART_V2)
		fprintf(stderr, PROG ": %s: warning: ART V2 trace ends without its "
		        "summary; assumed clock %s from its version, and µs deltas unless "
		        "its header names a tick rate (byte %llu)\n", file,
		        (i->version & 0xF) == 5 ? "dual" : "wall",
		        (unsigned long long)i->data_end);
	else if (i->summary_missing)
		fprintf(stderr, PROG ": %s: warning: streaming trace ends without its "
		        "summary; assumed clock %s from %u-byte records (byte %llu)\n", file,
		        i->record_size >= 14 ? "dual" : "wall", i->record_size,
		        (unsigned long long)i->data_end);
	if (i->truncated_bytes)
		fprintf(stderr, PROG ": %s: warning: ignored %llu bytes of a cut-off "
		        "last record or item (byte %llu)\n", file,
		        (unsigned long long)i->truncated_bytes,
		        (unsigned long long)i->data_end);
	if (i->overflow)
		fprintf(stderr, PROG ": %s: warning: the tracing buffer overflowed; "
		        "later calls are missing\n", file);
	if (i->unknown_methods)
		fprintf(stderr, PROG ": %s: warning: %llu calls of %u method ids missing "
		        "from the method table, drawn as \"(unknown method 0x...)\"\n", file,
		        (unsigned long long)i->unknown_method_calls, i->unknown_methods);
	if (i->thread_id_collisions)
		fprintf(stderr, PROG ": %s: warning: %u *threads entries have the "
		        "record id of an earlier entry; the first one's name is used\n",
		        file, i->thread_id_collisions);
	if (i->variant == AF_VARIANT_ART_V6 && i->unmatched_ends)
		fprintf(stderr, PROG ": %s: warning: ignored %llu exits of calls begun "
		        "before the deepest stack ART recorded when tracing started\n",
		        file, (unsigned long long)i->unmatched_ends);
	if (i->variant == AF_VARIANT_BTRACE) {
		if (i->names_missing)
			fprintf(stderr, PROG ": %s: warning: btrace names its methods in a "
			        "separate mapping file; without --btrace-mapping FILE they "
			        "are drawn as method#ID\n", file);
		if (i->calls_clipped)
			fprintf(stderr, PROG ": %s: warning: %llu calls began inside another "
			        "call of their thread and ended after it; each was cut at "
			        "the end of the call it began in\n", file,
			        (unsigned long long)i->calls_clipped);
		if (i->calls_stale)
			fprintf(stderr, PROG ": %s: warning: ignored %llu calls that ended "
			        "before tracing last (re)started, left from an earlier run\n",
			        file, (unsigned long long)i->calls_stale);
		return;
	}
	if (i->variant == AF_VARIANT_SYSTRACE || i->variant == AF_VARIANT_PERFETTO) {
		if (i->ignored_lines)
			fprintf(stderr, PROG ": %s: warning: ignored %llu lines that are no "
			        "ftrace event, the first at byte %llu\n", file,
			        (unsigned long long)i->ignored_lines,
			        (unsigned long long)i->first_ignored_line);
		if (i->open_at_end)
			fprintf(stderr, PROG ": %s: warning: %llu slices still open at the "
			        "end, closed at their thread's last event\n", file,
			        (unsigned long long)i->open_at_end);
		if (i->unmatched_ends)
			fprintf(stderr, PROG ": %s: warning: ignored %llu slice ends with no "
			        "slice open on their thread\n", file,
			        (unsigned long long)i->unmatched_ends);
		if (i->trailing_bytes)
			fprintf(stderr, PROG ": %s: warning: ignored %llu bytes after the "
			        "end of the compressed trace\n", file,
			        (unsigned long long)i->trailing_bytes);
		return;
	}
	if (i->ignored_lines)
		fprintf(stderr, PROG ": %s: warning: ignored %llu lines that are not "
		        "\"frame;frame COUNT\", the first at byte %llu\n", file,
		        (unsigned long long)i->ignored_lines,
		        (unsigned long long)i->first_ignored_line);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(progress *p, const cli *c)
{
	p->on = !c->quiet && isatty(2);
	p->start = now();
	p->shown = 0;
}

void progress_bytes(void *ctx, uint64_t done, uint64_t total)
{
	progress *p = ctx;
	if (!p->on || now() - p->start < 1)
		return;
	fprintf(stderr, "\r" PROG ": parsed %.0f of %.0f MB", (double)done / 1e6,
	        (double)total / 1e6);
	p->shown = 1;
}

void progress_graphs(progress *p, size_t done, size_t total)
{
	if (!p->on || now() - p->start < 1)
		return;
	fprintf(stderr, "\r" PROG ": rendered %zu of %zu graphs      ", done, total);
	p->shown = 1;
}

void progress_end(progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}
