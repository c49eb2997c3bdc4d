/*
 * profile.c - what dmtracedump gives besides a profile's numbers, from the
 * library: the method table (--report: TSV, text, or an HTML page with
 * each method's callers and callees), the call graph (--call-graph,
 * -o FILE.dot) and the record dump (--dump).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *clock_name(af_clock clock)
{
	return clock == AF_CLOCK_WALL  ? "wall"
	       : clock == AF_CLOCK_CPU ? "thread-cpu"
	                               : "wait";
}

/* The view's call tree and its call graph; 0, or 1 after a message. */
static int build(const cli *c, const af_trace *trace, af_clock clock, af_tree **tree,
                 af_call_graph **graph)
{
	af_tree_options topt = c->tree;
	af_error e = {0};

	/* every call path, callers before callees */
	topt.prune = 0;
	topt.reverse = 0;
	topt.clock = clock;
	*tree = NULL;
	*graph = NULL;
	if (af_tree_from_trace(trace, &topt, tree, &e) != AF_OK ||
	    af_call_graph_build(*tree, clock, graph, &e) != AF_OK) {
		report_error(input_name(c->input), &e);
		af_tree_free(*tree);
		*tree = NULL;
		return 1;
	}
	return 0;
}

int run_report(const cli *c, const af_trace *trace, af_clock clock)
{
	af_tree *tree;
	af_call_graph *graph;
	af_error e = {0};
	out_file out;
	int status = 1;

	if (build(c, trace, clock, &tree, &graph))
		return 1;
	if (out_begin(&out, c->report) == 0) {
		af_status st;
		if (c->report_html) {
			char title[1024], sub[512], total[48];
			af_profile_options popt = {0};
			const af_method_table *t = &graph->methods;
			if (t->is_time)
				af_format_us(total, sizeof total, t->total);
			else
				snprintf(total, sizeof total, "%llu",
				         (unsigned long long)t->total);
			snprintf(title, sizeof title, "Profile of %s",
			         input_name(c->input));
			snprintf(sub, sizeof sub, "%zu methods, %s%s%s%s in all",
			         t->nrows, total, t->is_time ? " of " : "",
			         t->is_time ? clock_name(clock) : "",
			         t->is_time ? " time" : "");
			popt.title = c->layout.title ? c->layout.title : title;
			popt.subtitle = c->layout.subtitle ? c->layout.subtitle : sub;
			st = af_profile_html_write(graph, &popt, out.f, &e);
		} else {
			st = af_method_table_write(&graph->methods, c->report_format,
			                           out.f, &e);
		}
		if (out_end(&out, st, &e, input_name(c->input)) == 0)
			status = 0;
	}
	af_call_graph_free(graph);
	af_tree_free(tree);
	return status;
}

int run_call_graph(const cli *c, const af_trace *trace, af_clock clock)
{
	af_tree *tree;
	af_call_graph *graph;
	af_call_graph_options gopt = {0};
	af_error e = {0};
	af_status st;
	char title[1024];
	out_file out;
	int status = 1;

	if (build(c, trace, clock, &tree, &graph))
		return 1;
	snprintf(title, sizeof title,
	         "Call graph of %s: %s%s, callees with at least %g%% "
	         "of their caller's time",
	         input_name(c->input),
	         graph->methods.is_time ? clock_name(clock) : "counts",
	         graph->methods.is_time ? " time" : "", c->call_graph_threshold);
	gopt.title = c->layout.title ? c->layout.title : title;
	gopt.threshold = c->call_graph_threshold;
	gopt.scale = c->render.scale;
	gopt.dark = c->render.dark;
	if (out_begin(&out, c->output) == 0) {
		st = c->format == AF_FORMAT_DOT
		         ? af_call_graph_write_dot(graph, &gopt, out.f, &e)
		         : af_call_graph_render(graph, &gopt, c->format, out.f, &e);
		if (out_end(&out, st, &e, input_name(c->input)) == 0)
			status = 0;
	}
	af_call_graph_free(graph);
	af_tree_free(tree);
	return status;
}

int run_dump(const cli *c)
{
	af_error e = {0};
	out_file out;

	if (out_begin(&out, c->output))
		return 1;
	return out_end(&out, af_trace_dump(c->input, &c->parse, out.f, &e), &e,
	               input_name(c->input)) == 0
	           ? 0
	           : 1;
}
