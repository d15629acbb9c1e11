/* src/core/sortkey.h: 32-bit sort keys on the CPU.
 *
 * The IEEE order-preserving bit flip maps a float's bits to a uint32 key whose
 * unsigned order is the IEEE 754 totalOrder: if the sign bit is set every bit is
 * flipped, else only the sign bit. So -NaN < -inf < ... < -0 < +0 < ... < +inf
 * < +NaN, NaNs ordered by payload (the same rule the GPU radix sort uses, see
 * kernels/sort_radix.cu). The CPU radix sorts are the plain reference versions
 * of the GPU one: LSD, 8-bit digits, 4 stable counting passes. */
#ifndef SRC_SORTKEY_H
#define SRC_SORTKEY_H

#include <stddef.h>
#include <stdint.h>

/* Key of a float (bits taken as they are, NaN payloads and signs kept). */
uint32_t sortkey_from_float(float f);

/* Inverse of sortkey_from_float, bit-exact for every key. */
float sortkey_to_float(uint32_t key);

/* Sorts keys[0..n) ascending in place; tmp is caller-owned scratch of n
 * elements (any contents; clobbered). n == 0 is allowed (nothing happens). */
void sortkey_cpu_radix_u32(uint32_t *keys, uint32_t *tmp, size_t n);

/* Sorts keys[0..n) ascending by sortkey_from_float order (IEEE totalOrder:
 * -0 before +0, sign-set NaNs first, sign-clear NaNs last), in place, moving
 * bits only (no float arithmetic touches a value, so NaN payloads survive). */
void sortkey_cpu_radix_f32(float *keys, float *tmp, size_t n);

#endif
