/*
 * style.c - frame colours, tooltips and XML escaping for the renderers.
 */
#include <string.h>

#include "style.h"

af_rgb af_style_color(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const unsigned char *p;
	af_rgb c;
	double v1, v2, v3;

	for (p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	/* spread the bits before cutting the hash into three fractions */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	v1 = (double)(h & 0xFFFF) / 65536.0;
	v2 = (double)((h >> 16) & 0xFFFF) / 65536.0;
	v3 = (double)((h >> 32) & 0xFFFF) / 65536.0;
	/* flamegraph.pl's "hot": red fixed high, green and some blue vary */
	c.r = (unsigned char)(205 + (int)(50 * v3));
	c.g = (unsigned char)(int)(230 * v1);
	c.b = (unsigned char)(int)(55 * v2);
	return c;
}

void af_style_time(char *out, size_t n, uint64_t us)
{
	if (us < 1000)
		snprintf(out, n, "%llu \xC2\xB5s", (unsigned long long)us);
	else if (us < 10000)
		snprintf(out, n, "%.2f ms", (double)us / 1e3);
	else if (us < 1000000)
		snprintf(out, n, "%.1f ms", (double)us / 1e3);
	else if (us < 10000000)
		snprintf(out, n, "%.3f s", (double)us / 1e6);
	else
		snprintf(out, n, "%.2f s", (double)us / 1e6);
}

int af_style_tooltip(af_buf *b, const af_layout *l, const af_rect *r)
{
	af_node_info ni;
	char t[48];
	double pct;
	int bad;

	af_tree_node(l->tree, r->node, &ni);
	af_style_time(t, sizeof t, ni.total[l->clock]);
	pct = l->total ? 100.0 * (double)ni.total[l->clock] / (double)l->total : 0;
	bad = af_buf_append(b, ni.name, strlen(ni.name));
	bad |= af_buf_printf(b, " (%s, %.2f%%", t, pct);
	if (ni.calls)
		bad |= af_buf_printf(b, ", %llu call%s", (unsigned long long)ni.calls,
		                     ni.calls == 1 ? "" : "s");
	bad |= af_buf_append(b, ")", 1);
	return bad;
}

void af_xml_escape(FILE *out, const char *s, size_t len)
{
	size_t i = 0, run = 0;

	/* copy clean runs in one call; stop at anything that needs care */
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		size_t k = 1;
		uint32_t cp;

		if (c >= 0x20 && c < 0x7F && c != '&' && c != '<' && c != '>' &&
		    c != '"' && c != '\'') {
			i++;
			run++;
			continue;
		}
		if (run)
			fwrite(s + i - run, 1, run, out);
		run = 0;
		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default:
			k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
			if (k == 0) {
				rep = "\xEF\xBF\xBD";
				k = 1;
			} else if (cp < 0x20 || cp == 0x7F || cp == 0xFFFE || cp == 0xFFFF) {
				rep = "";
			} else {
				fwrite(s + i, 1, k, out);
			}
			break;
		}
		if (rep)
			fputs(rep, out);
		i += k;
	}
	if (run)
		fwrite(s + i - run, 1, run, out);
}
