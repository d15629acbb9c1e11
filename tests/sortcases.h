/* tests/sortcases.h: the sort inputs the gpu tests and the stress loop share:
 * key patterns that stress a radix sort (sorted, reversed, all equal, few
 * distinct, one byte differing, special floats), the lengths that cross the
 * hand sorts' tile edges, and a seeded generator. CPU only. */
#ifndef TESTS_SORTCASES_H
#define TESTS_SORTCASES_H

#include <stddef.h>
#include <stdint.h>

enum { PAT_RANDOM, PAT_SORTED, PAT_REVERSED, PAT_EQUAL, PAT_FEW, PAT_ONE_BYTE, PAT_COUNT };
extern const char *const pat_names[PAT_COUNT];

/* 4095/4097: radix's tile (4096) edges; 7679/7681: onesweep's (7680) */
#define SORTCASES_LENGTHS {1, 2, 31, 33, 1000, 4095, 4097, 7679, 7681, 65537, 1 << 20}
#define SORTCASES_QUICK 9 /* COMPARE_TEST_QUICK=1: the first 9 lengths */

/* The test's generator (a 64-bit LCG), seeded by the caller. */
extern uint64_t rng_state;
uint32_t rng_next(void);

/* Fills k[0..n) with pattern `pat`, as 32-bit keys or as floats (finite, both
 * signs; the random float pattern also plants +-0, +-inf, denormals and the
 * extremes). */
void make_keys(uint32_t *k, size_t n, int pat, int is_float);

#endif
