/*
 * deflate.c - see deflate.h.  A flame graph's filtered rows are runs of
 * zeros (a row like the one above it, a band of one colour) between bytes
 * that change at every pixel (frames a pixel or two wide).  zlib's run
 * strategy finds the same matches, one byte at a time and at about 110 MB/s
 * on such rows; this finds them a word at a time and spends its time on
 * the literals, which a block's own Huffman code makes small.
 */
#include <string.h>

#include "deflate.h"

#define AF_BLOCK_TOKENS 65536 /* a block is coded when it holds this many */
#define AF_LITLEN 286         /* literals, end of block, 29 length codes */
#define AF_DIST 30
#define AF_CODELEN 19

/* Lengths 3 to 258: their codes' first lengths and extra bits (RFC 1951
 * 3.2.5); code 257 + k is base[k] up to base[k + 1] - 1. */
static const uint16_t af_len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
                                         15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
                                         67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t af_len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

/* The order code lengths' own code lengths are written in. */
static const uint8_t af_cl_order[AF_CODELEN] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                11, 4,  12, 3, 13, 2, 14, 1, 15};

/* A code for some symbols: each one's length (0: unused) and bits, the
 * first to send lowest. */
typedef struct af_code {
	uint8_t len[AF_LITLEN];
	uint16_t bits[AF_LITLEN];
} af_code;

/* The length code of a run of `len` (3 to 258): its index k in af_len_base.
 * Lengths 3 to 10 have a code each; from 11, each doubling of len - 3 has
 * four codes, told apart by the two bits under its highest; 258 its own. */
static int af_len_code(unsigned len)
{
	unsigned v = len - 3;
	int e;

	if (v < 8)
		return (int)v;
	if (len == 258)
		return 28;
	e = 29 - __builtin_clz(v); /* v's highest bit, less 2 */
	return 4 * e + 4 + (int)((v >> e) & 3);
}

/* Sorts symbols by frequency, rarest first, ties by symbol: each as one
 * key, its frequency above its symbol, shell sorted (an insertion sort of
 * a block's 286 took a third of the time its codes took to write, qsort's
 * calls a sixth). */
static void af_by_freq(uint16_t *sym, int m, const uint32_t *freq)
{
	static const int gaps[] = {132, 57, 23, 10, 4, 1};
	uint64_t key[AF_LITLEN];
	int i, j, g;

	for (i = 0; i < m; i++)
		key[i] = (uint64_t)freq[sym[i]] << 16 | sym[i];
	for (g = 0; g < (int)(sizeof gaps / sizeof gaps[0]); g++)
		for (i = gaps[g]; i < m; i++) {
			uint64_t k = key[i];
			for (j = i; j >= gaps[g] && key[j - gaps[g]] > k; j -= gaps[g])
				key[j] = key[j - gaps[g]];
			key[j] = k;
		}
	for (i = 0; i < m; i++)
		sym[i] = (uint16_t)key[i];
}

/* A Huffman code for the `n` symbols of frequencies `freq`, no code longer
 * than `limit` bits.  The lengths are Huffman's (the two rarest merged,
 * over and over); those over the limit are moved up as libjpeg does, which
 * keeps the code complete; then the rarest symbols take the longest.  A
 * lone symbol gets a partner, so that every code is complete. */
static void af_make_code(const uint32_t *freq, int n, int limit, af_code *c)
{
	uint16_t sym[AF_LITLEN];
	uint32_t w[2 * AF_LITLEN];
	uint16_t parent[2 * AF_LITLEN], depth[2 * AF_LITLEN];
	unsigned count[2 * AF_LITLEN] = {0}, next[16], code = 0;
	int m = 0, i, k, leaf = 0, inner, made, len, max = 0;

	memset(c->len, 0, sizeof c->len);
	for (i = 0; i < n; i++)
		if (freq[i])
			sym[m++] = (uint16_t)i;
	if (m < 2) {
		/* one symbol (or none): it and a partner, a bit each */
		int only = m ? sym[0] : 0;
		c->len[only] = 1;
		c->len[only == 0 ? 1 : 0] = 1;
	} else {
		af_by_freq(sym, m, freq);
		for (i = 0; i < m; i++)
			w[i] = freq[sym[i]];
		/* leaves 0..m-1 and inner nodes m.. are each made in order of
		 * weight: the two lightest are at the heads of the two lists */
		inner = made = m;
		for (k = 0; k < m - 1; k++) {
			int pick[2], p;
			for (p = 0; p < 2; p++)
				pick[p] = leaf < m && (inner == made || w[leaf] <= w[inner]) ? leaf++
				                                                             : inner++;
			w[made] = w[pick[0]] + w[pick[1]];
			parent[pick[0]] = parent[pick[1]] = (uint16_t)made;
			made++;
		}
		depth[made - 1] = 0;
		for (i = made - 2; i >= 0; i--) {
			depth[i] = (uint16_t)(depth[parent[i]] + 1);
			if (i < m) {
				count[depth[i]]++;
				if (depth[i] > max)
					max = depth[i];
			}
		}
		for (len = max; len > limit; len--)
			while (count[len] > 0) {
				int j = len - 2;
				while (count[j] == 0)
					j--;
				count[len] -= 2;
				count[len - 1]++;
				count[j + 1] += 2;
				count[j]--;
			}
		for (len = limit, k = 0; len >= 1; len--)
			for (i = 0; i < (int)count[len]; i++)
				c->len[sym[k++]] = (uint8_t)len;
	}
	/* canonical codes, their bits reversed: Huffman codes go highest bit
	 * first into a stream written lowest bit first */
	memset(count, 0, 16 * sizeof count[0]);
	for (i = 0; i < n; i++)
		count[c->len[i]]++;
	count[0] = 0;
	for (len = 1; len < 16; len++) {
		code = (code + count[len - 1]) << 1;
		next[len] = code;
	}
	for (i = 0; i < n; i++) {
		unsigned v, r = 0;
		if (!c->len[i])
			continue;
		v = next[c->len[i]]++;
		for (k = 0; k < c->len[i]; k++, v >>= 1)
			r = (r << 1) | (v & 1);
		c->bits[i] = (uint16_t)r;
	}
}

/* A bit writer kept in locals while a block is coded (through `d`, every
 * byte stored would make the compiler load the bits again). */
typedef struct af_bits {
	uint64_t acc;     /* bits not yet stored, the first lowest */
	unsigned n;
	unsigned char *p; /* where they go; room was made for them */
} af_bits;

/* The 8 bytes of `v` at `p`, lowest first. */
static inline void af_store64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	int i;
	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> 8 * i);
#endif
}

static inline void af_put(af_bits *w, uint32_t bits, unsigned n)
{
	w->acc |= (uint64_t)bits << w->n;
	w->n += n;
	if (w->n >= 32) {
		uint32_t v = (uint32_t)w->acc;
		w->p[0] = (unsigned char)v;
		w->p[1] = (unsigned char)(v >> 8);
		w->p[2] = (unsigned char)(v >> 16);
		w->p[3] = (unsigned char)(v >> 24);
		w->acc >>= 32;
		w->n -= 32;
		w->p += 4;
	}
}

/* The code lengths of a block's two codes, run-length coded as RFC 1951
 * 3.2.7 says: symbols 0-15, 16 (the last repeated 3-6 times), 17 (3-10
 * zeros), 18 (11-138 zeros); each symbol's extra bits in `extra`. */
static int af_rle_lengths(const uint8_t *lens, int n, uint8_t *out, uint8_t *extra)
{
	int i = 0, k = 0;

	while (i < n) {
		int v = lens[i], r = 1;
		while (i + r < n && lens[i + r] == v)
			r++;
		i += r;
		if (v == 0) {
			while (r >= 11) {
				int t = r > 138 ? 138 : r;
				out[k] = 18;
				extra[k++] = (uint8_t)(t - 11);
				r -= t;
			}
			if (r >= 3) {
				out[k] = 17;
				extra[k++] = (uint8_t)(r - 3);
				r = 0;
			}
		} else {
			out[k] = (uint8_t)v;
			extra[k++] = 0;
			r--;
			while (r >= 3) {
				int t = r > 6 ? 6 : r;
				out[k] = 16;
				extra[k++] = (uint8_t)(t - 3);
				r -= t;
			}
		}
		while (r-- > 0) {
			out[k] = (uint8_t)v;
			extra[k++] = 0;
		}
	}
	return k;
}

/* Codes the tokens held as one block with codes of its own. */
static int af_emit_block(af_deflate *d, int last)
{
	static const uint8_t cl_extra_bits[3] = {2, 3, 7};
	uint32_t dfreq[AF_DIST] = {0}, cfreq[AF_CODELEN] = {0};
	af_code lit, dist, cl;
	uint8_t lens[AF_LITLEN + AF_DIST], rle[AF_LITLEN + AF_DIST], extra[AF_LITLEN + AF_DIST];
	/* each token's bits and their number: a literal's code, or a run's
	 * length code, extra bits and the distance's code as one string (at
	 * most 15 + 5 + 1: one distance is used, and af_make_code gives a
	 * lone symbol one bit) */
	uint32_t tbits[512];
	uint8_t tlen[512];
	int nlit = 257, ndist = 1, ncl = 4, nrle, i;
	const uint16_t *tokens = d->tokens;
	size_t t, room, n = d->ntokens;
	af_bits w;

	d->lfreq[256] = 1;
	dfreq[0] = d->runs;
	af_make_code(d->lfreq, AF_LITLEN, 15, &lit);
	af_make_code(dfreq, AF_DIST, 15, &dist);
	for (i = 0; i < AF_LITLEN; i++)
		if (lit.len[i])
			nlit = i + 1 > nlit ? i + 1 : nlit;
	for (i = 0; i < AF_DIST; i++)
		if (dist.len[i])
			ndist = i + 1;
	memcpy(lens, lit.len, (size_t)nlit);
	memcpy(lens + nlit, dist.len, (size_t)ndist);
	nrle = af_rle_lengths(lens, nlit + ndist, rle, extra);
	for (i = 0; i < nrle; i++)
		cfreq[rle[i]]++;
	af_make_code(cfreq, AF_CODELEN, 7, &cl);
	for (i = 0; i < AF_CODELEN; i++)
		if (cl.len[af_cl_order[i]])
			ncl = i + 1 > ncl ? i + 1 : ncl;
	for (i = 0; i < 256; i++) {
		tbits[i] = lit.bits[i];
		tlen[i] = lit.len[i];
	}
	for (i = 0; i < 256 && d->runs; i++) {
		unsigned len = (unsigned)i + 3;
		int k = af_len_code(len);
		tbits[256 + i] = lit.bits[257 + k] |
		                 (len - af_len_base[k]) << lit.len[257 + k] |
		                 (uint32_t)dist.bits[0] << (lit.len[257 + k] + af_len_extra[k]);
		tlen[256 + i] = (uint8_t)(lit.len[257 + k] + af_len_extra[k] + dist.len[0]);
	}
	/* room for the header and the longest codes (a literal's 15 bits, a
	 * run's 21), and for the last 8 bytes stored whole */
	room = 8 + (size_t)(17 + 3 * AF_CODELEN + 14 * (AF_LITLEN + AF_DIST)) / 8 +
	       n * 21 / 8 + 16;
	if (AF_GROW(d->mem, d->out.data, d->out.cap, d->out.len + room + 1))
		return d->failed = -1;
	w.acc = d->bits;
	w.n = d->nbits;
	w.p = (unsigned char *)d->out.data + d->out.len;
	af_put(&w, last ? 1 : 0, 1);
	af_put(&w, 2, 2); /* dynamic Huffman codes */
	af_put(&w, (uint32_t)(nlit - 257), 5);
	af_put(&w, (uint32_t)(ndist - 1), 5);
	af_put(&w, (uint32_t)(ncl - 4), 4);
	for (i = 0; i < ncl; i++)
		af_put(&w, cl.len[af_cl_order[i]], 3);
	for (i = 0; i < nrle; i++) {
		af_put(&w, cl.bits[rle[i]], cl.len[rle[i]]);
		if (rle[i] >= 16)
			af_put(&w, extra[i], cl_extra_bits[rle[i] - 16]);
	}
	{
		/* the tokens, two at a time with no branch: under 8 bits are
		 * held, two tokens add at most 42, and the whole bytes are
		 * stored as 8 (the ones past them are stored again later) */
		uint64_t acc = w.acc;
		unsigned nb = w.n;
		unsigned char *p = w.p;
		/* the header left up to 31 bits: its whole bytes stored first */
		af_store64(p, acc);
		p += nb >> 3;
		acc >>= nb & ~7u;
		nb &= 7;
		for (t = 0; t + 2 <= n; t += 2) {
			unsigned u = tokens[t], v = tokens[t + 1];
			acc |= (uint64_t)tbits[u] << nb;
			nb += tlen[u];
			acc |= (uint64_t)tbits[v] << nb;
			nb += tlen[v];
			af_store64(p, acc);
			p += nb >> 3;
			acc >>= nb & ~7u;
			nb &= 7;
		}
		w.acc = acc;
		w.n = nb;
		w.p = p;
		if (t < n)
			af_put(&w, tbits[tokens[t]], tlen[tokens[t]]);
	}
	af_put(&w, lit.bits[256], lit.len[256]);
	d->bits = w.acc;
	d->nbits = w.n;
	d->out.len = (size_t)(w.p - (unsigned char *)d->out.data);
	d->ntokens = 0;
	d->runs = 0;
	memset(d->lfreq, 0, sizeof d->lfreq);
	return 0;
}

int af_deflate_init(af_deflate *d, af_mem *mem)
{
	static const char header[2] = {0x78, 0x01}; /* deflate, 32 KiB window, fastest */

	memset(d, 0, sizeof *d);
	d->mem = mem;
	d->out.mem = mem;
	d->a = 1;
	if (af_buf_append(&d->out, header, 2))
		return d->failed = -1;
	return 0;
}

/* Where tokens go while bytes are taken, kept in locals (through `d`, each
 * token stored would make the compiler load every field again). */
typedef struct af_taker {
	uint16_t *tok;  /* the next token's place; room was made */
	uint32_t *freq; /* d->lfreq */
	uint32_t runs;
	uint64_t a, b;  /* Adler-32's sums */
} af_taker;

static af_taker af_take_begin(af_deflate *d)
{
	af_taker t = {d->tokens + d->ntokens, d->lfreq, d->runs, d->a, d->b};
	return t;
}

static void af_take_end(af_deflate *d, const af_taker *t)
{
	d->ntokens = (size_t)(t->tok - d->tokens);
	d->runs = t->runs;
	d->a = t->a;
	d->b = t->b;
}

/* A byte `c` and `r - 1` more of it: a literal, then runs one byte back
 * (258 at most, never leaving one of 1 or 2), then literals. */
static inline void af_run(af_taker *t, unsigned char c, size_t r)
{
	size_t left = r - 1;

	/* Adler-32: each byte adds c to a, and then a to b */
	t->b += r * t->a + (uint64_t)c * r * (r + 1) / 2;
	t->a += (uint64_t)c * r;
	*t->tok++ = c;
	t->freq[c]++;
	while (left >= 3) {
		size_t len = left > 258 ? (left - 258 < 3 ? left - 3 : 258) : left;
		*t->tok++ = (uint16_t)(256 + len - 3);
		t->freq[257 + af_len_code((unsigned)len)]++;
		t->runs++;
		left -= len;
	}
	for (; left > 0; left--) {
		*t->tok++ = c;
		t->freq[c]++;
	}
}

/* After at most 65536 bytes: the sums reduced, and the block coded when
 * it is full. */
static int af_settle(af_deflate *d)
{
	d->a %= 65521;
	d->b %= 65521;
	return d->ntokens >= AF_BLOCK_TOKENS ? af_emit_block(d, 0) : 0;
}

int af_deflate_write(af_deflate *d, const unsigned char *p, size_t n)
{
	size_t i = 0;

	if (d->failed)
		return -1;
	while (i < n) {
		/* at most a token a byte until the block is coded */
		size_t take = n - i < AF_BLOCK_TOKENS ? n - i : AF_BLOCK_TOKENS, end = i + take;
		af_taker t;
		/* room for a whole block at once: it never has more than this */
		if (AF_GROW(d->mem, d->tokens, d->cap, 2 * AF_BLOCK_TOKENS))
			return d->failed = -1;
		t = af_take_begin(d);
		while (i < end) {
			unsigned char c = p[i];
			size_t r = 1;
			if (i + 1 < end && p[i + 1] == c) {
				uint64_t word = 0x0101010101010101ull * c, x;
				while (i + r + 8 <= end && (memcpy(&x, p + i + r, 8), x == word))
					r += 8;
				while (i + r < end && p[i + r] == c)
					r++;
				af_run(&t, c, r);
			} else {
				/* a lone byte: Adler-32 and a literal */
				t.a += c;
				t.b += t.a;
				*t.tok++ = c;
				t.freq[c]++;
			}
			i += r;
		}
		af_take_end(d, &t);
		if (af_settle(d))
			return -1;
	}
	return 0;
}

int af_deflate_zeros(af_deflate *d, unsigned char first, size_t zeros)
{
	af_taker t;

	if (d->failed)
		return -1;
	/* a literal, then the zeros: a literal, runs of 258 but the last two,
	 * and at most two literals */
	if (AF_GROW(d->mem, d->tokens, d->cap, d->ntokens + 6 + zeros / 258))
		return d->failed = -1;
	t = af_take_begin(d);
	af_run(&t, first, 1);
	if (zeros)
		af_run(&t, 0, zeros);
	af_take_end(d, &t);
	return af_settle(d);
}

int af_deflate_finish(af_deflate *d)
{
	uint32_t adler;
	unsigned char *p;

	if (d->failed || af_emit_block(d, 1))
		return -1;
	if (AF_GROW(d->mem, d->out.data, d->out.cap, d->out.len + 16))
		return d->failed = -1;
	p = (unsigned char *)d->out.data + d->out.len;
	/* to a whole byte, then the Adler-32, highest byte first */
	while (d->nbits > 0) {
		*p++ = (unsigned char)d->bits;
		d->bits >>= 8;
		d->nbits = d->nbits > 8 ? d->nbits - 8 : 0;
	}
	adler = (uint32_t)(d->b % 65521) << 16 | (uint32_t)(d->a % 65521);
	p[0] = (unsigned char)(adler >> 24);
	p[1] = (unsigned char)(adler >> 16);
	p[2] = (unsigned char)(adler >> 8);
	p[3] = (unsigned char)adler;
	d->out.len = (size_t)(p + 4 - (unsigned char *)d->out.data);
	return 0;
}

void af_deflate_free(af_deflate *d)
{
	af_free(d->mem, d->tokens);
	d->tokens = NULL;
	af_buf_free(&d->out);
}
