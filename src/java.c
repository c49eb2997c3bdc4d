/*
 * java.c - Java names: descriptor types ("[I", "Lcom/x/Foo;") in the form
 * the source writes them ("int[]", "com.x.Foo").
 */
#include <string.h>

#include "java.h"

int af_java_type(af_buf *b, const char *d, size_t len, size_t *i,
                 const char *(*rename)(const void *ctx, const char *cls),
                 const void *ctx)
{
	size_t dims = 0, k;
	const char *prim = NULL;

	while (*i < len && d[*i] == '[') {
		dims++;
		(*i)++;
	}
	if (*i >= len)
		return -1;
	switch (d[*i]) {
	case 'B': prim = "byte"; break;
	case 'C': prim = "char"; break;
	case 'D': prim = "double"; break;
	case 'F': prim = "float"; break;
	case 'I': prim = "int"; break;
	case 'J': prim = "long"; break;
	case 'S': prim = "short"; break;
	case 'Z': prim = "boolean"; break;
	case 'V': prim = "void"; break;
	case 'L': {
		size_t end = *i + 1, from = b->len;
		const char *to;
		while (end < len && d[end] != ';')
			end++;
		if (end >= len || end == *i + 1)
			return -1;
		if (af_buf_append(b, d + *i + 1, end - *i - 1))
			return -2;
		for (k = from; k < b->len; k++)
			if (b->data[k] == '/')
				b->data[k] = '.';
		if (rename && (to = rename(ctx, b->data + from)) != NULL) {
			b->len = from;
			if (af_buf_append(b, to, strlen(to)))
				return -2;
		}
		*i = end + 1;
		break;
	}
	default:
		return -1;
	}
	if (prim) {
		if (af_buf_append(b, prim, strlen(prim)))
			return -2;
		(*i)++;
	}
	while (dims--)
		if (af_buf_append(b, "[]", 2))
			return -2;
	return 0;
}
