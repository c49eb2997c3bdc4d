/*
 * pprof.c - a call tree written as a pprof profile (profile.proto,
 * gzip'd as pprof writes it), so that any input opens in pprof, Speedscope
 * and Perfetto.  Each distinct frame name is one function and one location;
 * each node with self time is one sample whose locations are its path,
 * leaf first, and whose values are its self time on each clock the tree
 * has (µs), or its count.  A native frame's library is a mapping of that
 * file name, named by the frame's location (pprof shows it beside the
 * function).  The tree's values are written as they are, so
 * pprof's totals are the graph's.  The reader is src/pprof.c; both go
 * through protobuf-c and src/pprof.proto.
 *
 * The profile is packed piece by piece straight into the gzip stream:
 * protobuf's rule that repeated fields of concatenated messages add up
 * lets each sample go out as a message of its own, so memory stays that of
 * the deepest path and the name table, whatever the size of the tree.
 */
#include <string.h>
#include <zlib.h>

#include "pprof.pb-c.h"
#include "tree.h"

typedef Aflame__Pprof__Profile af_pp_profile;

/* A ProtobufCBuffer that deflates what is packed into it onto `out`.
 * protobuf-c appends a few bytes at a time (a tag, a varint): they are
 * gathered in `in` and deflated a buffer at a time. */
typedef struct af_gz_sink {
	ProtobufCBuffer base;
	z_stream z;
	FILE *out;
	int failed;          /* deflate or the write failed */
	size_t held;         /* bytes waiting in `in` */
	uint8_t in[1 << 16];
	uint8_t chunk[1 << 16];
} af_gz_sink;

/* Deflates what `in` holds (all of the stream's end with Z_FINISH). */
static void af_gz_push(af_gz_sink *s, int flush)
{
	s->z.next_in = s->in;
	s->z.avail_in = (uInt)s->held;
	do {
		size_t n;
		s->z.next_out = s->chunk;
		s->z.avail_out = sizeof s->chunk;
		if (deflate(&s->z, flush) == Z_STREAM_ERROR) {
			s->failed = 1;
			return;
		}
		n = sizeof s->chunk - s->z.avail_out;
		if (n && fwrite(s->chunk, 1, n, s->out) != n)
			s->failed = 1;
	} while (!s->failed && (s->z.avail_in > 0 || s->z.avail_out == 0));
	s->held = 0;
}

static void af_gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	af_gz_sink *s = (af_gz_sink *)b;

	while (len && !s->failed) {
		size_t n = sizeof s->in - s->held;
		if (n > len)
			n = len;
		memcpy(s->in + s->held, data, n);
		s->held += n;
		data += n;
		len -= n;
		if (s->held == sizeof s->in)
			af_gz_push(s, Z_NO_FLUSH);
	}
}

/* Packs `m` into the sink: straight into its buffer when it fits there
 * (protobuf-c's packing into memory is several times faster than its
 * packing through a ProtobufCBuffer, a few bytes a call), through the
 * buffer otherwise. */
static void af_gz_pack(af_gz_sink *s, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);

	if (n > sizeof s->in - s->held && s->held)
		af_gz_push(s, Z_NO_FLUSH);
	if (n <= sizeof s->in - s->held) {
		protobuf_c_message_pack(m, s->in + s->held);
		s->held += n;
	} else {
		protobuf_c_message_pack_to_buffer(m, &s->base);
	}
}

/* The clocks written, in sample-type order, for a tree of time. */
static size_t af_pp_clocks(const af_tree *tree, af_clock clock, af_clock *c)
{
	if (!tree->wait) {
		c[0] = clock;
		return 1;
	}
	c[0] = AF_CLOCK_WALL;
	c[1] = AF_CLOCK_CPU;
	c[2] = AF_CLOCK_WAIT;
	return 3;
}

/* The string table, functions, locations and sample types: every name the
 * tree uses once, in the order of their ids, as function and location
 * `k`, string k + 1 (after "" and the sample types' names); a library's
 * string and mapping (numbered by its id in the tree, plus one) go before
 * the first name that has it.  `mapped` has a byte per library. */
static af_status af_pp_head(af_gz_sink *s, const af_tree *tree, af_clock clock,
                            uint32_t *fn, size_t nfn, uint8_t *mapped, af_error *err)
{
	static const char *const clock_name[AF_CLOCK_COUNT] = {"wall", "cpu", "wait"};
	af_pp_profile p = AFLAME__PPROF__PROFILE__INIT;
	Aflame__Pprof__ValueType vt[AF_CLOCK_COUNT], *vtp[AF_CLOCK_COUNT];
	Aflame__Pprof__Function f = AFLAME__PPROF__FUNCTION__INIT, *fp = &f;
	Aflame__Pprof__Location l = AFLAME__PPROF__LOCATION__INIT, *lp = &l;
	Aflame__Pprof__Line line = AFLAME__PPROF__LINE__INIT, *linep = &line;
	Aflame__Pprof__Mapping m = AFLAME__PPROF__MAPPING__INIT, *mp = &m;
	const char *unit = af_tree_unit(tree);
	char *fixed[2 + 2 * AF_CLOCK_COUNT];
	af_clock c[AF_CLOCK_COUNT];
	size_t nt, i, k = 0, used = 0, strs;

	fixed[k++] = "";
	if (tree->is_time) {
		nt = af_pp_clocks(tree, clock, c);
		for (i = 0; i < nt; i++)
			fixed[k++] = (char *)clock_name[c[i]];
		fixed[k++] = "microseconds";
	} else {
		nt = 1;
		fixed[k++] = "samples";
		fixed[k++] = (char *)(unit ? unit : "count");
	}
	for (i = 0; i < nt; i++) {
		aflame__pprof__value_type__init(&vt[i]);
		vt[i].type = (int64_t)(1 + i);
		vt[i].unit = (int64_t)(k - 1);
		vtp[i] = &vt[i];
		if (tree->is_time && c[i] == clock)
			p.default_sample_type = vt[i].type;
	}
	p.n_sample_type = nt;
	p.sample_type = vtp;
	p.n_string_table = k;
	p.string_table = fixed;
	af_gz_pack(s, &p.base);

	/* then each name: one string, one function, one location */
	strs = k;
	for (i = 0; i < nfn; i++) {
		af_pp_profile q = AFLAME__PPROF__PROFILE__INIT;
		char *name;
		uint32_t lib = AF_NONE;
		if (fn[i] == 0)
			continue;
		if (tree->lib.len && af_u32map_get(&tree->lib, (uint32_t)i, &lib) && !mapped[lib]) {
			af_pp_profile ql = AFLAME__PPROF__PROFILE__INIT;
			char *file = tree->libs.str[lib];
			mapped[lib] = 1;
			m.id = (uint64_t)lib + 1;
			m.filename = (int64_t)strs++;
			m.has_functions = 1; /* pprof symbolizes nothing again */
			ql.n_string_table = 1;
			ql.string_table = &file;
			ql.n_mapping = 1;
			ql.mapping = &mp;
			af_gz_pack(s, &ql.base);
		}
		name = (char *)af_tree_name_by_id(tree, (uint32_t)i);
		fn[i] = (uint32_t)++used;
		f.id = l.id = fn[i];
		f.name = f.system_name = (int64_t)strs++;
		l.mapping_id = lib != AF_NONE ? (uint64_t)lib + 1 : 0;
		line.function_id = f.id;
		l.n_line = 1;
		l.line = &linep;
		q.n_string_table = 1;
		q.string_table = &name;
		q.n_function = 1;
		q.function = &fp;
		q.n_location = 1;
		q.location = &lp;
		af_gz_pack(s, &q.base);
		if (s->failed)
			break;
	}
	if (s->failed)
		return af_fail(err, AF_ERR_IO, -1, "cannot write the pprof profile");
	return AF_OK;
}

static af_status af_pp_emit(const af_tree *tree, af_clock clock, FILE *out,
                            af_error *err)
{
	af_mem *mem = af_tree_mem(tree);
	const af_pnode *nodes = af_tree_nodes(tree);
	size_t n = af_tree_size(tree), nfn = af_tree_name_count(tree), i;
	uint32_t *fn = NULL;
	uint8_t *mapped = NULL;
	uint64_t *locs = NULL;
	size_t locs_cap = 0;
	af_clock c[AF_CLOCK_COUNT];
	size_t nt = tree->is_time ? af_pp_clocks(tree, clock, c) : 1;
	af_gz_sink *s;
	af_status st = AF_OK;

	if (af_tree_is_differential(tree) || af_tree_is_diff(tree))
		return af_fail(err, AF_ERR_ARG, -1, "a differential profile has two "
		               "values a path: pprof is written from one profile");
	if (af_tree_decimals(tree))
		return af_fail(err, AF_ERR_ARG, -1, "counts with fractions do not fit "
		               "pprof's whole numbers");
	if (!tree->is_time)
		c[0] = clock;
	s = af_calloc(mem, 1, sizeof *s);
	fn = af_calloc(mem, nfn ? nfn : 1, sizeof *fn);
	mapped = af_calloc(mem, tree->libs.len ? tree->libs.len : 1, 1);
	if (!s || !fn || !mapped) {
		st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing pprof");
		goto done;
	}
	/* the names the tree's nodes use (the root "all" is not a frame) */
	for (i = 1; i < n; i++)
		fn[af_tree_name_id(tree, (uint32_t)i)] = 1;

	s->base.append = af_gz_append;
	s->out = out;
	s->z.zalloc = af_zlib_alloc;
	s->z.zfree = af_zlib_free;
	s->z.opaque = mem;
	/* the fastest level, as Go's runtime/pprof writes its profiles */
	if (deflateInit2(&s->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		af_free(mem, s);
		s = NULL;
		st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory starting zlib");
		goto done;
	}
	if ((st = af_pp_head(s, tree, clock, fn, nfn, mapped, err)) != AF_OK)
		goto end;

	/* one sample per node with self time, its path leaf first */
	for (i = 1; i < n && !s->failed; i++) {
		Aflame__Pprof__Sample sm = AFLAME__PPROF__SAMPLE__INIT, *smp = &sm;
		af_pp_profile q = AFLAME__PPROF__PROFILE__INIT;
		int64_t v[AF_CLOCK_COUNT];
		size_t k, d = 0, any = 0;
		uint32_t at;

		for (k = 0; k < nt; k++)
			any |= (v[k] = (int64_t)af_tree_self(tree, (uint32_t)i, c[k])) != 0;
		if (!any)
			continue;
		for (at = (uint32_t)i; at != 0 && at != AF_NONE; at = nodes[at].parent) {
			if (AF_GROW(mem, locs, locs_cap, d + 1)) {
				st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing pprof");
				goto end;
			}
			locs[d++] = fn[af_tree_name_id(tree, at)];
		}
		sm.n_location_id = d;
		sm.location_id = locs;
		sm.n_value = nt;
		sm.value = v;
		q.n_sample = 1;
		q.sample = &smp;
		af_gz_pack(s, &q.base);
	}
	if (!s->failed)
		af_gz_push(s, Z_FINISH);
	if (!s->failed && fflush(out) != 0)
		s->failed = 1;
	if (s->failed)
		st = af_fail(err, AF_ERR_IO, -1, "cannot write the pprof profile");
end:
	deflateEnd(&s->z);
done:
	af_free(mem, locs);
	af_free(mem, fn);
	af_free(mem, mapped);
	af_free(mem, s);
	return st;
}

af_status af_pprof_write(const af_tree *tree, af_clock clock, FILE *out,
                         af_error *err)
{
	return af_mem_explain(af_tree_mem(tree), af_pp_emit(tree, clock, out, err), err);
}
