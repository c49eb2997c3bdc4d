/*
 * pprof.c - pprof profiles (profile.proto of github.com/google/pprof) read
 * as stacks with values.  Each sample's locations, leaf first in the file,
 * become a call path from the root; a location's lines are its inlined
 * frames, expanded as pprof expands them (the first line is the innermost
 * function, the last the outermost caller).  The value of one sample type,
 * chosen as pprof chooses it, is added to the path's last frame, so a
 * profile's tree is the one its folded stacks would give.  Decoded by
 * protobuf-c from src/pprof.proto; gzip is input.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "pb.h"
#include "pprof.pb-c.h"
#include "trace.h"

typedef Aflame__Pprof__Profile af_pp_profile;
typedef Aflame__Pprof__Mapping af_pp_mapping;
typedef Aflame__Pprof__Location af_pp_location;
typedef Aflame__Pprof__Function af_pp_function;
typedef Aflame__Pprof__Sample af_pp_sample;

#define AF_PP "pprof profile"

/* Field numbers of Profile (pprof.proto), for the offsets of messages. */
enum {
	AF_PP_SAMPLE_TYPE = 1,
	AF_PP_SAMPLE = 2,
	AF_PP_MAPPING = 3,
	AF_PP_LOCATION = 4,
	AF_PP_FUNCTION = 5,
	AF_PP_STRING = 6,
	AF_PP_DEFAULT_TYPE = 14
};

/* The wire types of every top-level field of the published Profile, those
 * pprof.proto leaves out included: writers put any of them first (Go
 * begins with period_type or time_nanos). */
static const signed char af_pp_wire[] = {
	-1,
	AF_PB_LEN,                   /* 1 sample_type */
	AF_PB_LEN,                   /* 2 sample */
	AF_PB_LEN,                   /* 3 mapping */
	AF_PB_LEN,                   /* 4 location */
	AF_PB_LEN,                   /* 5 function */
	AF_PB_LEN,                   /* 6 string_table */
	AF_PB_VARINT,                /* 7 drop_frames */
	AF_PB_VARINT,                /* 8 keep_frames */
	AF_PB_VARINT,                /* 9 time_nanos */
	AF_PB_VARINT,                /* 10 duration_nanos */
	AF_PB_LEN,                   /* 11 period_type */
	AF_PB_VARINT,                /* 12 period */
	AF_PB_VARINT | AF_PB_PACKED, /* 13 comment */
	AF_PB_VARINT,                /* 14 default_sample_type */
	AF_PB_LEN,                   /* 15 doc_url */
};

/* Text cannot be a profile, even when its bytes happen to walk as fields
 * ("\n" is sample_type's tag): a profile's first fields hold the tags of
 * their own fields (0x08, 0x10) and its string table's "" is 0x32 0x00, so
 * a control character other than blanks comes within its first bytes. */
static int af_pp_is_text(const uint8_t *buf, size_t len)
{
	size_t i, n = len < 4096 ? len : 4096;

	for (i = 0; i < n; i++)
		if ((buf[i] < 0x20 && (buf[i] < 0x09 || buf[i] > 0x0D)) || buf[i] == 0x7F)
			return 0;
	return 1;
}

int af_pprof_detect(const uint8_t *buf, size_t len)
{
	int r = af_pb_sniff(af_pp_wire, sizeof af_pp_wire, buf, len);
	return r && af_pp_is_text(buf, len) ? 0 : r;
}

/* An entry of the location or function table, by id. */
typedef struct af_pp_id {
	uint64_t id;
	uint32_t index;
} af_pp_id;

static int af_pp_id_cmp(const void *a, const void *b)
{
	const af_pp_id *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The index of the entry with id `id`, or AF_NONE.  Most writers number
 * their entries 1, 2, 3...: the entry id - 1 is looked at first. */
static uint32_t af_pp_find(const af_pp_id *ids, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	if (id - 1 < n && ids[id - 1].id == id)
		return ids[id - 1].index;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].id == id ? ids[lo].index : AF_NONE;
}

/* What a parse holds while it runs. */
typedef struct af_pp {
	af_trace *t;
	const uint8_t *buf;
	size_t len;
	af_pp_profile *p;
	af_pp_id *loc_ids, *fn_ids, *map_ids;
	const char **map_lib; /* per mapping: its file's base name ("" for none) */
	uint32_t *fn_name;    /* per function: its interned name */
	uint32_t *loc_first;  /* per location: where its frames begin in frames */
	uint32_t *frames;     /* every location's frames, outermost first */
	size_t nframes, frames_cap;
	af_buf dm;            /* a demangled name (af_demangle) */
} af_pp;

/* The byte offset of the `index`-th message `field` of the profile. */
static long long af_pp_at(const af_pp *pp, uint32_t field, size_t index)
{
	long long at = af_pb_field_offset(pp->buf, pp->len, field, index);
	return at < 0 ? 0 : at;
}

/* String `idx` of the table in *s, or the error naming `what` (the field
 * `field`'s `index`-th message, for the offset). */
static af_status af_pp_string(const af_pp *pp, int64_t idx, uint32_t field, size_t index,
                              const char *what, const char **s, af_error *err)
{
	if (idx < 0 || (uint64_t)idx >= pp->p->n_string_table)
		return af_fail(err, AF_ERR_RECORD, af_pp_at(pp, field, index),
		               AF_PP ": %s names string %lld, outside the string table "
		               "(%zu strings)", what, (long long)idx, pp->p->n_string_table);
	*s = pp->p->string_table[idx];
	return AF_OK;
}

/* Sorts the ids of a table of `n` entries, refusing id 0 and an id given
 * twice (at the offset of the entry's `field` message). */
static af_status af_pp_sort_ids(const af_pp *pp, af_pp_id *ids, size_t n, uint32_t field,
                                const char *what, af_error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i].id == 0)
			return af_fail(err, AF_ERR_RECORD, af_pp_at(pp, field, ids[i].index),
			               AF_PP ": %s %u of %zu has id 0 (ids begin at 1)", what,
			               ids[i].index + 1, n);
	qsort(ids, n, sizeof *ids, af_pp_id_cmp);
	for (i = 1; i < n; i++)
		if (ids[i].id == ids[i - 1].id)
			return af_fail(err, AF_ERR_RECORD, af_pp_at(pp, field, ids[i].index),
			               AF_PP ": %s %u of %zu has id %llu, as %s %u has", what,
			               ids[i].index + 1, n, (unsigned long long)ids[i].id, what,
			               ids[i - 1].index + 1);
	return AF_OK;
}

/* Interns a frame name, within the name length limit. */
static af_status af_pp_intern(af_pp *pp, const char *s, size_t len, uint32_t field,
                              size_t index, uint32_t *id, af_error *err)
{
	int dm = pp->t->no_demangle ? 0 : af_demangle(&pp->dm, s, len);

	if (dm < 0)
		return af_fail(err, AF_ERR_NOMEM, af_pp_at(pp, field, index), "out of memory");
	if (dm) {
		s = pp->dm.data;
		len = pp->dm.len;
	}
	/* the offset is found only for a message: finding it walks the profile */
	if (len > pp->t->limits.max_name_len)
		return af_fail(err, AF_ERR_LIMIT, af_pp_at(pp, field, index),
		               AF_PP ": frame name longer than %u bytes",
		               pp->t->limits.max_name_len);
	*id = af_names_intern_clean(&pp->t->frames, s, len);
	return *id == AF_NONE ? af_fail(err, AF_ERR_NOMEM, af_pp_at(pp, field, index),
	                                "out of memory")
	                      : AF_OK;
}

/* The function table: ids sorted, each function's name interned. */
static af_status af_pp_functions(af_pp *pp, af_error *err)
{
	const af_pp_profile *p = pp->p;
	af_mem *mem = pp->t->mem;
	size_t i, n = p->n_function;

	pp->fn_ids = af_malloc(mem, (n ? n : 1) * sizeof *pp->fn_ids);
	pp->fn_name = af_malloc(mem, (n ? n : 1) * sizeof *pp->fn_name);
	if (!pp->fn_ids || !pp->fn_name)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	for (i = 0; i < n; i++) {
		const char *name = NULL;
		char what[48];
		snprintf(what, sizeof what, "function %zu", i + 1);
		AF_FORWARD(af_pp_string(pp, p->function[i]->name, AF_PP_FUNCTION, i, what,
		                        &name, err));
		AF_FORWARD(af_pp_intern(pp, name, strlen(name), AF_PP_FUNCTION, i, &pp->fn_name[i],
		                        err));
		pp->fn_ids[i].id = p->function[i]->id;
		pp->fn_ids[i].index = (uint32_t)i;
	}
	return af_pp_sort_ids(pp, pp->fn_ids, n, AF_PP_FUNCTION, "function", err);
}

/* The mapping table: ids sorted, each mapping's library (the base name of
 * its file: "libart.so", "[vdso]") noted. */
static af_status af_pp_mappings(af_pp *pp, af_error *err)
{
	const af_pp_profile *p = pp->p;
	af_mem *mem = pp->t->mem;
	size_t i, n = p->n_mapping;

	pp->map_ids = af_malloc(mem, (n ? n : 1) * sizeof *pp->map_ids);
	pp->map_lib = af_malloc(mem, (n ? n : 1) * sizeof *pp->map_lib);
	if (!pp->map_ids || !pp->map_lib)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	for (i = 0; i < n; i++) {
		const char *file = NULL, *slash;
		char what[48];
		snprintf(what, sizeof what, "mapping %zu", i + 1);
		AF_FORWARD(af_pp_string(pp, p->mapping[i]->filename, AF_PP_MAPPING, i, what,
		                        &file, err));
		slash = strrchr(file, '/');
		pp->map_lib[i] = slash && slash[1] ? slash + 1 : file;
		pp->map_ids[i].id = p->mapping[i]->id;
		pp->map_ids[i].index = (uint32_t)i;
	}
	return af_pp_sort_ids(pp, pp->map_ids, n, AF_PP_MAPPING, "mapping", err);
}

/* The location table: ids sorted, and each location's frames, outermost
 * first (its lines backwards).  A location without lines is named by its
 * address, as pprof names it. */
static af_status af_pp_locations(af_pp *pp, af_error *err)
{
	const af_pp_profile *p = pp->p;
	af_mem *mem = pp->t->mem;
	size_t i, n = p->n_location;

	pp->loc_ids = af_malloc(mem, (n ? n : 1) * sizeof *pp->loc_ids);
	pp->loc_first = af_malloc(mem, (n + 1) * sizeof *pp->loc_first);
	if (!pp->loc_ids || !pp->loc_first)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	for (i = 0; i < n; i++) {
		const af_pp_location *l = p->location[i];
		/* a mapping the table lacks names no library (pprof reads it so) */
		uint32_t map = l->mapping_id ? af_pp_find(pp->map_ids, p->n_mapping, l->mapping_id)
		                             : AF_NONE;
		const char *lib = map != AF_NONE ? pp->map_lib[map] : "";
		size_t first = pp->nframes, k, need = pp->nframes + (l->n_line ? l->n_line : 1);
		if (need > UINT32_MAX - 1 || AF_GROW(mem, pp->frames, pp->frames_cap, need))
			return af_fail(err, AF_ERR_NOMEM, af_pp_at(pp, AF_PP_LOCATION, i),
			               "out of memory");
		pp->loc_first[i] = (uint32_t)pp->nframes;
		if (l->n_line == 0) {
			char addr[24];
			int m = snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)l->address);
			AF_FORWARD(af_pp_intern(pp, addr, (size_t)m, AF_PP_LOCATION, i,
			                        &pp->frames[pp->nframes++], err));
		}
		for (k = l->n_line; k-- > 0;) {
			uint32_t f = af_pp_find(pp->fn_ids, p->n_function, l->line[k]->function_id);
			if (f == AF_NONE)
				return af_fail(err, AF_ERR_RECORD, af_pp_at(pp, AF_PP_LOCATION, i),
				               AF_PP ": location %zu (id %llu), line %zu names "
				               "function %llu, which the function table lacks",
				               i + 1, (unsigned long long)l->id, k + 1,
				               (unsigned long long)l->line[k]->function_id);
			pp->frames[pp->nframes++] = pp->fn_name[f];
		}
		for (k = first; *lib && k < pp->nframes; k++)
			if (af_trace_frame_lib(pp->t, pp->frames[k], lib, strlen(lib)))
				return af_fail(err, AF_ERR_NOMEM, af_pp_at(pp, AF_PP_LOCATION, i),
				               "out of memory");
		pp->loc_ids[i].id = l->id;
		pp->loc_ids[i].index = (uint32_t)i;
	}
	pp->loc_first[n] = (uint32_t)pp->nframes;
	return af_pp_sort_ids(pp, pp->loc_ids, n, AF_PP_LOCATION, "location", err);
}

/* The sample type to draw: the one named by af_parse_options.sample_type
 * (a name, or an index), else the profile's default_sample_type, else the
 * last, as pprof chooses. */
static af_status af_pp_sample_type(af_pp *pp, size_t *out, af_error *err)
{
	const af_pp_profile *p = pp->p;
	const char *want = pp->t->sample_type, *name = NULL;
	size_t i;

	if (p->n_sample_type == 0)
		return af_fail(err, AF_ERR_FORMAT, 0, AF_PP ": no sample types: the values of "
		               "its samples have no meaning");
	for (i = 0; i < p->n_sample_type; i++) {
		char what[48];
		snprintf(what, sizeof what, "sample type %zu", i + 1);
		AF_FORWARD(af_pp_string(pp, p->sample_type[i]->type, AF_PP_SAMPLE_TYPE, i, what,
		                        &name, err));
		AF_FORWARD(af_pp_string(pp, p->sample_type[i]->unit, AF_PP_SAMPLE_TYPE, i, what,
		                        &name, err));
	}
	if (!want && p->default_sample_type) {
		AF_FORWARD(af_pp_string(pp, p->default_sample_type, AF_PP_DEFAULT_TYPE, 0,
		                        "default_sample_type", &want, err));
		for (i = p->n_sample_type; i-- > 0;)
			if (strcmp(p->string_table[p->sample_type[i]->type], want) == 0)
				break;
		*out = i < p->n_sample_type ? i : p->n_sample_type - 1;
		return AF_OK;
	}
	if (!want) {
		*out = p->n_sample_type - 1;
		return AF_OK;
	}
	for (i = 0; i < p->n_sample_type; i++)
		if (strcmp(p->string_table[p->sample_type[i]->type], want) == 0) {
			*out = i;
			return AF_OK;
		}
	if (want[0] >= '0' && want[0] <= '9' && strlen(want) < 10) {
		char *end;
		unsigned long k = strtoul(want, &end, 10);
		if (*end == '\0' && k < p->n_sample_type) {
			*out = k;
			return AF_OK;
		}
	}
	{
		char have[160];
		size_t used = 0;
		have[0] = '\0';
		for (i = 0; i < p->n_sample_type && used + 1 < sizeof have; i++) {
			int m = snprintf(have + used, sizeof have - used, "%s%s", i ? ", " : "",
			                 p->string_table[p->sample_type[i]->type]);
			if (m < 0)
				break;
			used += (size_t)m;
		}
		if (used >= sizeof have)
			memcpy(have + sizeof have - 4, "...", 4);
		return af_fail(err, AF_ERR_ARG, -1, "no sample type \"%.64s\" in the profile "
		               "(it has %s)", want, have);
	}
}

/* Adds every sample's value of type `ti` to its call path. */
static af_status af_pp_samples(af_pp *pp, size_t ti, af_error *err)
{
	af_trace *t = pp->t;
	const af_pp_profile *p = pp->p;
	uint32_t root = af_ptree_root(&t->tree, AF_NONE);
	uint32_t *at = NULL;      /* the nodes of the sample before (flame chart) */
	size_t ncap = 0, ndepth = 0, i;
	uint64_t sum = 0;
	af_status st = AF_OK;

	if (root == AF_NONE)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	for (i = 0; i < p->n_sample; i++) {
		const af_pp_sample *s = p->sample[i];
		uint32_t node = root;
		size_t depth = 0, k;
		int same = 1;
		int64_t v;

		if (s->n_value != p->n_sample_type) {
			st = af_fail(err, AF_ERR_RECORD, af_pp_at(pp, AF_PP_SAMPLE, i),
			             AF_PP ": sample %zu has %zu values for %zu sample types",
			             i + 1, s->n_value, p->n_sample_type);
			goto out;
		}
		v = s->value[ti];
		if (v < 0) {
			st = af_fail(err, AF_ERR_RECORD, af_pp_at(pp, AF_PP_SAMPLE, i),
			             AF_PP ": sample %zu has a negative value (%lld) of %s "
			             "(a difference of profiles is not drawn)", i + 1,
			             (long long)v, t->info.sample_type);
			goto out;
		}
		if ((uint64_t)v > UINT64_MAX - sum) {
			st = af_fail(err, AF_ERR_LIMIT, af_pp_at(pp, AF_PP_SAMPLE, i),
			             AF_PP ": the values of %s add up to more than "
			             "18446744073709551615", t->info.sample_type);
			goto out;
		}
		/* every location is resolved, even in a sample worth nothing */
		for (k = s->n_location_id; k-- > 0;) {
			uint32_t l = af_pp_find(pp->loc_ids, p->n_location, s->location_id[k]);
			uint32_t f;
			if (l == AF_NONE) {
				st = af_fail(err, AF_ERR_RECORD, af_pp_at(pp, AF_PP_SAMPLE, i),
				             AF_PP ": sample %zu names location %llu, which the "
				             "location table lacks", i + 1,
				             (unsigned long long)s->location_id[k]);
				goto out;
			}
			if (v == 0)
				continue;
			for (f = pp->loc_first[l]; f < pp->loc_first[l + 1]; f++) {
				uint32_t name = pp->frames[f];
				if (++depth > t->limits.max_depth) {
					st = af_fail(err, AF_ERR_LIMIT, af_pp_at(pp, AF_PP_SAMPLE, i),
					             AF_PP ": sample %zu is deeper than %u frames",
					             i + 1, t->limits.max_depth);
					goto out;
				}
				if (t->flamechart) {
					/* samples in their order: a frame merges only with
					 * the same frame of the sample before, under the
					 * same callers */
					if (same && depth - 1 < ndepth &&
					    t->tree.nodes[at[depth - 1]].key == name) {
						node = at[depth - 1];
					} else {
						same = 0;
						node = af_ptree_append(&t->tree, node, name);
						if (node != AF_NONE &&
						    AF_GROW(t->mem, t->started, t->started_cap, t->tree.len)) {
							st = af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
							goto out;
						}
						if (node != AF_NONE)
							t->started[node][AF_CLOCK_WALL] = sum;
					}
				} else {
					node = af_ptree_child(&t->tree, node, name);
				}
				if (node == AF_NONE) {
					st = af_trace_no_path(t, af_pp_at(pp, AF_PP_SAMPLE, i), err);
					goto out;
				}
				if (t->flamechart) {
					if (AF_GROW(t->mem, at, ncap, depth)) {
						st = af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
						goto out;
					}
					at[depth - 1] = node;
				}
			}
		}
		if (v == 0)
			continue;
		ndepth = depth;
		t->tree.nodes[node].self[AF_CLOCK_WALL] += (uint64_t)v;
		t->tree.nodes[node].lines |= AF_LINE_ONE;
		sum += (uint64_t)v;
		t->info.lines++;
	}
out:
	af_free(t->mem, at);
	return st;
}

af_status af_trace_pprof(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	af_pb_alloc alloc;
	af_pp pp = {.t = t, .buf = buf, .len = len, .dm = {.mem = t->mem}};
	af_status st;
	size_t ti = 0;

	af_pb_arena_init(&alloc, t->mem);
	t->info.variant = AF_VARIANT_FOLDED;
	t->info.pprof = 1;
	pp.p = aflame__pprof__profile__unpack(&alloc.pc, len, buf);
	if (!pp.p) {
		af_pb_alloc_release(&alloc); /* what protobuf-c took before it gave up */
		if (alloc.failed)
			return af_fail(err, AF_ERR_NOMEM, 0, "out of memory decoding the " AF_PP);
		st = af_pb_check(&aflame__pprof__profile__descriptor, buf, len, 0, AF_PP, err);
		return st != AF_OK ? st
		                   : af_fail(err, AF_ERR_FORMAT, 0, AF_PP ": protobuf-c cannot "
		                             "decode it");
	}
	if (pp.p->n_string_table == 0 || pp.p->string_table[0][0] != '\0') {
		st = af_fail(err, AF_ERR_FORMAT, af_pp_at(&pp, AF_PP_STRING, 0),
		             AF_PP ": %s", pp.p->n_string_table
		             ? "the string table does not begin with \"\""
		             : "no string table");
		goto out;
	}
	if ((st = af_pp_sample_type(&pp, &ti, err)) != AF_OK)
		goto out;
	t->info.sample_type = af_trace_strdup(t, pp.p->string_table[pp.p->sample_type[ti]->type],
	                                      strlen(pp.p->string_table[pp.p->sample_type[ti]->type]));
	t->info.sample_unit = af_trace_strdup(t, pp.p->string_table[pp.p->sample_type[ti]->unit],
	                                      strlen(pp.p->string_table[pp.p->sample_type[ti]->unit]));
	if (!t->info.sample_type || !t->info.sample_unit) {
		st = af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
		goto out;
	}
	if ((st = af_pp_mappings(&pp, err)) != AF_OK ||
	    (st = af_pp_functions(&pp, err)) != AF_OK ||
	    (st = af_pp_locations(&pp, err)) != AF_OK ||
	    (st = af_pp_samples(&pp, ti, err)) != AF_OK)
		goto out;
	t->info.has_clock[AF_CLOCK_WALL] = 1;
out:
	aflame__pprof__profile__free_unpacked(pp.p, &alloc.pc);
	af_pb_alloc_release(&alloc);
	af_free(t->mem, pp.loc_ids);
	af_free(t->mem, pp.fn_ids);
	af_free(t->mem, pp.map_ids);
	af_free(t->mem, pp.map_lib);
	af_free(t->mem, pp.fn_name);
	af_free(t->mem, pp.loc_first);
	af_free(t->mem, pp.frames);
	af_buf_free(&pp.dm);
	return st;
}
