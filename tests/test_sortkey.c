/* tests/test_sortkey.c (cpu): the float <-> key bit flip on every special
 * value (bit-exact round trip, key order == IEEE 754 totalOrder) and the CPU
 * LSD radix sorts against qsort on random and adversarial inputs.
 *
 * NaNs: keys order them by sign and payload (totalOrder): sign-set NaNs sort
 * before -inf (larger payload first), sign-clear NaNs after +inf (larger
 * payload last). Float results are compared as bit patterns against qsort by
 * key, so they must match exactly, NaN payloads included. */
#include "sortkey.h"
#include "testlib.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---- helpers ----------------------------------------------------------------

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rng_u32(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_from_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

/* qsort comparator on the bits of floats, by key (never loads a float). */
static int cmp_f32_key(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    x = sortkey_from_float(float_from_bits(x));
    y = sortkey_from_float(float_from_bits(y));
    return (x > y) - (x < y);
}

// ---- bit flip on special values -----------------------------------------------

/* In IEEE 754 totalOrder, strictly increasing. */
static const uint32_t special_bits[] = {
    0xFFC00000u, /* -quiet NaN */
    0xFF800001u, /* -signalling NaN */
    0xFF800000u, /* -inf */
    0xFF7FFFFFu, /* -FLT_MAX */
    0xBF800000u, /* -1 */
    0x80800000u, /* -FLT_MIN */
    0x807FFFFFu, /* -largest denormal */
    0x80000001u, /* -smallest denormal */
    0x80000000u, /* -0 */
    0x00000000u, /* +0 */
    0x00000001u, /* +smallest denormal */
    0x007FFFFFu, /* +largest denormal */
    0x00800000u, /* +FLT_MIN */
    0x3F800000u, /* +1 */
    0x7F7FFFFFu, /* +FLT_MAX */
    0x7F800000u, /* +inf */
    0x7F800001u, /* +signalling NaN */
    0x7FC00000u, /* +quiet NaN */
};
#define N_SPECIAL (sizeof special_bits / sizeof special_bits[0])

static void test_flip_special(void)
{
    CHECK(bits_from_float(FLT_MAX) == 0x7F7FFFFFu, "FLT_MAX bits");
    CHECK(bits_from_float(FLT_MIN) == 0x00800000u, "FLT_MIN bits");
    CHECK(bits_from_float(1.0f) == 0x3F800000u && bits_from_float(-1.0f) == 0xBF800000u, "+-1 bits");

    for (size_t i = 0; i < N_SPECIAL; i++) {
        uint32_t b = special_bits[i];
        uint32_t k = sortkey_from_float(float_from_bits(b));
        uint32_t back = bits_from_float(sortkey_to_float(k));
        CHECK(back == b, "round trip of 0x%08x gave 0x%08x (key 0x%08x)", b, back, k);
        for (size_t j = 0; j < N_SPECIAL; j++) {
            uint32_t kj = sortkey_from_float(float_from_bits(special_bits[j]));
            if (i < j)
                CHECK(k < kj, "key order: 0x%08x (key 0x%08x) !< 0x%08x (key 0x%08x)", b, k,
                      special_bits[j], kj);
            /* float comparison (no NaNs involved: both are ordered) */
            float x = float_from_bits(b), y = float_from_bits(special_bits[j]);
            if (x == x && y == y && x < y)
                CHECK(k < kj, "x < y but key(x) >= key(y): 0x%08x 0x%08x", b, special_bits[j]);
        }
    }
    CHECK(sortkey_from_float(float_from_bits(0x80000000u)) == 0x7FFFFFFFu, "key(-0)");
    CHECK(sortkey_from_float(0.0f) == 0x80000000u, "key(+0)");
    CHECK(sortkey_from_float(float_from_bits(0xFFFFFFFFu)) == 0u, "key(most negative NaN) == 0");
    CHECK(sortkey_from_float(float_from_bits(0x7FFFFFFFu)) == 0xFFFFFFFFu, "key(most positive NaN) == max");

    /* every key (sampled) round-trips through float bit-exactly both ways */
    int bad = 0;
    for (uint64_t k = 0; k <= 0xFFFFFFFFull; k += 65521) {
        uint32_t kk = (uint32_t)k;
        if (sortkey_from_float(sortkey_to_float(kk)) != kk)
            bad++;
        if (bits_from_float(sortkey_to_float(sortkey_from_float(float_from_bits(kk)))) != kk)
            bad++;
    }
    CHECK(bad == 0, "%d sampled round trips failed", bad);

    /* monotonic on random pairs of ordered (non-NaN) floats */
    bad = 0;
    for (int i = 0; i < 100000; i++) {
        float x = float_from_bits(rng_u32()), y = float_from_bits(rng_u32());
        if (x == x && y == y && x < y && !(sortkey_from_float(x) < sortkey_from_float(y)))
            bad++;
    }
    CHECK(bad == 0, "%d random ordered pairs out of key order", bad);
}

// ---- radix sort against qsort -------------------------------------------------

/* Sorts a copy of bits[0..n) with the CPU radix sort (u32 or f32) and with
 * qsort, and checks the two are bit-identical. */
static void check_sort(const uint32_t *bits, size_t n, int is_float, const char *what)
{
    size_t bytes = (n ? n : 1) * 4;
    uint32_t *want = malloc(bytes);
    uint32_t *got = malloc(bytes);
    uint32_t *tmp = malloc(bytes);
    if (!want || !got || !tmp) {
        CHECK(0, "out of memory for n=%zu", n);
        free(want);
        free(got);
        free(tmp);
        return;
    }
    if (n)
        memcpy(want, bits, n * 4);
    qsort(want, n, 4, is_float ? cmp_f32_key : cmp_u32);

    if (is_float) {
        float *g = malloc(bytes);
        float *t = malloc(bytes);
        if (!g || !t) {
            CHECK(0, "out of memory for n=%zu", n);
        } else {
            if (n)
                memcpy(g, bits, n * 4);
            sortkey_cpu_radix_f32(g, t, n);
            if (n)
                memcpy(got, g, n * 4);
        }
        free(g);
        free(t);
    } else {
        if (n)
            memcpy(got, bits, n * 4);
        sortkey_cpu_radix_u32(got, tmp, n);
    }

    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            first_bad = i;
            break;
        }
    }
    CHECK(first_bad == n, "%s %s n=%zu: first mismatch at %zu: got 0x%08x want 0x%08x",
          is_float ? "f32" : "u32", what, n, first_bad, first_bad < n ? got[first_bad] : 0,
          first_bad < n ? want[first_bad] : 0);
    free(want);
    free(got);
    free(tmp);
}

static void check_both(const uint32_t *bits, size_t n, const char *what)
{
    check_sort(bits, n, 0, what);
    check_sort(bits, n, 1, what);
}

static void test_radix(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 255, 256, 257, 100000};
    const size_t max_n = 100000;
    uint32_t *a = malloc(max_n * 4);
    if (!a) {
        CHECK(0, "out of memory");
        return;
    }

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];

        for (size_t i = 0; i < n; i++)
            a[i] = rng_u32();
        check_both(a, n, "random bits");

        /* ordinary floats in [-1000, 1000), few NaN: the common float case */
        for (size_t i = 0; i < n; i++) {
            float f = (float)((double)rng_u32() / 4294967296.0 * 2000.0 - 1000.0);
            a[i] = bits_from_float(f);
        }
        check_both(a, n, "random floats");

        /* random with the special values sprinkled in */
        for (size_t i = 0; i < n; i++)
            a[i] = (rng_u32() & 3) ? rng_u32() : special_bits[rng_u32() % N_SPECIAL];
        check_both(a, n, "random + specials");

        for (size_t i = 0; i < n; i++)
            a[i] = (uint32_t)i * 2654435761u;
        qsort(a, n, 4, cmp_u32);
        check_both(a, n, "sorted u32");
        for (size_t i = 0; i < n / 2; i++) {
            uint32_t t = a[i];
            a[i] = a[n - 1 - i];
            a[n - 1 - i] = t;
        }
        check_both(a, n, "reversed u32");

        for (size_t i = 0; i < n; i++)
            a[i] = (uint32_t)i * 2654435761u;
        qsort(a, n, 4, cmp_f32_key);
        check_both(a, n, "sorted by float key");
        for (size_t i = 0; i < n / 2; i++) {
            uint32_t t = a[i];
            a[i] = a[n - 1 - i];
            a[n - 1 - i] = t;
        }
        check_both(a, n, "reversed by float key");

        for (size_t i = 0; i < n; i++)
            a[i] = 0xDEADBEEFu;
        check_both(a, n, "all equal");

        static const uint32_t few[] = {7u, 0x80000000u, 0x3F800000u, 0xBF800000u};
        for (size_t i = 0; i < n; i++)
            a[i] = few[rng_u32() % 4];
        check_both(a, n, "few distinct");

        for (int byte = 0; byte < 4; byte++) {
            for (size_t i = 0; i < n; i++) {
                uint32_t r = rng_u32() & 0xFFu;
                a[i] = (0xA5A5A5A5u & ~(0xFFu << (8 * byte))) | (r << (8 * byte));
            }
            check_both(a, n, "one byte varies");
        }

        for (size_t i = 0; i < n; i++)
            a[i] = (rng_u32() & 1) ? 0xFFFFFFFFu : 0u;
        check_both(a, n, "0 and 0xFFFFFFFF");
    }

    /* a small case by hand: the expected float order spelled out */
    float v[6] = {1.0f, -0.0f, 0.0f, -1.0f, FLT_MAX, -FLT_MAX};
    float t[6];
    sortkey_cpu_radix_f32(v, t, 6);
    CHECK(bits_from_float(v[0]) == 0xFF7FFFFFu && bits_from_float(v[1]) == 0xBF800000u &&
              bits_from_float(v[2]) == 0x80000000u && bits_from_float(v[3]) == 0x00000000u &&
              bits_from_float(v[4]) == 0x3F800000u && bits_from_float(v[5]) == 0x7F7FFFFFu,
          "hand case: -FLT_MAX -1 -0 +0 1 FLT_MAX");

    free(a);
}

int main(void)
{
    test_flip_special();
    test_radix();
    return test_finish("test_sortkey");
}
