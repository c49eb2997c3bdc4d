/*
 * fuzz_deflate.c - the quick deflate of a set's thumbnails (render/deflate.h)
 * on any bytes: the input's first byte says how they are given (pieces of
 * 1 to 4096 bytes, and whether a piece that is a byte and zeros goes
 * through af_deflate_zeros as a PNG row that repeats the one above does),
 * the rest are the bytes.  zlib must inflate the stream to exactly those
 * bytes, with its Adler-32.  Built as the libFuzzer target fuzz_deflate with
 * -DAFLAME_FUZZ, and linked into the replay driver fuzz_replay_deflate that
 * runs under ctest in every build.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "deflate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t pieces[8] = {1, 3, 7, 64, 257, 1441, 4096, (size_t)-1};
	af_mem *mem;
	af_deflate d;
	unsigned char *back;
	uLongf back_len;
	size_t piece, at = 0, n;
	int zeros, bad;

	if (size < 1)
		return 0;
	piece = pieces[data[0] & 7];
	zeros = (data[0] & 8) != 0;
	data++;
	n = size - 1;
	mem = af_mem_new(NULL, 1u << 30);
	back = malloc(n + 1);
	if (!mem || !back)
		abort();
	bad = af_deflate_init(&d, mem);
	while (!bad && at < n) {
		size_t k = n - at < piece ? n - at : piece, z = 0;
		while (zeros && 1 + z < k && data[at + 1 + z] == 0)
			z++;
		bad = zeros && k > 1 && 1 + z == k ? af_deflate_zeros(&d, data[at], z)
		                                   : af_deflate_write(&d, data + at, k);
		at += k;
	}
	if (bad || af_deflate_finish(&d))
		abort(); /* out of memory under a budget of a gibibyte */
	back_len = (uLongf)n + 1;
	if (uncompress(back, &back_len, (const Bytef *)d.out.data, (uLong)d.out.len) != Z_OK ||
	    back_len != n || (n && memcmp(back, data, n) != 0))
		abort();
	af_deflate_free(&d);
	af_mem_unref(mem);
	free(back);
	return 0;
}
