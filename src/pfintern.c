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
static const char *af_pfi_lib(af_pfi *in, const af_pfi_str *build, const char *path)
{
	const char *slash = strrchr(path, '/');
	char text[80] = "build id ";
	size_t i, k = 9;

	if (*path)
		return slash && slash[1] ? slash + 1 : path;
	if (!build || !build->len)
		return "";
	for (i = 0; i < build->len && i < 32; i++)
		k += (size_t)snprintf(text + k, sizeof text - k, "%02x",
		                      (unsigned char)build->s[i]);
	return af_trace_strdup(in->t, text, k);
}

/* The key in af_pfi.modules of a binary whose build id (raw bytes) is the
 * `blen` bytes at `build` and whose path is `path`: "b" and the build id
 * in hex, or without one "p" and the path, whose "//" Perfetto's trace
 * processor makes "/" (a mapping named by one string holding its whole
 * path, as Chrome writes it: MakeMappingName in
 * src/trace_processor/importers/proto/profile_packet_utils.cc).  Empty
 * when it has neither.  Returns -1 when out of memory. */
static int af_pfi_module_key(af_buf *key, const uint8_t *build, size_t blen,
                             const char *path, size_t plen)
{
	size_t i;

	key->len = 0;
	if (blen) {
		if (af_buf_append(key, "b", 1))
			return -1;
		for (i = 0; i < blen; i++)
			if (af_buf_printf(key, "%02x", build[i]))
				return -1;
		return 0;
	}
	if (plen >= 2 && path[0] == '/' && path[1] == '/') {
		path++;
		plen--;
	}
	return plen ? af_buf_append(key, "p", 1) || af_buf_append(key, path, plen) : 0;
}

/* Mappings: their paths joined ("/system/lib64/libc.so"). */
af_status af_pfi_mappings(af_pfi *in, af_pfi_ids *ids, af_pfi_pbmapping **v, size_t n,
                          af_error *err)
{
	size_t i, k;
	af_buf path = {0}, key = {0};
	af_status st = AF_OK;

	path.mem = key.mem = in->modules.mem = in->mem;
	for (i = 0; i < n; i++) {
		const af_pfi_str *build = NULL;
		const char *copy;
		uint32_t s, mod = AF_NONE;
		path.len = 0;
		for (k = 0; k < v[i]->n_path_string_ids; k++) {
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
			st = af_fail(
			    err, AF_ERR_LIMIT, in->off,
			    AF_PFP ": mapping %llu has a path longer than %u bytes",
			    (unsigned long long)v[i]->iid, in->t->limits.max_name_len);
			goto out;
		}
		if (v[i]->build_id && af_u64map_get(&ids->build, v[i]->build_id, &s))
			build = &in->strs[s];
		if (af_pfi_module_key(&key, build ? (const uint8_t *)build->s : NULL,
		                      build ? build->len : 0, path.data, path.len) ||
		    (key.len && (mod = af_names_intern(&in->modules, key.data,
		                                       key.len)) == AF_NONE)) {
			st = af_pfi_nomem(in, err);
			goto out;
		}
		if (in->nmappings >= AF_NONE - 1 ||
		    AF_GROW(in->mem, in->mappings, in->mappings_cap, in->nmappings + 1) ||
		    AF_GROW(in->mem, in->mods, in->mods_cap, in->nmappings + 1) ||
		    AF_GROW(in->mem, in->libs, in->libs_cap, in->nmappings + 1) ||
		    !(copy =
		          af_trace_strdup(in->t, path.len ? path.data : "", path.len)) ||
		    !(in->libs[in->nmappings] = af_pfi_lib(in, build, copy)) ||
		    af_u64map_put(in->mem, &ids->mapping, v[i]->iid,
		                  (uint32_t)in->nmappings)) {
			st = af_pfi_nomem(in, err);
			goto out;
		}
		in->mappings[in->nmappings] = copy;
		in->mods[in->nmappings] = mod;
		in->nmappings++;
	}
out:
	af_buf_free(&path);
	af_buf_free(&key);
	return st;
}

/* The last part of a mapping's path: its library. */
static const char *af_pfi_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* The id in the trace's frame names of function name `s` (`len` bytes) of
 * a frame of mapping `m` (AF_NONE for none): demangled unless asked not
 * to, marked "_[k]" when the mapping is the kernel's (perf's mark, which
 * the palettes colour and the labels leave out; stackcollapse-perf
 * --kernel does the same), and given the mapping's library.  The error
 * for a name past the trace's max_name_len names frame `id`, or with `sym`
 * set the symbol of address `id`. */
static af_status af_pfi_name(af_pfi *in, const char *s, size_t len, uint32_t m,
                             int sym, uint64_t id, uint32_t *out, af_error *err)
{
	int dm = in->t->no_demangle ? 0 : af_demangle(&in->dm, s, len);
	const char *text = dm > 0 ? in->dm.data : s;
	uint32_t name;

	if (dm < 0)
		return af_pfi_nomem(in, err);
	if (dm > 0)
		len = in->dm.len;
	if (len > in->t->limits.max_name_len)
		return sym ? af_fail(err, AF_ERR_LIMIT, in->off,
		                     AF_PFP ": a function of the symbol of address 0x%llx has a "
		                            "name longer than %u bytes",
		                     (unsigned long long)id, in->t->limits.max_name_len)
		           : af_fail(err, AF_ERR_LIMIT, in->off,
		                     AF_PFP ": frame %llu's name is longer than %u bytes",
		                     (unsigned long long)id, in->t->limits.max_name_len);
	if (m != AF_NONE &&
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
	if (name == AF_NONE ||
	    (m != AF_NONE &&
	     af_trace_frame_lib(in->t, name, in->libs[m], strlen(in->libs[m]))))
		return af_pfi_nomem(in, err);
	*out = name;
	return AF_OK;
}

/* Frames: named by their function; without one, a frame of a mapping
 * waits for the end (af_pfi_name_unnamed) and its symbol, one without a
 * mapping either is "unknown". */
af_status af_pfi_frames(af_pfi *in, af_pfi_ids *ids, af_pfi_pbframe **v, size_t n,
                        af_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const af_pfi_pbframe *f = v[i];
		uint32_t s = AF_NONE, m = AF_NONE, name = AF_NONE;

		if (f->function_name_id &&
		    !af_u64map_get(&ids->fn, f->function_name_id, &s))
			return af_pfi_missing(in, "frame", f->iid, "function name",
			                      f->function_name_id, err);
		if (f->mapping_id && !af_u64map_get(&ids->mapping, f->mapping_id, &m))
			return af_pfi_missing(in, "frame", f->iid, "mapping",
			                      f->mapping_id, err);
		if (in->nframes >= AF_NONE - 1 ||
		    AF_GROW(in->mem, in->frames, in->frames_cap, in->nframes + 1))
			return af_pfi_nomem(in, err);
		if (s != AF_NONE && in->strs[s].len) {
			AF_FORWARD(af_pfi_name(in, in->strs[s].s, in->strs[s].len, m,
			                       0, f->iid, &name, err));
		} else if (m != AF_NONE) {
			if (AF_GROW(in->mem, in->want, in->want_cap, in->nwant + 1))
				return af_pfi_nomem(in, err);
			in->want[in->nwant].module = in->mods[m];
			in->want[in->nwant].frame = (uint32_t)in->nframes;
			in->want[in->nwant].pc = f->rel_pc;
			in->nwant++;
		} else if ((name = af_names_intern_clean(&in->t->frames, "unknown", 7)) ==
		           AF_NONE) {
			return af_pfi_nomem(in, err);
		}
		if (af_u64map_put(in->mem, &ids->frame, f->iid, (uint32_t)in->nframes))
			return af_pfi_nomem(in, err);
		in->frames[in->nframes].name = name;
		in->frames[in->nframes].mapping = m;
		in->frames[in->nframes].sym = AF_NONE;
		in->nframes++;
	}
	return AF_OK;
}

/* Orders unnamed frames by module, then pc, then frame. */
static int af_pfi_want_cmp(const void *a, const void *b)
{
	const af_pfi_want *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The first unnamed frame of `module` at `pc` in the sorted table, or
 * nwant when there is none. */
static size_t af_pfi_want_find(const af_pfi *in, uint32_t module, uint64_t pc)
{
	size_t lo = 0, hi = in->nwant;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const af_pfi_want *w = &in->want[mid];
		if (w->module < module || (w->module == module && w->pc < pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nwant && in->want[lo].module == module && in->want[lo].pc == pc
	           ? lo
	           : in->nwant;
}

/* The symbol of address `a` of a module: the names of its lines,
 * outermost first.  ModuleSymbols give an address's lines innermost first
 * (the function inlined last, then the ones it was inlined into, the
 * function of the address last), as llvm-symbolizer prints them: Perfetto's
 * trace processor keeps them in that order in its symbol table and writes
 * them so into a pprof Location's lines (GetLinesForSymbolSetId in
 * src/trace_processor/util/profile_builder.cc), whose last line is "the
 * caller into which the preceding entries were inlined" (pprof's
 * profile.proto); its ParseModuleSymbols (importers/proto/profile_module.cc)
 * takes the last line as the address's location.  Lines without a function
 * name are left out; *out is AF_NONE when none is left.  `m` is a mapping
 * of the module, for the kernel's mark. */
static af_status af_pfi_sym_add(af_pfi *in,
                                const Aflame__Pfprof__ModuleSymbols__AddressSymbols *a,
                                uint32_t m, uint32_t *out, af_error *err)
{
	size_t k, first = in->nsymnames;

	*out = AF_NONE;
	if (a->n_lines > in->t->limits.max_depth)
		return af_fail(err, AF_ERR_LIMIT, in->off,
		               AF_PFP
		               ": the symbol of address 0x%llx has more than %u lines",
		               (unsigned long long)a->address, in->t->limits.max_depth);
	if (in->nsyms >= AF_NONE - 1 ||
	    AF_GROW(in->mem, in->syms, in->syms_cap, in->nsyms + 1) ||
	    AF_GROW(in->mem, in->symnames, in->symnames_cap,
	            in->nsymnames + a->n_lines + 1))
		return af_pfi_nomem(in, err);
	for (k = a->n_lines; k-- > 0;) {
		const ProtobufCBinaryData *fn = &a->lines[k]->function_name;
		uint32_t name;
		if (!fn->len)
			continue;
		AF_FORWARD(af_pfi_name(in, (const char *)fn->data, fn->len, m,
		                       1, a->address, &name, err));
		in->symnames[in->nsymnames++] = name;
	}
	if (in->nsymnames == first)
		return AF_OK;
	in->syms[in->nsyms].first = first;
	in->syms[in->nsyms].len = (uint32_t)(in->nsymnames - first);
	*out = (uint32_t)in->nsyms++;
	return AF_OK;
}

af_status af_pfi_symbols(af_pfi *in, const af_pfi_pbsyms *ms, af_error *err)
{
	uint32_t mods[2];
	size_t nmods = 0, i, k, w;
	af_buf key = {0};
	int bad;

	if (!in->nwant || !ms->n_address_symbols)
		return AF_OK;
	if (in->nsorted != in->nwant) {
		qsort(in->want, in->nwant, sizeof *in->want, af_pfi_want_cmp);
		in->nsorted = in->nwant;
	}
	/* the mappings with its build id, and those of its path without one */
	key.mem = in->mem;
	bad = af_pfi_module_key(&key, ms->build_id.data, ms->build_id.len, NULL, 0);
	if (!bad && key.len &&
	    (mods[nmods] = af_names_find(&in->modules, key.data, key.len)) != AF_NONE)
		nmods++;
	bad = bad ||
	      af_pfi_module_key(&key, NULL, 0, (const char *)ms->path.data, ms->path.len);
	if (!bad && key.len &&
	    (mods[nmods] = af_names_find(&in->modules, key.data, key.len)) != AF_NONE)
		nmods++;
	af_buf_free(&key);
	if (bad)
		return af_pfi_nomem(in, err);
	for (i = 0; i < nmods; i++)
		for (k = 0; k < ms->n_address_symbols; k++) {
			const Aflame__Pfprof__ModuleSymbols__AddressSymbols *a =
			    ms->address_symbols[k];
			uint32_t sym;
			w = af_pfi_want_find(in, mods[i], a->address);
			if (w == in->nwant)
				continue;
			AF_FORWARD(af_pfi_sym_add(
			    in, a, in->frames[in->want[w].frame].mapping, &sym, err));
			if (sym == AF_NONE)
				continue;
			for (; w < in->nwant && in->want[w].module == mods[i] &&
			       in->want[w].pc == a->address;
			     w++)
				in->frames[in->want[w].frame].sym = sym;
		}
	return AF_OK;
}

/* The name of an unnamed frame that no symbol named: its library and its
 * pc relative to the mapping ("libc.so+0x4a2c", "build id 9f3c01ab+0x4a2c"
 * for a mapping known by its build id alone), the pc alone ("0x4a2c") for
 * a mapping with neither path nor build id. */
static af_status af_pfi_name_pc(af_pfi *in, uint32_t m, uint64_t pc, uint32_t *out,
                                af_error *err)
{
	const char *lib = in->libs[m];

	in->dm.len = 0;
	if (af_buf_printf(&in->dm, "%s%s0x%llx", lib, *lib ? "+" : "",
	                  (unsigned long long)pc))
		return af_pfi_nomem(in, err);
	*out = af_names_intern_clean(&in->t->frames, in->dm.data, in->dm.len);
	if (*out == AF_NONE ||
	    (*lib && af_trace_frame_lib(in->t, *out, lib, strlen(lib))))
		return af_pfi_nomem(in, err);
	return AF_OK;
}

af_status af_pfi_name_unnamed(af_pfi *in, af_error *err)
{
	size_t i, k;

	for (i = 0; i < in->nwant; i++) {
		af_pfi_frame *f = &in->frames[in->want[i].frame];
		if (f->sym == AF_NONE) {
			AF_FORWARD(af_pfi_name_pc(in, f->mapping, in->want[i].pc,
			                          &f->name, err));
			continue;
		}
		/* the library of each mapping the symbol names a frame of */
		for (k = 0; k < in->syms[f->sym].len; k++) {
			uint32_t name = in->symnames[in->syms[f->sym].first + k];
			const char *lib = in->libs[f->mapping];
			if (af_trace_frame_lib(in->t, name, lib, strlen(lib)))
				return af_pfi_nomem(in, err);
		}
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
	uint32_t node = root, k, j, depth = 0;

	for (k = 0; k < s->len; k++) {
		const af_pfi_frame *f = &in->frames[in->pool[s->first + k]];
		const af_pfi_sym *sym = f->sym != AF_NONE ? &in->syms[f->sym] : NULL;
		uint32_t n = sym ? sym->len : 1;
		if (n > in->t->limits.max_depth - depth)
			return af_fail(err, AF_ERR_LIMIT, -1,
			               AF_PFP
			               ": a callstack is deeper than %u frames with the "
			               "functions its symbols inline",
			               in->t->limits.max_depth);
		depth += n;
		for (j = 0; j < n; j++) {
			node =
			    af_ptree_child(&in->t->tree, node,
			                   sym ? in->symnames[sym->first + j] : f->name);
			if (node == AF_NONE)
				return af_trace_no_path(in->t, -1, err);
		}
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
	af_free(in->mem, in->mods);
	af_free(in->mem, in->want);
	af_free(in->mem, in->syms);
	af_free(in->mem, in->symnames);
	af_names_free(&in->modules);
	af_buf_free(&in->dm);
}
