/*
 * method_name.c - a method's frame name as traces show it: its class (with
 * dots where Dalvik writes slashes) and its name, then, when asked, its
 * parameter types in source form.
 */
#include <string.h>

#include "java.h"
#include "trace.h"

/* "(Ljava/lang/String;I)V" -> "(java.lang.String, int)"; the descriptor
 * as written when it does not parse. */
static int af_append_params(af_buf *b, const char *sig)
{
	size_t len = strlen(sig), i = 1, mark = b->len;
	int first = 1, r;

	if (len == 0)
		return 0;
	if (sig[0] != '(')
		goto raw;
	if (af_buf_append(b, "(", 1))
		return -1;
	while (i < len && sig[i] != ')') {
		if (!first && af_buf_append(b, ", ", 2))
			return -1;
		first = 0;
		r = af_java_type(b, sig, len, &i, NULL, NULL);
		if (r == -2)
			return -1;
		if (r)
			goto raw;
	}
	if (i >= len)
		goto raw;
	return af_buf_append(b, ")", 1);
raw:
	b->len = mark;
	return af_buf_append(b, sig, len);
}

uint32_t af_trace_frame_name(const af_trace *t, uint32_t mid, int signatures,
                             af_names *names)
{
	af_buf b = {.mem = names->mem};
	uint32_t idx, id = AF_NONE;

	if (af_trace_method(t, mid, &idx)) {
		const af_method *m = &t->methods[idx];
		size_t nc = strlen(m->cls), nm = strlen(m->name), len;
		/* most names fit on the stack: a buffer per name costs more */
		char tmp[256], *o = nc + 1 + nm <= sizeof tmp ? tmp : af_malloc(b.mem, nc + 1 + nm);
		char *sl;
		if (!o)
			return AF_NONE;
		memcpy(o, m->cls, nc); /* Dalvik writes classes with slashes */
		for (sl = memchr(o, '/', nc); sl; sl = memchr(sl, '/', nc - (size_t)(sl - o)))
			*sl++ = '.';
		len = nc;
		if (nc)
			o[len++] = '.';
		memcpy(o + len, m->name, nm);
		len += nm;
		if (!signatures)
			id = af_names_intern_clean(names, o, len);
		else if (!(af_buf_append(&b, o, len) | af_append_params(&b, m->sig)))
			id = af_names_intern_clean(names, b.data, b.len);
		if (o != tmp)
			af_free(b.mem, o);
	} else if (!af_buf_printf(&b, "(unknown method 0x%x)", mid)) {
		id = af_names_intern_clean(names, b.data, b.len);
	}
	af_buf_free(&b);
	return id;
}
