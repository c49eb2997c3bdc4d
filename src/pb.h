/*
 * pb.h - protobuf-c under the library's rules, for the parsers of protobuf
 * formats (pprof.c): protobuf-c's allocations come from the trace's af_mem,
 * and where bytes it refused go wrong is told with a byte offset (protobuf-c
 * itself only says that they do).  Decoding stays protobuf-c's; this file
 * only walks the wire structure (tags, varints, lengths) to explain a
 * refusal and to recognise a message from its first bytes.
 */
#ifndef AF_PB_H
#define AF_PB_H

#include <protobuf-c/protobuf-c.h>

#include "internal.h"

/** protobuf-c's allocator over an af_mem (and its budget); `failed` is
 * set once an allocation fails, so that a refused decode can be told from
 * damaged bytes whatever allocator the caller gave. */
typedef struct af_pb_alloc {
	ProtobufCAllocator pc; /* what protobuf-c's functions take */
	af_mem *mem;
	int failed;
	char *chunk;           /* an arena's newest chunk (each links the one
	                          before), where its free part begins, and
	                          its size */
	char *next;
	size_t left, size;
} af_pb_alloc;

/** Sets `a` up over `mem`; `a` must outlive every message decoded with it. */
void af_pb_alloc_init(af_pb_alloc *a, af_mem *mem);

/** As af_pb_alloc_init(), as an arena: blocks are carved from large
 * chunks and freed only all together by af_pb_alloc_release(), for one
 * large message decoded once (a pprof profile's hundreds of thousands of
 * small arrays cost a malloc and a free each otherwise). */
void af_pb_arena_init(af_pb_alloc *a, af_mem *mem);

/** Empties an arena for the next message, keeping its newest chunk (all
 * of whose blocks are then free). */
void af_pb_arena_reset(af_pb_alloc *a);

/** Frees an arena's chunks (after protobuf-c freed the message, which
 * for an arena frees nothing).  A no-op for a plain allocator. */
void af_pb_alloc_release(af_pb_alloc *a);

/** Walks `len` bytes as message `desc`, into every field whose type is a
 * message `desc` knows, without recursion.  AF_OK when every tag, varint,
 * length and wire type is sound; otherwise the first fault, with its byte
 * offset plus `base`: AF_ERR_TRUNCATED when the bytes end inside a field,
 * AF_ERR_FORMAT for the rest.  `what` names the input in messages
 * ("pprof profile"). */
af_status af_pb_check(const ProtobufCMessageDescriptor *desc, const uint8_t *buf,
                      size_t len, long long base, const char *what, af_error *err);

/** The byte offset of the `index`-th (from 0) field numbered `number` at
 * the top level of `buf`, or -1 when the walk finds no such field. */
long long af_pb_field_offset(const uint8_t *buf, size_t len, uint32_t number,
                             size_t index);

/** One field of a message, read by af_pb_field(). */
typedef struct af_pb_field_t {
	uint32_t number;   /* the field's number (never 0) */
	int wire;          /* its wire type (AF_PB_VARINT, AF_PB_LEN, ...) */
	uint64_t value;    /* a varint's value; a LEN field's length */
	size_t at;         /* where its tag starts */
	size_t data;       /* where a LEN field's bytes start */
} af_pb_field_t;

/** Reads the field at buf[*p] (before `len`) into `f` and moves *p past
 * it: 0 when it is sound, 1 when the bytes end inside it, -1 for a field
 * numbered 0 or a wire type protobuf does not have, -2 for a varint of
 * more than ten bytes. */
int af_pb_field(const uint8_t *buf, size_t len, size_t *p, af_pb_field_t *f);

/** Wire types for af_pb_sniff(): a field's, or AF_PB_PACKED added for a
 * repeated number that may come packed (length-delimited). */
enum { AF_PB_VARINT = 0, AF_PB_I64 = 1, AF_PB_LEN = 2, AF_PB_I32 = 5,
       AF_PB_PACKED = 8 };

/** How much the first bytes of `buf` look like a message whose top-level
 * fields 1 to nfields - 1 have the wire types `wire` gives (wire[number];
 * -1 for a number the format does not use): 2 when the top-level fields
 * cover the bytes exactly, 1 when they are sound up to where the bytes end
 * (`len` may be a prefix of the input) or up to a varint longer than ten
 * bytes after the first field (a damaged message, for its decoder to
 * explain), 0 when the first field is not one of the table's or a field is
 * otherwise malformed (a field numbered 0: zeros are not a message).  Fields numbered past the table
 * are allowed after the first.  Nothing is allocated. */
int af_pb_sniff(const signed char *wire, uint32_t nfields, const uint8_t *buf, size_t len);

#endif
