#include "sortcases.h"

#include <string.h>

const char *const pat_names[PAT_COUNT] = {"random",       "sorted",          "reversed", "all-equal",
                                          "few-distinct", "one-byte-differs"};

uint64_t rng_state;

uint32_t rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 32);
}

void make_keys(uint32_t *k, size_t n, int pat, int is_float)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t v;
        switch (pat) {
        case PAT_SORTED: v = (uint32_t)i * 7u; break;
        case PAT_REVERSED: v = (uint32_t)(n - i) * 7u; break;
        case PAT_EQUAL: v = 0x3f800000u; break;
        case PAT_FEW: v = (rng_next() % 4) * 0x01010101u; break;
        case PAT_ONE_BYTE: v = 0x12345600u | (rng_next() & 0xffu); break;
        default: v = rng_next(); break;
        }
        if (is_float) {
            /* finite floats of both signs; keep NaNs out (library order of NaNs is not ours to test) */
            float f;
            if (pat == PAT_RANDOM) f = ((float)(v >> 8) / 16777216.0f - 0.5f) * 200.0f;
            else if (pat == PAT_EQUAL) f = 1.0f;
            else f = (float)((int32_t)(v % 100003u) - 50000) * 0.25f;
            memcpy(&v, &f, 4);
        }
        k[i] = v;
    }
    if (is_float && n >= 8 && pat == PAT_RANDOM) {
        /* special values: both zeros, infinities, denormals, extremes */
        const uint32_t sp[8] = {0x80000000u, 0x00000000u, 0x7f800000u, 0xff800000u,
                                0x00000001u, 0x80000001u, 0x7f7fffffu, 0xff7fffffu};
        for (int j = 0; j < 8; j++) k[(size_t)j * (n / 8)] = sp[j];
    }
}
