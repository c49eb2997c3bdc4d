/*
 * app.c - a program written against the installed library, as a user
 * would: reads a trace, prints what it holds and draws it as an SVG with
 * the installed font configuration.  tests/install/run.sh builds it with
 * pkg-config and with find_package(aflame) and runs it.
 */
#include <stdio.h>

#include <aflame/aflame.h>

int main(int argc, char **argv)
{
	af_trace *trace = NULL;
	af_tree *tree = NULL;
	af_layout *layout = NULL;
	af_font *font = NULL;
	af_error err = {0};
	af_tree_options topt = {0};
	af_layout_options lopt = {0};
	af_render_options ropt = {0};
	FILE *out;
	int ok = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: app TRACE OUT.svg\n");
		return 2;
	}
	if (af_trace_open(argv[1], NULL, &trace, &err) != AF_OK ||
	    af_tree_from_trace(trace, &topt, &tree, &err) != AF_OK ||
	    af_layout_build(tree, &lopt, &layout, &err) != AF_OK ||
	    af_font_open(NULL, &font, &err) != AF_OK) {
		fprintf(stderr, "app: %s: %s (byte %lld)\n", argv[1], err.message, err.offset);
		goto done;
	}
	ropt.font = font;
	out = fopen(argv[2], "wb");
	if (!out) {
		perror(argv[2]);
		goto done;
	}
	ok = af_svg_write(layout, &ropt, out, &err) == AF_OK;
	ok = fclose(out) == 0 && ok;
	if (!ok) {
		fprintf(stderr, "app: %s: %s\n", argv[2], err.message);
		goto done;
	}
	printf("%u threads, %zu frames drawn\n", af_trace_get_info(trace)->threads_with_records,
	       layout->nrects);
done:
	af_font_free(font);
	af_layout_free(layout);
	af_tree_free(tree);
	af_trace_free(trace);
	return ok ? 0 : 1;
}
