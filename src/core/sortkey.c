/* src/core/sortkey.c: float <-> key bit flip and the CPU LSD radix sorts.
 * See sortkey.h. Values are moved through memcpy, never through float
 * registers or a type-punned pointer: bit patterns (signalling NaNs included)
 * are preserved and strict aliasing is respected. */
#include "sortkey.h"

#include <string.h>

#define SORTKEY_RADIX_BITS 8
#define SORTKEY_RADIX      (1u << SORTKEY_RADIX_BITS)
#define SORTKEY_PASSES     (32 / SORTKEY_RADIX_BITS)

// ---- bit flip ---------------------------------------------------------------

static uint32_t sortkey_flip(uint32_t bits)
{
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

static uint32_t sortkey_unflip(uint32_t key)
{
    return (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
}

uint32_t sortkey_from_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return sortkey_flip(bits);
}

float sortkey_to_float(uint32_t key)
{
    uint32_t bits = sortkey_unflip(key);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

// ---- LSD radix sort ---------------------------------------------------------

static uint32_t sortkey_load(const unsigned char *base, size_t i)
{
    uint32_t v;
    memcpy(&v, base + i * 4, 4);
    return v;
}

static void sortkey_store(unsigned char *base, size_t i, uint32_t v)
{
    memcpy(base + i * 4, &v, 4);
}

/* keys and tmp: n 4-byte elements each. With is_float, the first pass reads
 * float bits and flips them to keys, the last pass flips keys back to bits.
 * SORTKEY_PASSES is even, so the last pass writes into keys. */
static void sortkey_radix_core(void *keys, void *tmp, size_t n, int is_float)
{
    unsigned char *src = keys;
    unsigned char *dst = tmp;
    size_t count[SORTKEY_RADIX];

    for (int pass = 0; pass < SORTKEY_PASSES; pass++) {
        int shift = pass * SORTKEY_RADIX_BITS;
        int flip_in = is_float && pass == 0;
        int flip_out = is_float && pass == SORTKEY_PASSES - 1;

        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) {
            uint32_t k = sortkey_load(src, i);
            if (flip_in)
                k = sortkey_flip(k);
            count[(k >> shift) & (SORTKEY_RADIX - 1)]++;
        }
        size_t sum = 0;
        for (unsigned d = 0; d < SORTKEY_RADIX; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t k = sortkey_load(src, i);
            if (flip_in)
                k = sortkey_flip(k);
            size_t pos = count[(k >> shift) & (SORTKEY_RADIX - 1)]++;
            sortkey_store(dst, pos, flip_out ? sortkey_unflip(k) : k);
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
}

void sortkey_cpu_radix_u32(uint32_t *keys, uint32_t *tmp, size_t n)
{
    sortkey_radix_core(keys, tmp, n, 0);
}

void sortkey_cpu_radix_f32(float *keys, float *tmp, size_t n)
{
    sortkey_radix_core(keys, tmp, n, 1);
}
