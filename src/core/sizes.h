/* src/core/sizes.h: parsing of size arguments (--m, --n, --k, --elems, and
 * the integer axes of --axis NAME=LIST).
 *
 * Accepted forms, combinable in a comma list:
 *   4096        a plain decimal integer
 *   2^26        a power of two
 *   64M, 4K, 1G a binary suffix (K = 2^10, M = 2^20, G = 2^30)
 *   512:8192    a doubling range: 512, 1024, ..., up to and including <= 8192
 *   512:8192:x2 the same, the factor spelled out (x4: 512, 2048, 8192; F in [2, 1024])
 *   1024:8192:1024  a stepped range (cutlass style): 1024, 2048, ..., 8192;
 *               the end is included when it lands on a step (1:10:4 is 1, 5, 9)
 * Every value must lie in [min, max] and appear once; no sign, no spaces, no
 * fraction. */
#ifndef COMPARE_SIZES_H
#define COMPARE_SIZES_H

#include <stddef.h>

#define SIZES_MAX_COUNT 64 /* most values one list may expand to */

/* Parses `text` into out[0..*count). Returns 0 on success; otherwise writes a
 * message naming the bad part into err and returns -1. */
int sizes_parse(const char *text, long long min, long long max,
                long long *out, int cap, int *count, char *err, size_t err_len);

/* Parses one value (no list, no range). Returns 0 or -1 with a message. */
int sizes_parse_one(const char *text, long long min, long long max,
                    long long *value, char *err, size_t err_len);

/* Formats a size compactly: "2^26" for powers of two >= 2^10, else decimal. */
void sizes_format(long long v, char *buf, size_t len);

#endif
