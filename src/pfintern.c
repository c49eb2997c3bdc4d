/*
 * pfintern.c - the interned tables of a Perfetto trace's profiles:
 * strings, mappings, frames and callstacks, shared by every packet
 * sequence, each sequence mapping its interning ids to them (pfintern.h).
 * A frame is named when interned; a callstack is resolved to its frames
 * when interned, outermost first as Perfetto writes it, so a sample only
 * names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "pfintern.h"

af_status af_pfi_nomem(const af_pfi *in, af_error *err)
{
	return af_fail(err, AF_ERR_NOMEM, in->off, "out of memory");
}

/* Copies a string into the arena; its index in *idx. */
af_status af_pfi_str_add(af_pfi *in, const uint8_t *s, size_t len, uint32_t *idx,
                         af_error *err)
{
	char *copy;

	if (len > in->t->limits.max_name_len)
		return af_fail(err, AF_ERR_LIMIT, in->off,
		               AF_PFP ": an interned string is "
		                      "longer than %u bytes",
		               in->t->limits.max_name_len);
	if (in->nstrs >= AF_NONE - 1 ||
	    AF_GROW(in->mem, in->strs, in->strs_cap, in->nstrs + 1) ||
	    !(copy = af_trace_strdup(in->t, (const char *)s, len)))
		return af_pfi_nomem(in, err);
	in->strs[in->nstrs].s = copy;
	in->strs[in->nstrs].len = len;
	*idx = (uint32_t)in->nstrs++;
	return AF_OK;
}

/* Interns `n` strings into the tables `a` (and `b`, `c` when not NULL). */
af_status af_pfi_strings(af_pfi *in, af_u64map *a, af_u64map *b, af_u64map *c,
                         af_pfi_pbstr **v, size_t n, af_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t idx = AF_NONE;
		AF_FORWARD(af_pfi_str_add(in, v[i]->str.data, v[i]->str.len, &idx, err));
		if (af_u64map_put(in->mem, a, v[i]->iid, idx) ||
		    (b && af_u64map_put(in->mem, b, v[i]->iid, idx)) ||
		    (c && af_u64map_put(in->mem, c, v[i]->iid, idx)))
			return af_pfi_nomem(in, err);
	}
	return AF_OK;
}

/* The error for an iid that no table of the sequence holds. */
static af_status af_pfi_missing(const af_pfi *in, const char *who, uint64_t who_iid,
                                const char *what, uint64_t iid, af_error *err)
{
	return af_fail(err, AF_ERR_RECORD, in->off,
	               AF_PFP ": %s %llu names %s %llu, which "
	                      "its sequence never interned",
	               who, (unsigned long long)who_iid, what, (unsigned long long)iid);
}

/* The library of a mapping whose path is `path`: its last part
 * ("libc.so"), or without a path its build id in hex ("build id 9f3c..."),
 * "" with neither; NULL when out of memory. */
static const char *af_pfi_lib(af_pfi *in, const af_pfi_ids *ids,
                              const af_pfi_pbmapping *m, const char *path)
{
	const char *slash = strrchr(path, '/');
	char text[80] = "build id ";
	size_t i, k = 9;
	uint32_t s;

	if (*path)
		return slash && slash[1] ? slash + 1 : path;
	if (!m->build_id || !af_u64map_get(&ids->build, m->build_id, &s) ||
	    !in->strs[s].len)
		return "";
	for (i = 0; i < in->strs[s].len && i < 32; i++)
		k += (size_t)snprintf(text + k, sizeof text - k, "%02x",
		                      (unsigned char)in->strs[s].s[i]);
	return af_trace_strdup(in->t, text, k);
}

/* Mappings: their paths joined ("/system/lib64/libc.so"). */
af_status af_pfi_mappings(af_pfi *in, af_pfi_ids *ids, af_pfi_pbmapping **v, size_t n,
                          af_error *err)
{
	size_t i, k;
	af_buf path = {0};
	af_status st = AF_OK;

	path.mem = in->mem;
	for (i = 0; i < n; i++) {
		const char *copy;
		path.len = 0;
		for (k = 0; k < v[i]->n_path_string_ids; k++) {
			uint32_t s;
			if (!af_u64map_get(&ids->path, v[i]->path_string_ids[k], &s)) {
				st = af_pfi_missing(in, "mapping", v[i]->iid,
				                    "path string",
				                    v[i]->path_string_ids[k], err);
				goto out;
			}
			if (af_buf_append(&path, "/", 1) ||
			    af_buf_append(&path, in->strs[s].s, in->strs[s].len)) {
				st = af_pfi_nomem(in, err);
				goto out;
			}
		}
		if (path.len > in->t->limits.max_name_len) {
			st = af_fail(err, AF_ERR_LIMIT, in->off,
			             AF_PFP ": mapping %llu has a "
			                    "path longer than %u bytes",
			             (unsigned long long)v[i]->iid,
			             in->t->limits.max_name_len);
			goto out;
		}
		if (in->nmappings >= AF_NONE - 1 ||
		    AF_GROW(in->mem, in->mappings, in->mappings_cap, in->nmappings + 1) ||
		    !(copy =
		          af_trace_strdup(in->t, path.len ? path.data : "", path.len)) ||
		    af_u64map_put(in->mem, &ids->mapping, v[i]->iid,
		                  (uint32_t)in->nmappings)) {
			st = af_pfi_nomem(in, err);
			goto out;
		}
		in->mappings[in->nmappings] = copy;
		if (AF_GROW(in->mem, in->libs, in->libs_cap, in->nmappings + 1) ||
		    !(in->libs[in->nmappings] = af_pfi_lib(in, ids, v[i], copy))) {
			st = af_pfi_nomem(in, err);
			goto out;
		}
		in->nmappings++;
	}
out:
	af_buf_free(&path);
	return st;
}

/* The last part of a mapping's path: its library. */
static const char *af_pfi_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* Frames: named by their function, or, unsymbolized, by their library and
 * the pc relative to it ("libc.so+0x4a2c", "0x4a2c" for a mapping without
 * a path), "unknown" with neither. */
af_status af_pfi_frames(af_pfi *in, af_pfi_ids *ids, af_pfi_pbframe **v, size_t n,
                        af_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const af_pfi_pbframe *f = v[i];
		uint32_t s = AF_NONE, m = AF_NONE, name;
		char addr[64];
		const char *text;
		size_t len;

		if (f->function_name_id &&
		    !af_u64map_get(&ids->fn, f->function_name_id, &s))
			return af_pfi_missing(in, "frame", f->iid, "function name",
			                      f->function_name_id, err);
		if (f->mapping_id && !af_u64map_get(&ids->mapping, f->mapping_id, &m))
			return af_pfi_missing(in, "frame", f->iid, "mapping",
			                      f->mapping_id, err);
		if (s != AF_NONE && in->strs[s].len) {
			int dm = in->t->no_demangle ? 0
			                            : af_demangle(&in->dm, in->strs[s].s,
			                                          in->strs[s].len);
			if (dm < 0)
				return af_pfi_nomem(in, err);
			text = dm ? in->dm.data : in->strs[s].s;
			len = dm ? in->dm.len : in->strs[s].len;
			if (len > in->t->limits.max_name_len)
				return af_fail(err, AF_ERR_LIMIT, in->off,
				               AF_PFP ": frame %llu's "
				                      "name is longer than %u bytes",
				               (unsigned long long)f->iid,
				               in->t->limits.max_name_len);
		} else if (m != AF_NONE) {
			const char *lib = af_pfi_basename(in->mappings[m]);
			int k = snprintf(addr, sizeof addr, "%.40s%s0x%llx", lib,
			                 *lib ? "+" : "", (unsigned long long)f->rel_pc);
			text = addr;
			len = k < 0                     ? 0
			      : (size_t)k < sizeof addr ? (size_t)k
			                                : sizeof addr - 1;
		} else {
			text = "unknown";
			len = 7;
		}
		/* a kernel frame with a name gets perf's "_[k]" mark, which the
		 * palettes colour and the labels leave out (stackcollapse-perf
		 * --kernel does the same) */
		if (m != AF_NONE && text != addr &&
		    strncmp(af_pfi_basename(in->mappings[m]), "[kernel", 7) == 0) {
			if (text != in->dm.data) { /* else it holds the demangled name */
				in->dm.len = 0;
				if (af_buf_append(&in->dm, text, len))
					return af_pfi_nomem(in, err);
			}
			if (af_buf_append(&in->dm, "_[k]", 4))
				return af_pfi_nomem(in, err);
			text = in->dm.data;
			len = in->dm.len;
		}
		name = af_names_intern_clean(&in->t->frames, text, len);
		if (name != AF_NONE && m != AF_NONE) {
			const char *lib = in->libs[m];
			if (af_trace_frame_lib(in->t, name, lib, strlen(lib)))
				return af_pfi_nomem(in, err);
		}
		if (name == AF_NONE || in->nframes >= AF_NONE - 1 ||
		    AF_GROW(in->mem, in->frames, in->frames_cap, in->nframes + 1) ||
		    af_u64map_put(in->mem, &ids->frame, f->iid, (uint32_t)in->nframes))
			return af_pfi_nomem(in, err);
		in->frames[in->nframes].name = name;
		in->frames[in->nframes].mapping = m;
		in->nframes++;
	}
	return AF_OK;
}

/* Callstacks: their frames resolved, outermost first. */
af_status af_pfi_stacks(af_pfi *in, af_pfi_ids *ids, af_pfi_pbstack **v, size_t n,
                        af_error *err)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const af_pfi_pbstack *c = v[i];
		if (c->n_frame_ids > in->t->limits.max_depth)
			return af_fail(err, AF_ERR_LIMIT, in->off,
			               AF_PFP ": callstack %llu is "
			                      "deeper than %u frames",
			               (unsigned long long)c->iid,
			               in->t->limits.max_depth);
		if (in->nstacks >= AF_NONE - 1 ||
		    AF_GROW(in->mem, in->pool, in->pool_cap,
		            in->npool + c->n_frame_ids + 1) ||
		    AF_GROW(in->mem, in->stacks, in->stacks_cap, in->nstacks + 1))
			return af_pfi_nomem(in, err);
		for (k = 0; k < c->n_frame_ids; k++) {
			uint32_t f;
			if (!af_u64map_get(&ids->frame, c->frame_ids[k], &f))
				return af_pfi_missing(in, "callstack", c->iid, "frame",
				                      c->frame_ids[k], err);
			in->pool[in->npool + k] = f;
		}
		if (af_u64map_put(in->mem, &ids->stack, c->iid, (uint32_t)in->nstacks))
			return af_pfi_nomem(in, err);
		in->stacks[in->nstacks].first = in->npool;
		in->stacks[in->nstacks].len = (uint32_t)c->n_frame_ids;
		in->nstacks++;
		in->npool += c->n_frame_ids;
	}
	return AF_OK;
}

af_status af_pfi_path(af_pfi *in, uint32_t root, uint32_t stack, uint32_t *leaf,
                      af_error *err)
{
	const af_pfi_stack *s = &in->stacks[stack];
	uint32_t node = root, k;

	for (k = 0; k < s->len; k++) {
		node = af_ptree_child(&in->t->tree, node,
		                      in->frames[in->pool[s->first + k]].name);
		if (node == AF_NONE)
			return af_trace_no_path(in->t, -1, err);
	}
	*leaf = node;
	return AF_OK;
}

void af_pfi_ids_clear(af_pfi_ids *ids)
{
	af_u64map_clear(&ids->fn);
	af_u64map_clear(&ids->path);
	af_u64map_clear(&ids->build);
	af_u64map_clear(&ids->mapping);
	af_u64map_clear(&ids->frame);
	af_u64map_clear(&ids->stack);
}

void af_pfi_ids_free(af_mem *mem, af_pfi_ids *ids)
{
	af_u64map_free(mem, &ids->fn);
	af_u64map_free(mem, &ids->path);
	af_u64map_free(mem, &ids->build);
	af_u64map_free(mem, &ids->mapping);
	af_u64map_free(mem, &ids->frame);
	af_u64map_free(mem, &ids->stack);
}

void af_pfi_free(af_pfi *in)
{
	af_free(in->mem, in->strs);
	af_free(in->mem, in->mappings);
	af_free(in->mem, in->libs);
	af_free(in->mem, in->frames);
	af_free(in->mem, in->pool);
	af_free(in->mem, in->stacks);
	af_buf_free(&in->dm);
}
