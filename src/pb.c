/*
 * pb.c - protobuf-c's allocator from an af_mem, and a walk of the wire
 * structure that tells where bytes protobuf-c refused go wrong.
 */
#include <string.h>

#include "pb.h"

static void *af_pb_malloc(void *data, size_t size)
{
	af_pb_alloc *a = data;
	void *p = af_malloc(a->mem, size);

	if (!p)
		a->failed = 1;
	return p;
}

static void af_pb_free(void *data, void *p)
{
	af_pb_alloc *a = data;

	af_free(a->mem, p);
}

void af_pb_alloc_init(af_pb_alloc *a, af_mem *mem)
{
	a->pc.alloc = af_pb_malloc;
	a->pc.free = af_pb_free;
	a->pc.allocator_data = a;
	a->mem = mem;
	a->failed = 0;
	a->chunk = a->next = NULL;
	a->size = 0;
	a->left = 0;
}

/* An arena's chunks: 1 MiB, or one block larger than that. */
#define AF_PB_CHUNK (1u << 20)
#define AF_PB_ALIGN 16u

static void *af_pb_arena_malloc(void *data, size_t size)
{
	af_pb_alloc *a = data;
	size_t need = (size + AF_PB_ALIGN - 1) & ~(size_t)(AF_PB_ALIGN - 1);
	char *p;

	if (need < size)
		return a->failed = 1, NULL;
	if (need > a->left) {
		/* a new chunk; its first AF_PB_ALIGN bytes link the one before */
		size_t n = need > AF_PB_CHUNK - AF_PB_ALIGN ? need + AF_PB_ALIGN : AF_PB_CHUNK;
		char *c = af_malloc(a->mem, n);
		if (!c)
			return a->failed = 1, NULL;
		memcpy(c, &a->chunk, sizeof a->chunk);
		a->chunk = c;
		a->next = c + AF_PB_ALIGN;
		a->left = n - AF_PB_ALIGN;
		a->size = n;
	}
	p = a->next;
	a->next += need;
	a->left -= need;
	return p;
}

static void af_pb_arena_free(void *data, void *p)
{
	(void)data;
	(void)p;
}

void af_pb_arena_init(af_pb_alloc *a, af_mem *mem)
{
	af_pb_alloc_init(a, mem);
	a->pc.alloc = af_pb_arena_malloc;
	a->pc.free = af_pb_arena_free;
}

void af_pb_arena_reset(af_pb_alloc *a)
{
	char *newest = a->chunk, *before, *none = NULL;

	if (!newest)
		return;
	memcpy(&before, newest, sizeof before);
	a->chunk = before;
	af_pb_alloc_release(a); /* the older chunks */
	memcpy(newest, &none, sizeof none); /* now the only one */
	a->chunk = newest;
	a->next = newest + AF_PB_ALIGN;
	a->left = a->size - AF_PB_ALIGN;
}

void af_pb_alloc_release(af_pb_alloc *a)
{
	while (a->chunk) {
		char *before;
		memcpy(&before, a->chunk, sizeof before);
		af_free(a->mem, a->chunk);
		a->chunk = before;
	}
	a->next = NULL;
	a->left = 0;
}

/* The most nested messages the walk follows (protobuf's own default). */
#define AF_PB_MAX_DEPTH 100

enum { AF_WT_VARINT = 0, AF_WT_I64 = 1, AF_WT_LEN = 2, AF_WT_I32 = 5 };

/* A varint at b[*p] (before `end`): 0 and the value, 1 when the bytes end
 * inside it, 2 when it runs past ten bytes. */
static int af_pb_varint(const uint8_t *b, size_t *p, size_t end, uint64_t *v)
{
	size_t i = *p;
	unsigned shift = 0;

	*v = 0;
	for (;;) {
		if (i >= end)
			return 1;
		if (i - *p == 10)
			return 2;
		*v |= (uint64_t)(b[i] & 0x7F) << (shift < 64 ? shift : 0);
		shift += 7;
		if (!(b[i++] & 0x80))
			break;
	}
	*p = i;
	return 0;
}

/* The wire type a field of type `type` is written with, unpacked. */
static int af_pb_wire_type(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return AF_WT_I64;
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return AF_WT_I32;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return AF_WT_LEN;
	default:
		return AF_WT_VARINT;
	}
}

static const char *af_pb_wire_name(int wt)
{
	static const char *const names[8] = {"varint", "64-bit", "length-delimited",
	                                     "group start", "group end", "32-bit",
	                                     "wire type 6", "wire type 7"};
	return names[wt & 7];
}

typedef struct af_pb_frame {
	const ProtobufCMessageDescriptor *desc;
	size_t end;
} af_pb_frame;

af_status af_pb_check(const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                      size_t len, long long base, const char *what, af_error *err)
{
	af_pb_frame stack[AF_PB_MAX_DEPTH];
	size_t depth = 1, p = 0;

	stack[0].desc = desc;
	stack[0].end = len;
	while (depth > 0) {
		const af_pb_frame *f = &stack[depth - 1];
		const ProtobufCFieldDescriptor *fd;
		size_t at = p, body;
		uint64_t tag, v;
		char fname[64];
		int wt, r;

		if (p == f->end) {
			depth--;
			continue;
		}
		if ((r = af_pb_varint(buf, &p, f->end, &tag)) != 0)
			return r == 2 ? af_fail(err, AF_ERR_FORMAT, base + (long long)at,
			                        "%s: a field tag (varint) longer than 10 bytes", what)
			              : af_fail(err, AF_ERR_TRUNCATED, base + (long long)at,
			                        "%s: the bytes of a %s end inside a field tag",
			                        what, f->desc->short_name);
		wt = (int)(tag & 7);
		if (tag >> 3 == 0 || tag >> 3 > 0x1FFFFFFF)
			return af_fail(err, AF_ERR_FORMAT, base + (long long)at,
			               "%s: a field of %s numbered %llu (not 1 to 536870911)",
			               what, f->desc->short_name, (unsigned long long)(tag >> 3));
		fd = protobuf_c_message_descriptor_get_field(f->desc, (unsigned)(tag >> 3));
		if (wt == 3 || wt == 4 || wt > 5)
			return af_fail(err, AF_ERR_FORMAT, base + (long long)at,
			               "%s: field %llu of %s has %s, which protobuf does not "
			               "allow here", what, (unsigned long long)(tag >> 3),
			               f->desc->short_name, af_pb_wire_name(wt));
		if (fd && wt != af_pb_wire_type(fd->type) &&
		    !(wt == AF_WT_LEN && fd->label == PROTOBUF_C_LABEL_REPEATED))
			return af_fail(err, AF_ERR_FORMAT, base + (long long)at,
			               "%s: field %s of %s has the %s wire type, not %s", what,
			               fd->name, f->desc->short_name, af_pb_wire_name(wt),
			               af_pb_wire_name(af_pb_wire_type(fd->type)));
		if (fd)
			snprintf(fname, sizeof fname, "%s", fd->name);
		else
			snprintf(fname, sizeof fname, "%llu", (unsigned long long)(tag >> 3));
		body = p;
		switch (wt) {
		case AF_WT_VARINT:
			r = af_pb_varint(buf, &p, f->end, &v);
			if (r == 2)
				return af_fail(err, AF_ERR_FORMAT, base + (long long)body,
				               "%s: a varint longer than 10 bytes in field %s of %s",
				               what, fname, f->desc->short_name);
			break;
		case AF_WT_I64:
		case AF_WT_I32: {
			size_t n = wt == AF_WT_I64 ? 8 : 4;
			r = f->end - p < n;
			if (!r)
				p += n;
			break;
		}
		default: /* length-delimited */
			r = af_pb_varint(buf, &p, f->end, &v);
			if (r == 2)
				return af_fail(err, AF_ERR_FORMAT, base + (long long)body,
				               "%s: a length (varint) longer than 10 bytes in "
				               "field %s of %s", what, fname,
				               f->desc->short_name);
			if (r == 0 && v > f->end - p) {
				long long at_end = f->end == len ? (long long)len : (long long)f->end;
				return af_fail(err, f->end == len ? AF_ERR_TRUNCATED : AF_ERR_FORMAT,
				               base + (long long)body,
				               "%s: field %s of %s is %llu bytes long, but %s "
				               "ends %zu bytes after its length, at byte %lld",
				               what, fname, f->desc->short_name,
				               (unsigned long long)v,
				               f->end == len ? "the input" : "its message",
				               f->end - p, base + at_end);
			}
			if (r)
				break;
			if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
				if (depth == AF_PB_MAX_DEPTH)
					return af_fail(err, AF_ERR_LIMIT, base + (long long)at,
					               "%s: messages nested more than %d deep",
					               what, AF_PB_MAX_DEPTH);
				stack[depth].desc = fd->descriptor;
				stack[depth].end = p + (size_t)v;
				depth++;
				continue;
			}
			if (fd && af_pb_wire_type(fd->type) != AF_WT_LEN) {
				/* packed numbers */
				size_t q = p, e = p + (size_t)v;
				int w = af_pb_wire_type(fd->type);
				if (w == AF_WT_VARINT) {
					while (q < e) {
						size_t vat = q;
						int rr = af_pb_varint(buf, &q, e, &tag);
						if (rr)
							return af_fail(err, AF_ERR_FORMAT,
							               base + (long long)vat,
							               rr == 2 ? "%s: a varint longer than 10 "
							                         "bytes in field %s of %s"
							                       : "%s: field %s of %s ends inside "
							                         "a varint",
							               what, fd->name, f->desc->short_name);
					}
				} else if (v % (w == AF_WT_I64 ? 8 : 4)) {
					return af_fail(err, AF_ERR_FORMAT, base + (long long)body,
					               "%s: field %s of %s holds %llu bytes, not a "
					               "whole number of %d-byte values", what, fd->name,
					               f->desc->short_name, (unsigned long long)v,
					               w == AF_WT_I64 ? 8 : 4);
				}
			}
			p += (size_t)v;
			break;
		}
		if (r)
			return af_fail(err, AF_ERR_TRUNCATED, base + (long long)body,
			               "%s: the bytes of a %s end inside field %s", what,
			               f->desc->short_name, fname);
	}
	return AF_OK;
}

/* Steps over the top-level field at *p: 0 and its number and wire type,
 * 1 when the bytes end inside it, -2 when a varint of it runs past ten
 * bytes, -1 when it is otherwise malformed. */
int af_pb_field(const uint8_t *buf, size_t len, size_t *p, af_pb_field_t *f)
{
	uint64_t tag;
	int r;

	f->at = *p;
	f->number = 0;
	f->wire = 0;
	if ((r = af_pb_varint(buf, p, len, &tag)) != 0)
		return r == 1 ? 1 : -2;
	f->wire = (int)(tag & 7);
	if (tag >> 3 == 0 || tag >> 3 > 0x1FFFFFFF)
		return -1;
	f->number = (uint32_t)(tag >> 3);
	f->value = 0;
	f->data = 0;
	switch (f->wire) {
	case AF_WT_VARINT:
		r = af_pb_varint(buf, p, len, &f->value);
		return r == 2 ? -2 : r;
	case AF_WT_I64:
	case AF_WT_I32: {
		size_t n = f->wire == AF_WT_I64 ? 8 : 4;
		if (len - *p < n)
			return 1;
		*p += n;
		return 0;
	}
	case AF_WT_LEN:
		if ((r = af_pb_varint(buf, p, len, &f->value)) != 0)
			return r == 2 ? -2 : 1;
		if (f->value > len - *p)
			return 1;
		f->data = *p;
		*p += (size_t)f->value;
		return 0;
	default:
		return -1;
	}
}

static int af_pb_skip(const uint8_t *buf, size_t len, size_t *p, uint32_t *number,
                      int *wt)
{
	af_pb_field_t f;
	int r = af_pb_field(buf, len, p, &f);

	*number = f.number;
	*wt = f.wire;
	return r;
}

long long af_pb_field_offset(const uint8_t *buf, size_t len, uint32_t number,
                             size_t index)
{
	size_t p = 0;

	while (p < len) {
		size_t at = p;
		uint32_t n;
		int wt;
		if (af_pb_skip(buf, len, &p, &n, &wt) != 0)
			return -1;
		if (n == number && index-- == 0)
			return (long long)at;
	}
	return -1;
}

int af_pb_sniff(const signed char *wire, uint32_t nfields, const uint8_t *buf, size_t len)
{
	size_t p = 0;
	int first = 1;

	while (p < len) {
		uint32_t n = 0;
		int wt = 0, r, want;
		r = af_pb_skip(buf, len, &p, &n, &wt);
		if (r == -2 && !first)
			return 1; /* a damaged message: its decoder says where */
		if (r < 0)
			return 0;
		if (n == 0) /* the bytes end inside a tag */
			return first ? 0 : 1;
		want = n < nfields ? wire[n] : -1;
		if (first && want < 0)
			return 0;
		if (want >= 0 && wt != (want & 7) && !((want & AF_PB_PACKED) && wt == AF_WT_LEN))
			return 0;
		if (r > 0)
			return 1;
		first = 0;
	}
	return first ? 0 : 2;
}
