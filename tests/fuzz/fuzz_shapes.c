/* tests/fuzz/fuzz_shapes.c: libFuzzer target for the GEMM shape parsers
 * (src/core/shapes.c): shapes_parse_list (--shape), shapes_parse_text (the
 * contents of a --shapes file) and shapes_product (--m/--n/--k).
 *
 * Each input is used three ways:
 *   - as a --shape value (copied into an exact-size heap block with a NUL
 *     added: an embedded NUL simply ends the text early);
 *   - as the raw bytes of a shapes file (an exact-size heap block with NO
 *     terminator, so ASan sees any read past len; NUL bytes, CRs and long
 *     lines arrive as they are);
 *   - split at the first two '|' into the --m, --n and --k lists (an empty
 *     part: that option not given), each parsed by sizes_parse, then
 *     multiplied out by shapes_product.
 * Each runs with a roomy and a 7-byte error buffer (exact-size heap blocks),
 * into an exact-size heap shapes_list.
 *
 * Invariants (a broken one aborts, i.e. is a crash):
 *   - the return value is 0 or -1;
 *   - on success: 1 <= count <= CLI_MAX_SHAPES, every shape passes
 *     shapes_check, no shape appears twice, every origin label is
 *     non-empty and terminated, and every shape formats (shapes_format) to
 *     text that shapes_parse_one reads back to itself;
 *   - the product holds exactly m x n x k shapes (the defaults applied: n
 *     alone squares; a missing m or k takes n's single value), in order m
 *     outermost, k innermost;
 *   - on failure: the message is non-empty and NUL-terminated inside err_len.
 *
 * Run: bash .ci/fuzz.sh [SECONDS]   (builds this with clang -fsanitize=fuzzer) */
#include "shapes.h"
#include "sizes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t fuzz_err_lens[] = {400, 7};

static void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_shapes: INVARIANT BROKEN: %s (%s)\n", what, detail ? detail : "");
    abort();
}

static void fuzz_check_err(int rc, const char *err, size_t err_len)
{
    if (rc != -1) fuzz_fail("return value neither 0 nor -1", NULL);
    if (memchr(err, '\0', err_len) == NULL) fuzz_fail("error message not NUL-terminated", NULL);
    if (err[0] == '\0') fuzz_fail("failure with an empty error message", NULL);
}

static void fuzz_check_list(const shapes_list *l)
{
    if (l->count < 1 || l->count > CLI_MAX_SHAPES) fuzz_fail("count out of [1, CLI_MAX_SHAPES]", NULL);
    for (int i = 0; i < l->count; i++) {
        const cli_shape *s = &l->shape[i];
        char e[256], buf[80];
        cli_shape back;
        if (shapes_check(s, e, sizeof e)) fuzz_fail("accepted a shape out of bounds", e);
        for (int j = 0; j < i; j++)
            if (l->shape[j].m == s->m && l->shape[j].n == s->n && l->shape[j].k == s->k)
                fuzz_fail("accepted a shape twice", l->from[i]);
        if (memchr(l->from[i], '\0', SHAPES_FROM_LEN) == NULL || l->from[i][0] == '\0')
            fuzz_fail("origin label empty or unterminated", NULL);
        shapes_format(s, buf, sizeof buf);
        if (shapes_parse_one(buf, strlen(buf), &back, e, sizeof e) || back.m != s->m || back.n != s->n ||
            back.k != s->k)
            fuzz_fail("shapes_format output does not parse back", buf);
    }
}

/* The --m/--n/--k product from "M|N|K" (missing or empty parts: not given). */
static void fuzz_product(const char *text, shapes_list *l, char *err, size_t err_len)
{
    long long v[3][SIZES_MAX_COUNT];
    const long long *const dim[3] = {v[0], v[1], v[2]};
    int count[3] = {0, 0, 0};
    const char *p = text;
    char part[1100];
    int rc;
    for (int d = 0; d < 3; d++) {
        const char *bar = d < 2 ? strchr(p, '|') : NULL;
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char e[400];
        if (len >= sizeof part) return;
        memcpy(part, p, len);
        part[len] = '\0';
        if (len > 0 && sizes_parse(part, 1, SHAPES_MAX_DIM, v[d], SIZES_MAX_COUNT, &count[d], e, sizeof e))
            return; /* sizes_parse has a target of its own */
        if (!bar) break;
        p = bar + 1;
    }
    if (!count[0] && !count[1] && !count[2]) return; /* cli_parse never calls it so */
    shapes_init(l);
    memset(err, 'X', err_len);
    rc = shapes_product(dim, count, l, err, err_len);
    if (rc == 0) {
        int square = !count[0] && !count[2];
        int c[3] = {count[0] ? count[0] : 1, count[1], count[2] ? count[2] : 1};
        const long long *m = count[0] ? v[0] : v[1], *k = count[2] ? v[2] : v[1];
        fuzz_check_list(l);
        if (!count[1]) fuzz_fail("a product without --n", NULL);
        if (!square && ((!count[0] || !count[2]) && count[1] != 1))
            fuzz_fail("a missing --m or --k took a --n list of several sizes", NULL);
        if (l->count != (square ? count[1] : c[0] * c[1] * c[2])) fuzz_fail("product count", NULL);
        for (int i = 0; i < l->count; i++) {
            const cli_shape *s = &l->shape[i];
            int ok = square ? s->m == v[1][i] && s->n == v[1][i] && s->k == v[1][i]
                            : s->m == m[i / (c[1] * c[2])] && s->n == v[1][(i / c[2]) % c[1]] && s->k == k[i % c[2]];
            if (!ok) fuzz_fail("product order (m outermost, k innermost)", NULL);
        }
    } else {
        fuzz_check_err(rc, err, err_len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char *raw = malloc(size ? size : 1);
    shapes_list *l = malloc(sizeof *l);
    if (!text || !raw || !l) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    memcpy(raw, data, size);

    for (size_t e = 0; e < sizeof fuzz_err_lens / sizeof fuzz_err_lens[0]; e++) {
        size_t err_len = fuzz_err_lens[e];
        char *err = malloc(err_len);
        int rc;
        if (!err) abort();

        shapes_init(l);
        memset(err, 'X', err_len);
        rc = shapes_parse_list("--shape", text, l, err, err_len);
        if (rc == 0) fuzz_check_list(l);
        else fuzz_check_err(rc, err, err_len);

        shapes_init(l);
        memset(err, 'X', err_len);
        rc = shapes_parse_text("--shapes", "fuzz.txt", raw, size, l, err, err_len);
        if (rc == 0) fuzz_check_list(l);
        else fuzz_check_err(rc, err, err_len);

        fuzz_product(text, l, err, err_len);
        free(err);
    }
    free(l);
    free(raw);
    free(text);
    return 0;
}
