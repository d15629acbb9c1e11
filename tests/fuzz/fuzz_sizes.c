/* tests/fuzz/fuzz_sizes.c: libFuzzer target for sizes_parse and
 * sizes_parse_one.
 *
 * The input, copied into an exact-size heap block with a NUL added (an
 * embedded NUL simply ends the text early), is parsed under each bounds set
 * below: the two the CLI uses (--n, --elems), bounds that start at 0 and end
 * at LLONG_MAX (range loops that never double, products near overflow), tiny
 * caps, and a cap over SIZES_MAX_COUNT (the parser must clamp it). The output
 * array and the error buffer are exact-size heap blocks, so ASan sees any
 * write past them.
 *
 * Invariants (a broken one aborts, i.e. is a crash):
 *   - the return value is 0 or -1;
 *   - on success: 0 < count <= min(cap, SIZES_MAX_COUNT) for sizes_parse,
 *     every value lies in [min, max], and each value written by
 *     sizes_parse_one formats (sizes_format) to text that parses back to
 *     itself;
 *   - on failure: the message is non-empty, NUL-terminated inside err_len.
 *
 * Run: bash .ci/fuzz.sh [SECONDS]   (builds this with clang -fsanitize=fuzzer) */
#include "sizes.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long long min, max; /* bounds handed to the parser */
    int cap;            /* out[] capacity handed to sizes_parse */
    size_t err_len;     /* error buffer size */
} fuzz_bounds;

static const fuzz_bounds fuzz_cases[] = {
    {1, 65536, SIZES_MAX_COUNT, 400},          /* --n, as cli.c calls it */
    {1, 1LL << 32, SIZES_MAX_COUNT, 400},      /* --elems */
    {0, LLONG_MAX, SIZES_MAX_COUNT, 400},      /* widest bounds: 0 in ranges, no max clamp */
    {1000, 1000000, 3, 16},                    /* tiny cap, truncated messages */
    {1, LLONG_MAX, SIZES_MAX_COUNT + 36, 2},   /* cap above the clamp, 1-char messages */
};

static void fuzz_fail(const char *what, const char *text, const fuzz_bounds *b)
{
    fprintf(stderr, "fuzz_sizes: INVARIANT BROKEN: %s (text '%s', min %lld, max %lld, cap %d)\n", what,
            text, b->min, b->max, b->cap);
    abort();
}

static void fuzz_check_err(int rc, const char *err, const char *text, const fuzz_bounds *b)
{
    if (rc != -1) fuzz_fail("return value neither 0 nor -1", text, b);
    if (memchr(err, '\0', b->err_len) == NULL) fuzz_fail("error message not NUL-terminated", text, b);
    if (b->err_len > 1 && err[0] == '\0') fuzz_fail("failure with an empty error message", text, b);
}

static void fuzz_one_case(const char *text, const fuzz_bounds *b)
{
    int eff_cap = b->cap < SIZES_MAX_COUNT ? b->cap : SIZES_MAX_COUNT;
    long long *out = malloc((size_t)b->cap * sizeof *out);
    char *err = malloc(b->err_len);
    int count = -12345;
    long long v = -12345;
    int rc;
    if (!out || !err) abort();

    memset(err, 'X', b->err_len);
    rc = sizes_parse(text, b->min, b->max, out, b->cap, &count, err, b->err_len);
    if (rc == 0) {
        if (count < 1 || count > eff_cap) fuzz_fail("sizes_parse count out of [1, cap]", text, b);
        for (int i = 0; i < count; i++)
            if (out[i] < b->min || out[i] > b->max) fuzz_fail("sizes_parse value out of [min, max]", text, b);
    } else {
        fuzz_check_err(rc, err, text, b);
    }

    memset(err, 'X', b->err_len);
    rc = sizes_parse_one(text, b->min, b->max, &v, err, b->err_len);
    if (rc == 0) {
        char buf[32];
        long long back = -1;
        char e2[128];
        if (v < b->min || v > b->max) fuzz_fail("sizes_parse_one value out of [min, max]", text, b);
        /* a value the parser accepted must survive format -> parse unchanged */
        sizes_format(v, buf, sizeof buf);
        if (sizes_parse_one(buf, b->min, b->max, &back, e2, sizeof e2) != 0 || back != v) {
            fprintf(stderr, "fuzz_sizes: %lld formatted as '%s' parsed back as %lld (%s)\n", v, buf, back, e2);
            fuzz_fail("sizes_format output does not parse back", text, b);
        }
        /* and a single value must parse the same as a one-item list */
        if (sizes_parse(text, b->min, b->max, out, b->cap, &count, err, b->err_len) != 0 || count != 1 ||
            out[0] != v)
            fuzz_fail("sizes_parse_one and sizes_parse disagree on a single value", text, b);
    } else {
        fuzz_check_err(rc, err, text, b);
    }
    free(out);
    free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    for (size_t i = 0; i < sizeof fuzz_cases / sizeof fuzz_cases[0]; i++) fuzz_one_case(text, &fuzz_cases[i]);
    free(text);
    return 0;
}
