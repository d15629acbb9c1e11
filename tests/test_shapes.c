/* tests/test_shapes.c (cpu): GEMM shapes (src/core/shapes.c) and the
 * stepped range of the size grammar, called directly.
 *
 * (a) --shape lists: every accepted form with its exact expansion, every bad
 *     one with a message that names the option and the bad item.
 * (b) shapes files from memory and from disk: comments (whole line and
 *     trailing), blank lines, CRLF, no final newline; bad lines named as
 *     FILE:LINE; missing, directory, FIFO, unreadable, empty, oversized files;
 *     duplicates naming both lines; the 64-shape limit.
 * (c) the --m/--n/--k product: order, defaults, refusals.
 * (d) shapes_format. (The element bound, 2^31-1 on each of A, B, C, is
 *     checked with every source above; the stepped size range is test_sizes'.)
 * (e) cli_parse: the sources merged in command-line order, duplicates across
 *     sources, the limit across sources.
 * (f) the shipped shapes/llm.txt parses, and every shape line has a comment.
 * (g) the shipped shapes/awkward.txt parses; every shape line names
 *     its class, the shape really is of that class, and each class has at
 *     least three shapes, two of them with an H200 lower bound over 20 us. */
#include "cli.h"
#include "shapes.h"
#include "sizes.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[64];

// ---- helpers ----------------------------------------------------------------

static int same(const cli_shape *s, long long m, long long n, long long k)
{
    return s->m == m && s->n == n && s->k == k;
}

/* Checks l holds exactly want[0..want_n) (triples m, n, k), in order. */
static void expect_shapes(const char *what, const shapes_list *l, const long long *want, int want_n)
{
    CHECK(l->count == want_n, "%s: %d shapes, expected %d", what, l->count, want_n);
    for (int i = 0; i < l->count && i < want_n; i++)
        CHECK(same(&l->shape[i], want[3 * i], want[3 * i + 1], want[3 * i + 2]),
              "%s: shape %d is %lldx%lldx%lld, expected %lldx%lldx%lld", what, i, l->shape[i].m, l->shape[i].n,
              l->shape[i].k, want[3 * i], want[3 * i + 1], want[3 * i + 2]);
}

/* A literal list of shapes as (array, count) arguments: SHAPES(m0, n0, k0, m1, n1, k1, ...) */
#define SHAPES(...)                                                                                   \
    (const long long[]){__VA_ARGS__},                                                                 \
        (int)(sizeof((const long long[]){__VA_ARGS__}) / (3 * sizeof(long long)))

static void list_ok(const char *text, const long long *want, int want_n)
{
    shapes_list l;
    char err[512] = "";
    shapes_init(&l);
    CHECK(shapes_parse_list("--shape", text, &l, err, sizeof err) == 0, "--shape '%s' rejected: %s", text, err);
    expect_shapes(text, &l, want, want_n);
}

/* Expects a refusal whose message holds both needles (the second may be NULL). */
static void list_bad(const char *text, const char *needle, const char *needle2)
{
    shapes_list l;
    char err[512] = "";
    shapes_init(&l);
    CHECK(shapes_parse_list("--shape", text, &l, err, sizeof err) == -1, "--shape '%s' accepted", text);
    CHECK(test_contains(err, needle), "--shape '%s': \"%s\" lacks \"%s\"", text, err, needle);
    if (needle2) CHECK(test_contains(err, needle2), "--shape '%s': \"%s\" lacks \"%s\"", text, err, needle2);
}

static void text_ok(const char *text, const long long *want, int want_n)
{
    shapes_list l;
    char err[512] = "";
    shapes_init(&l);
    CHECK(shapes_parse_text("--shapes", "f.txt", text, strlen(text), &l, err, sizeof err) == 0,
          "text \"%s\" rejected: %s", text, err);
    expect_shapes(text, &l, want, want_n);
}

/* len: the text's length, for texts with NUL bytes; 0: strlen(text) */
static void text_bad(const char *text, size_t len, const char *needle, const char *needle2)
{
    shapes_list l;
    char err[512] = "";
    if (len == 0) len = strlen(text);
    shapes_init(&l);
    CHECK(shapes_parse_text("--shapes", "f.txt", text, len, &l, err, sizeof err) == -1, "text \"%s\" accepted",
          text);
    CHECK(test_contains(err, needle), "text \"%s\": \"%s\" lacks \"%s\"", text, err, needle);
    if (needle2) CHECK(test_contains(err, needle2), "text \"%s\": \"%s\" lacks \"%s\"", text, err, needle2);
}

/* len 0: strlen(text) */
static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (len == 0) len = strlen(text);
    CHECK(f != NULL, "cannot create %s", path);
    if (!f) return;
    CHECK(fwrite(text, 1, len, f) == len, "short write to %s", path);
    fclose(f);
}

// ---- (a) --shape lists ------------------------------------------------------------

static void test_lists(void)
{
    list_ok("4096x14336x4096", SHAPES(4096, 14336, 4096));
    list_ok("1x1x1", SHAPES(1, 1, 1));
    list_ok("65536x1x1", SHAPES(65536, 1, 1));
    list_ok("1x32767x65536", SHAPES(1, 32767, 65536)); /* B: 2^31 - 2^16 elements */
    list_ok("46340x46340x46340", SHAPES(46340, 46340, 46340)); /* the largest square: 46340^2 < 2^31 */
    list_ok("32767x65536x1", SHAPES(32767, 65536, 1));         /* C: 2^31 - 2^16 elements */
    list_ok("4Kx2^10x3", SHAPES(4096, 1024, 3));
    list_ok("3x2x1,1x2x3,2x3x1", SHAPES(3, 2, 1, 1, 2, 3, 2, 3, 1)); /* order kept */
    list_ok("8x8x8,8x8x9", SHAPES(8, 8, 8, 8, 8, 9));

    list_bad("0x5x5", "--shape '0x5x5'", "m '0' is too small (at least 1)");
    list_bad("5x0x5", "--shape '5x0x5'", "n '0'");
    list_bad("5x5x0", "--shape '5x5x0'", "k '0'");
    list_bad("5x5", "--shape '5x5'", "expected MxNxK");
    list_bad("5", "--shape '5'", "expected MxNxK");
    list_bad("axbxc", "--shape 'axbxc'", "m 'a' is not a size");
    list_bad("5x5x5x5", "--shape '5x5x5x5'", "expected MxNxK");
    list_bad("70000x5x5", "--shape '70000x5x5'", "m '70000' is too large (at most 65536)");
    list_bad("5x5x65537", "--shape '5x5x65537'", "k '65537' is too large");
    list_bad("5x2^17x5", "--shape '5x2^17x5'", "n '2^17' is too large");
    list_bad("99999999999999999999x1x1", "99999999999999999999", "too large");
    list_bad("x5x5", "--shape 'x5x5'", "m is empty");
    list_bad("5xx5", "--shape '5xx5'", "n is empty");
    list_bad("5x5x", "--shape '5x5x'", "k is empty");
    list_bad("1X2X3", "--shape '1X2X3'", "expected MxNxK");
    list_bad("-1x2x3", "--shape '-1x2x3'", "m '-1'");
    list_bad("1.5x2x3", "--shape '1.5x2x3'", "m '1.5'");
    list_bad(" 1x2x3", "--shape ' 1x2x3'", "m ' 1'");
    list_bad("1x2x3 ", "--shape '1x2x3 '", "k '3 '");
    list_bad("1x2:4x3", "--shape '1x2:4x3'", "n '2:4'"); /* no ranges inside a shape */
    list_bad("0x10x1", "--shape '0x10x1'", "m '0'");
    list_bad("123456789012345678901234567890123456789012345x1x1", "m '", "not a size");
    list_bad("", "--shape: empty list", NULL);
    list_bad("1x2x3,", "--shape '1x2x3,': empty item", NULL);
    list_bad(",1x2x3", "--shape ',1x2x3': empty item", NULL);
    list_bad("1x2x3,,4x5x6", "empty item", NULL);
    list_bad("1x2x3,5x5", "--shape '1x2x3,5x5': item '5x5'", "expected MxNxK");
    list_bad("1x2x3,4x0x6", "item '4x0x6'", "n '0'");
    list_bad("1x2x3,1x2x3", "--shape: shape 1x2x3 is listed twice", NULL);
    list_bad("1x2x3,4x5x6,1x2x3", "shape 1x2x3 is listed twice", NULL);
    list_bad("2^10x1x1,1024x1x1", "shape 1024x1x1 is listed twice", NULL); /* equal values, different text */
    /* the element bound, matrix by matrix */
    list_bad("65536x65536x1", "--shape: shape 65536x65536x1: C (m x n) would hold 4294967296 elements",
             "more than 2147483647");
    list_bad("1x65536x65536", "shape 1x65536x65536: B (k x n) would hold 4294967296", NULL);
    list_bad("65536x1x65536", "shape 65536x1x65536: A (m x k) would hold 4294967296", NULL);
    list_bad("46341x46341x1", "C (m x n) would hold 2147488281 elements", NULL);
    list_bad("65536x32768x1", "C (m x n) would hold 2147483648 elements", NULL); /* 2^31: one too many */

    /* 64 shapes fit, the 65th is refused with the limit */
    {
        char text[2048];
        size_t used = 0;
        shapes_list l;
        char err[512] = "";
        for (int i = 1; i <= CLI_MAX_SHAPES + 1; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%dx1x1", i > 1 ? "," : "", i);
        shapes_init(&l);
        CHECK(shapes_parse_list("--shape", text, &l, err, sizeof err) == -1, "65 shapes accepted");
        CHECK(test_contains(err, "shape 65x1x1 is one too many (at most 64 GEMM shapes a run)"), "65: %s", err);
        text[used - strlen(",65x1x1")] = '\0';
        shapes_init(&l);
        CHECK(shapes_parse_list("--shape", text, &l, err, sizeof err) == 0 && l.count == 64 &&
                  same(&l.shape[63], 64, 1, 1),
              "64 shapes: count %d (%s)", l.count, err);
    }
    /* a tiny err buffer is never overrun */
    {
        shapes_list l;
        char err[8];
        memset(err, 'Z', sizeof err);
        shapes_init(&l);
        CHECK(shapes_parse_list("--shape", "0x5x5", &l, err, 5) == -1 && err[4] == '\0' && err[5] == 'Z',
              "tiny err buffer: \"%.4s\" [5] = %c", err, err[5]);
    }
    /* shapes_parse_one reads exactly len bytes */
    {
        cli_shape s;
        char err[256] = "";
        CHECK(shapes_parse_one("2x3x4,9", 5, &s, err, sizeof err) == 0 && same(&s, 2, 3, 4), "parse_one len 5: %s",
              err);
        CHECK(shapes_parse_one("2x3x45", 5, &s, err, sizeof err) == 0 && same(&s, 2, 3, 4), "parse_one prefix");
        CHECK(shapes_parse_one("2x3\0x4", 6, &s, err, sizeof err) == -1, "parse_one accepted a NUL byte");
    }
}

// ---- (b) shapes files ---------------------------------------------------------------

static void test_text(void)
{
    text_ok("1x2x3\n", SHAPES(1, 2, 3));
    text_ok("1x2x3", SHAPES(1, 2, 3)); /* no final newline */
    text_ok("# a comment\n\n1x2x3   # trailing comment\n\t4x5x6\t\n\n# end\n", SHAPES(1, 2, 3, 4, 5, 6));
    text_ok("1x2x3\r\n4x5x6\r\n", SHAPES(1, 2, 3, 4, 5, 6)); /* CRLF */
    text_ok("1x2x3#no space before the comment\n", SHAPES(1, 2, 3));
    text_ok("   \n\t\n\r\n7x8x9\n", SHAPES(7, 8, 9));
    text_ok("4Kx2^12x1K\n", SHAPES(4096, 4096, 1024));
    text_ok("#####\n2x2x2 ## ## #\n", SHAPES(2, 2, 2));

    text_bad("", 0, "--shapes 'f.txt': no shapes in the file", NULL);
    text_bad("\n\n  \n", 0, "no shapes in the file", NULL);
    text_bad("# only\n   # comments\n", 0, "no shapes", NULL);
    text_bad("# header\n\n5x5  # bad\n4x4x4\n", 0, "--shapes f.txt:3: '5x5'", "expected MxNxK");
    text_bad("1x2x3\n0x5x5\n", 0, "--shapes f.txt:2: '0x5x5'", "m '0'");
    text_bad("1x2x3\naxbxc\n", 0, "f.txt:2: 'axbxc'", "m 'a'");
    text_bad("1x2x3\n5x5x5x5\n", 0, "f.txt:2: '5x5x5x5'", NULL);
    text_bad("70000x5x5\n", 0, "f.txt:1: '70000x5x5'", "at most 65536");
    text_bad("1x2x3,4x5x6\n", 0, "f.txt:1: '1x2x3,4x5x6'", "one shape a line");
    text_bad("1x2x3 4x5x6\n", 0, "f.txt:1", NULL);
    text_bad("65536x65536x1\n", 0, "--shapes f.txt:1: shape 65536x65536x1: C (m x n)", NULL);
    text_bad("1x2x3\n# x\n4x5x6\n1x2x3\n", 0, "--shapes f.txt:4: shape 1x2x3 is already given by --shapes f.txt:1",
             NULL);
    text_bad("1x2x3\n4x\0x5\n", 12, "--shapes f.txt:2: a NUL byte", NULL);
    text_bad("# \0 in a comment\n1x1x1\n", 23, "f.txt:1: a NUL byte", NULL);
    {
        /* 65 lines: the 65th names its line and the limit */
        char text[2048];
        size_t used = 0;
        for (int i = 1; i <= CLI_MAX_SHAPES + 1; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%dx2x3\n", i);
        text_bad(text, used, "--shapes f.txt:65: shape 65x2x3 is one too many (at most 64 GEMM shapes a run)", NULL);
    }
}

static void test_files(void)
{
    char good[128], crlf[128], missing[128], empty[128], bad[128], fifo[128], big[128], noread[128];
    shapes_list l;
    char err[512];
    snprintf(good, sizeof good, "%s/good.txt", tmp_dir);
    snprintf(crlf, sizeof crlf, "%s/crlf.txt", tmp_dir);
    snprintf(missing, sizeof missing, "%s/missing.txt", tmp_dir);
    snprintf(empty, sizeof empty, "%s/empty.txt", tmp_dir);
    snprintf(bad, sizeof bad, "%s/bad.txt", tmp_dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", tmp_dir);
    snprintf(big, sizeof big, "%s/big.txt", tmp_dir);
    snprintf(noread, sizeof noread, "%s/noread.txt", tmp_dir);

    write_file(good, "# shapes\n4096x14336x4096  # up\n\n512x256x128\n", 0);
    shapes_init(&l);
    CHECK(shapes_read_file("--shapes", good, &l, err, sizeof err) == 0, "good file: %s", err);
    expect_shapes("good file", &l, SHAPES(4096, 14336, 4096, 512, 256, 128));
    CHECK(l.count == 2 && test_contains(l.from[1], "good.txt:4"), "origin of line 4: '%s'", l.from[1]);

    write_file(crlf, "1x1x1\r\n2x2x2", 0);
    shapes_init(&l);
    CHECK(shapes_read_file("--shapes", crlf, &l, err, sizeof err) == 0, "crlf file: %s", err);
    expect_shapes("crlf file", &l, SHAPES(1, 1, 1, 2, 2, 2));

    shapes_init(&l);
    CHECK(shapes_read_file("--shapes", missing, &l, err, sizeof err) == -1 && test_contains(err, "--shapes '") &&
              test_contains(err, "missing.txt': cannot read it (No such file or directory)"),
          "missing file: %s", err);
    write_file(empty, "", 0);
    CHECK(shapes_read_file("--shapes", empty, &l, err, sizeof err) == -1 &&
              test_contains(err, "empty.txt': no shapes in the file"),
          "empty file: %s", err);
    write_file(bad, "# ok\n1x2x3\n\n8x8\n", 0);
    CHECK(shapes_read_file("--shapes", bad, &l, err, sizeof err) == -1 && test_contains(err, "--shapes ") &&
              test_contains(err, "bad.txt:4: '8x8'"),
          "bad line: %s", err);
    CHECK(shapes_read_file("--shapes", tmp_dir, &l, err, sizeof err) == -1 && test_contains(err, tmp_dir) &&
              test_contains(err, "is a directory"),
          "directory: %s", err);
    CHECK(shapes_read_file("--shapes", "", &l, err, sizeof err) == -1 && test_contains(err, "--shapes: empty path"),
          "empty path: %s", err);
    /* a FIFO would block a reader: refused before opening */
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    CHECK(shapes_read_file("--shapes", fifo, &l, err, sizeof err) == -1 &&
              test_contains(err, "fifo' is not a regular file"),
          "fifo: %s", err);
    /* a file over the size limit (all comments, so only the size can fail it) */
    {
        size_t n = SHAPES_FILE_MAX + 2;
        char *text = malloc(n);
        CHECK(text != NULL, "malloc");
        if (text) {
            memset(text, '#', n);
            memcpy(text, "1x1x1\n", 6);
            write_file(big, text, n);
            free(text);
            CHECK(shapes_read_file("--shapes", big, &l, err, sizeof err) == -1 && test_contains(err, "big.txt'") &&
                      test_contains(err, "more than a shapes file may hold"),
                  "big file: %s", err);
        }
    }
    /* a regular file whose read fails, whoever runs the test: /proc/self/mem at offset 0 */
    if (test_file_exists("/proc/self/mem")) {
        CHECK(shapes_read_file("--shapes", "/proc/self/mem", &l, err, sizeof err) == -1 &&
                  test_contains(err, "--shapes '/proc/self/mem': cannot read it ("),
              "read error: %s", err);
    }
    /* unreadable by permission: root reads anything, so only checked as another user */
    write_file(noread, "1x1x1\n", 0);
    chmod(noread, 0);
    if (geteuid() == 0) {
        printf("note: running as root, the unreadable-file check is skipped (root may read it)\n");
    } else {
        CHECK(shapes_read_file("--shapes", noread, &l, err, sizeof err) == -1 &&
                  test_contains(err, "noread.txt': cannot open it (Permission denied)"),
              "unreadable file: %s", err);
    }
    unlink(good);
    unlink(crlf);
    unlink(empty);
    unlink(bad);
    unlink(fifo);
    unlink(big);
    unlink(noread);
}

// ---- (c) the --m/--n/--k product ---------------------------------------------------

/* Parses the three lists (NULL: not given) and runs shapes_product. */
static int product(const char *m, const char *n, const char *k, shapes_list *l, char *err, size_t len)
{
    static long long v[3][SIZES_MAX_COUNT];
    const long long *const dim[3] = {v[0], v[1], v[2]};
    int count[3] = {0, 0, 0};
    const char *text[3] = {m, n, k};
    for (int d = 0; d < 3; d++)
        if (text[d] && sizes_parse(text[d], 1, SHAPES_MAX_DIM, v[d], SIZES_MAX_COUNT, &count[d], err, len)) {
            CHECK(0, "size list '%s' rejected: %s", text[d], err);
            return -2;
        }
    shapes_init(l);
    return shapes_product(dim, count, l, err, len);
}

static void product_ok(const char *m, const char *n, const char *k, const long long *want, int want_n)
{
    shapes_list l;
    char err[512] = "", what[128];
    snprintf(what, sizeof what, "--m %s --n %s --k %s", m ? m : "-", n ? n : "-", k ? k : "-");
    CHECK(product(m, n, k, &l, err, sizeof err) == 0, "%s: %s", what, err);
    expect_shapes(what, &l, want, want_n);
}

static void product_bad(const char *m, const char *n, const char *k, const char *needle)
{
    shapes_list l;
    char err[512] = "";
    CHECK(product(m, n, k, &l, err, sizeof err) == -1, "--m %s --n %s --k %s accepted", m ? m : "-", n ? n : "-",
          k ? k : "-");
    CHECK(test_contains(err, needle), "--m %s --n %s --k %s: \"%s\" lacks \"%s\"", m ? m : "-", n ? n : "-",
          k ? k : "-", err, needle);
}

static void test_product(void)
{
    /* --n alone: square shapes, as before */
    product_ok(NULL, "1024,2048", NULL, SHAPES(1024, 1024, 1024, 2048, 2048, 2048));
    product_ok(NULL, "512:2048", NULL, SHAPES(512, 512, 512, 1024, 1024, 1024, 2048, 2048, 2048));
    product_ok(NULL, "1024:4096:1024", NULL,
               SHAPES(1024, 1024, 1024, 2048, 2048, 2048, 3072, 3072, 3072, 4096, 4096, 4096));
    /* the brief's example: 2 shapes */
    product_ok("1024,2048", "4096", "512", SHAPES(1024, 4096, 512, 2048, 4096, 512));
    /* m outermost, k innermost */
    product_ok("1,2", "3,4", "5,6",
               SHAPES(1, 3, 5, 1, 3, 6, 1, 4, 5, 1, 4, 6, 2, 3, 5, 2, 3, 6, 2, 4, 5, 2, 4, 6));
    /* cutlass-style stepped ranges; the end is included only on a step */
    product_ok("1024:4096:1024", "256", "64", SHAPES(1024, 256, 64, 2048, 256, 64, 3072, 256, 64, 4096, 256, 64));
    product_ok("1000:5000:1500", "7", "9", SHAPES(1000, 7, 9, 2500, 7, 9, 4000, 7, 9));
    /* a dimension not given takes --n's single value */
    product_ok("1024,2048", "4096", NULL, SHAPES(1024, 4096, 4096, 2048, 4096, 4096));
    product_ok(NULL, "4096", "128,256", SHAPES(4096, 4096, 128, 4096, 4096, 256));
    product_ok("8", "8", "8", SHAPES(8, 8, 8));
    /* exactly 64 fit */
    {
        shapes_list l;
        char err[512] = "";
        CHECK(product("1:8:1", "1:8:1", "5", &l, err, sizeof err) == 0 && l.count == 64 &&
                  same(&l.shape[0], 1, 1, 5) && same(&l.shape[1], 1, 2, 5) && same(&l.shape[8], 2, 1, 5) &&
                  same(&l.shape[63], 8, 8, 5),
              "8 x 8 x 1: count %d (%s)", l.count, err);
    }

    product_bad("1024", NULL, NULL, "--m is given without --n");
    product_bad(NULL, NULL, "1024", "--k is given without --n");
    product_bad("1024", NULL, "1024", "--m is given without --n");
    product_bad("1024", "1,2", NULL, "--k is not given and --n lists 2 sizes: give --k");
    product_bad(NULL, "1,2,3", "1024", "--m is not given and --n lists 3 sizes: give --m");
    product_bad("1024:8192:1024", "1024:8192:1024", "1024:8192:1024",
                "--m/--n/--k expand to 512 shapes (8 x 8 x 8), more than fit (at most 64 GEMM shapes a run)");
    product_bad("1:8:1", "1:8:1", "5,6", "--m/--n/--k expand to 128 shapes (8 x 8 x 2)");
    product_bad("1:2^16", "1:4", "1:2", "--m/--n/--k expand to 102 shapes (17 x 3 x 2)");
    product_bad(NULL, "65536", NULL, "--n: shape 65536x65536x65536: A (m x k) would hold 4294967296 elements");
    product_bad(NULL, "46341", NULL, "--n: shape 46341x46341x46341");
    product_bad("65536", "65536", "1", "--m/--n/--k: shape 65536x65536x1: C (m x n)");
    product_bad("1", "65536", "65536", "--m/--n/--k: shape 1x65536x65536: B (k x n)");
}

// ---- (d) shapes_format ------------------------------------------------------------

static void test_format(void)
{
    char buf[64];
    cli_shape s = {4096, 14336, 4096}, back;
    shapes_format(&s, buf, sizeof buf);
    CHECK(strcmp(buf, "4096x14336x4096") == 0, "format: %s", buf);
    s = (cli_shape){1, 65536, 2048};
    shapes_format(&s, buf, sizeof buf);
    CHECK(strcmp(buf, "1x65536x2048") == 0, "format: %s", buf);
    /* what it writes parses back */
    CHECK(shapes_parse_one(buf, strlen(buf), &back, buf + 32, 32) == 0 && same(&back, 1, 65536, 2048),
          "format does not parse back");
    shapes_format(&s, buf, 6);
    CHECK(strcmp(buf, "1x655") == 0, "format truncated: %s", buf);
}

// ---- (e) cli_parse: sources merged -------------------------------------------------

static const op_info known_ops[] = {
    {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas_fp32", "cublas_tf32", {NULL}, {NULL, NULL}, "",
     {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}},
    {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub", {NULL}, {NULL, NULL}, "", {OP_AXIS_ELEMS}},
};
static const variant_info known_variants[] = {{"sgemm", "naive", 0, "fp32", NULL, 0, "builtin", ""},
                                              {"reduce", "thrust", 1, "fp32", NULL, 0, "builtin", ""}};
static const catalog known = {known_ops, 2, known_variants, 2};

static int cli(cli_options *o, char *err, size_t len, const char *const *args)
{
    static char store[4096];
    static char *argv[32];
    size_t used = 0;
    int argc = 0;
    argv[argc++] = "compare";
    for (int i = 0; args[i]; i++) {
        size_t l = strlen(args[i]) + 1;
        memcpy(store + used, args[i], l);
        argv[argc++] = store + used;
        used += l;
    }
    argv[argc] = NULL;
    int rc = cli_parse(argc, argv, o, err, len);
    return rc ? rc : cli_resolve(o, &known, err, len);
}

#define CLI_OK(want, ...)                                                                   \
    do {                                                                                    \
        const char *const a_[] = {__VA_ARGS__, NULL};                                       \
        cli_options o_;                                                                     \
        shapes_list l_;                                                                     \
        char e_[1024] = "";                                                                 \
        int r_ = cli(&o_, e_, sizeof e_, a_);                                               \
        CHECK(r_ == 0, "%s ...: rc %d: %s", a_[0], r_, e_);                                 \
        l_.count = o_.gemm_count;                                                           \
        memcpy(l_.shape, o_.gemm, sizeof o_.gemm);                                          \
        if (r_ == 0) expect_shapes(a_[0], &l_, want);                                       \
    } while (0)

#define CLI_BAD(needle, ...)                                                                \
    do {                                                                                    \
        const char *const a_[] = {__VA_ARGS__, NULL};                                       \
        cli_options o_;                                                                     \
        char e_[1024] = "";                                                                 \
        int r_ = cli(&o_, e_, sizeof e_, a_);                                               \
        CHECK(r_ == 2, "%s ...: rc %d, expected 2", a_[0], r_);                             \
        CHECK(test_contains(e_, needle), "%s ...: \"%s\" lacks \"%s\"", a_[0], e_, needle); \
    } while (0)

static void test_cli_merge(void)
{
    char good[128], other[128];
    snprintf(good, sizeof good, "%s/merge.txt", tmp_dir);
    snprintf(other, sizeof other, "%s/other.txt", tmp_dir);
    write_file(good, "7x8x9\n1024x1024x1024\n", 0);
    write_file(other, "# one\n5x5x5\n", 0);

    {
        /* the default: no shape here, sgemm's axis defaults in the plan (test_plan) */
        const char *const a[] = {"--ops", "sgemm", NULL};
        cli_options o;
        char e[1024] = "";
        CHECK(cli(&o, e, sizeof e, a) == 0 && o.gemm_count == 0, "--ops sgemm: %d shapes: %s", o.gemm_count, e);
    }
    CLI_OK(SHAPES(4096, 14336, 4096), "--shape", "4096x14336x4096");
    CLI_OK(SHAPES(4096, 14336, 4096), "--shape=4096x14336x4096");
    CLI_OK(SHAPES(1, 2, 3, 512, 512, 512), "--shape", "1x2x3", "--n", "512");
    CLI_OK(SHAPES(512, 512, 512, 1, 2, 3), "--n", "512", "--shape", "1x2x3");
    CLI_OK(SHAPES(1024, 4096, 512, 2048, 4096, 512), "--m", "1024,2048", "--n", "4096", "--k", "512");
    CLI_OK(SHAPES(1024, 4096, 512, 2048, 4096, 512), "--k", "512", "--m", "1024,2048", "--n", "4096");
    CLI_OK(SHAPES(1024, 4096, 4096, 2048, 4096, 4096), "--m=1024,2048", "--n=4096");
    CLI_OK(SHAPES(46340, 46340, 46340), "--n", "46340");
    /* the product sits where its first option is */
    {
        static const char *const a[] = {"--shape", "1x2x3", "--m", "10,20", "--shapes", NULL, "--n", "30",
                                        "--k", "40", NULL};
        static const char *b[11];
        cli_options o;
        char e[1024] = "";
        shapes_list l;
        memcpy(b, a, sizeof a);
        b[5] = good;
        CHECK(cli(&o, e, sizeof e, b) == 0, "three sources: %s", e);
        l.count = o.gemm_count;
        memcpy(l.shape, o.gemm, sizeof o.gemm);
        expect_shapes("three sources", &l, SHAPES(1, 2, 3, 10, 30, 40, 20, 30, 40, 7, 8, 9, 1024, 1024, 1024));
        b[0] = "--shapes";
        b[1] = other;
        b[4] = "--shape";
        b[5] = "9x9x9";
        CHECK(cli(&o, e, sizeof e, b) == 0, "three sources, other order: %s", e);
        l.count = o.gemm_count;
        memcpy(l.shape, o.gemm, sizeof o.gemm);
        expect_shapes("other order", &l, SHAPES(5, 5, 5, 10, 30, 40, 20, 30, 40, 9, 9, 9));
    }
    /* duplicates across sources, named on both sides */
    CLI_BAD("--shape: shape 1024x1024x1024 is already given by --n (each shape once)", "--n", "1024", "--shape",
            "1024x1024x1024");
    CLI_BAD("--n: shape 1024x1024x1024 is already given by --shape", "--shape", "1024x1024x1024", "--n", "1024");
    CLI_BAD("--m/--n/--k: shape 8x8x8 is already given by --shape", "--shape", "8x8x8", "--m", "8", "--n", "8",
            "--k", "8");
    {
        static const char *a[] = {"--shapes", NULL, "--n", "1024", NULL};
        cli_options o;
        char e[1024] = "";
        a[1] = good;
        CHECK(cli(&o, e, sizeof e, a) == 2 && test_contains(e, "--n: shape 1024x1024x1024 is already given by "
                                                               "--shapes ") &&
                  test_contains(e, "merge.txt:2"),
              "file then --n: %s", e);
    }
    /* the limit counts every source together */
    CLI_BAD("--shape: shape 1x2x3 is one too many (at most 64 GEMM shapes a run)", "--n", "1:64:1", "--shape",
            "1x2x3");
    CLI_BAD("--n: shape 64x64x64 is one too many (at most 64", "--shape", "1x2x3", "--n", "1:64:1");
    /* errors of each source reach the caller unchanged */
    CLI_BAD("--shape '5x5': expected MxNxK", "--shape", "5x5");
    CLI_BAD("--m '0': '0' is too small", "--m", "0", "--n", "1");
    CLI_BAD("--k 'x'", "--k", "x", "--n", "1");
    CLI_BAD("--n '1:2:3:4'", "--n", "1:2:3:4");
    CLI_BAD("--shape given more than once", "--shape", "1x1x1", "--shape", "2x2x2");
    CLI_BAD("--shapes given more than once", "--shapes", good, "--shapes", other);
    CLI_BAD("--m given more than once", "--m", "1", "--m", "2");
    CLI_BAD("--shape needs a value", "--shape");
    CLI_BAD("--shapes: empty path", "--shapes", "");
    /* GEMM options without sgemm */
    CLI_BAD("--shape is given but no op it sizes is run (it sizes sgemm)", "--shape", "1x2x3", "--ops", "reduce");
    CLI_BAD("--shapes is given but no op it sizes is run (it sizes sgemm)", "--shapes", good, "--variants", "thrust");
    CLI_BAD("--m is given but no op it sizes is run (it sizes sgemm)", "--m", "1", "--n", "2", "--ops", "reduce");
    CLI_BAD("--n is given but no op it sizes is run (it sizes sgemm)", "--n", "2", "--k", "1", "--ops", "reduce");
    unlink(good);
    unlink(other);
}

// ---- (f) the shipped shapes/llm.txt -----------------------------------------------

static void test_llm_file(void)
{
    const char *path = COMPARE_SOURCE_DIR "/shapes/llm.txt";
    shapes_list l;
    char err[512] = "", line[512];
    int shape_lines = 0, commented = 0;
    FILE *f;
    shapes_init(&l);
    CHECK(shapes_read_file("--shapes", path, &l, err, sizeof err) == 0, "%s: %s", path, err);
    CHECK(l.count >= 8 && l.count <= 16, "%s holds %d shapes (expected about 10)", path, l.count);
    /* the shapes the file promises */
    {
        static const long long want[][3] = {{4096, 14336, 4096}, {4096, 6144, 4096}, {65536, 256, 256},
                                            {8192, 8192, 256}, {2048, 49152, 12288}};
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            int found = 0;
            for (int i = 0; i < l.count; i++) found |= same(&l.shape[i], want[w][0], want[w][1], want[w][2]);
            CHECK(found, "%s lacks %lldx%lldx%lld", path, want[w][0], want[w][1], want[w][2]);
        }
    }
    /* every shape line says where it comes from */
    f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    while (f && fgets(line, sizeof line, f)) {
        const char *hash = strchr(line, '#');
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0') continue;
        shape_lines++;
        if (hash && strlen(hash + 1) > 10) commented++;
        else CHECK(0, "%s: shape line without a comment: %s", path, line);
    }
    if (f) fclose(f);
    CHECK(shape_lines == l.count && commented == shape_lines, "%d shape lines, %d commented, %d shapes", shape_lines,
          commented, l.count);
}

// ---- (g) the shipped shapes/awkward.txt ---------------------------------------------

static int is_prime(long long v)
{
    if (v < 2) return 0;
    for (long long d = 2; d * d <= v; d++)
        if (v % d == 0) return 0;
    return 1;
}

/* Whether m x n x k is of class `cls` (the file header's definitions); -1 for
 * a class name the test does not know. */
static int awkward_class_ok(const char *cls, long long m, long long n, long long k)
{
    if (strcmp(cls, "k_unaligned") == 0) return k % 4 != 0 && m >= 1024 && n >= 1024;
    if (strcmp(cls, "mn_tiny") == 0) return (m <= 64 || n <= 64) && k >= 1024;
    if (strcmp(cls, "k_tiny") == 0) return k >= 16 && k <= 128 && m >= 1024 && n >= 1024;
    if (strcmp(cls, "all_odd") == 0) return m % 2 == 1 && n % 2 == 1 && k % 2 == 1;
    if (strcmp(cls, "prime_8191") == 0) {
        const long long d[3] = {m, n, k};
        int primes = 0, rest = 0;
        for (int i = 0; i < 3; i++) {
            primes += d[i] >= 8000 && d[i] < 8300 && is_prime(d[i]);
            rest += d[i] == 4096;
        }
        return primes == 1 && rest == 2;
    }
    return -1;
}

/* A lower bound on any GEMM's time at m x n x k on an H200, in seconds: the
 * larger of 2mnk at the TF32 dense tensor peak (494.7 TFLOP/s, the data
 * sheet's 989 halved: no sparsity) and A + B + C read or written once at the
 * HBM3e peak (4.8 TB/s). Data-sheet peaks, not measurements. */
static double h200_lower_bound_s(long long m, long long n, long long k)
{
    const double flops = 2.0 * (double)m * (double)n * (double)k;
    const double bytes = 4.0 * ((double)m * k + (double)k * n + 2.0 * (double)m * n);
    const double t_math = flops / 494.7e12, t_mem = bytes / 4.8e12;
    return t_math > t_mem ? t_math : t_mem;
}

static void test_awkward_file(void)
{
    static const char *const classes[] = {"k_unaligned", "mn_tiny", "k_tiny", "all_odd", "prime_8191"};
    enum { NCLASS = sizeof classes / sizeof classes[0] };
    const char *path = COMPARE_SOURCE_DIR "/shapes/awkward.txt";
    int count[NCLASS] = {0}, slow[NCLASS] = {0}, shape_lines = 0;
    shapes_list l;
    char err[512] = "", line[512];
    FILE *f;
    shapes_init(&l);
    CHECK(shapes_read_file("--shapes", path, &l, err, sizeof err) == 0, "%s: %s", path, err);
    CHECK(l.count >= 15 && l.count <= 40, "%s holds %d shapes (expected 15 .. 40)", path, l.count);
    f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    while (f && fgets(line, sizeof line, f)) {
        const char *hash = strchr(line, '#');
        char cls[32] = "";
        cli_shape s;
        size_t b = strspn(line, " \t"), e;
        if (line[b] == '#' || line[b + strspn(line + b, " \t\r\n")] == '\0') continue;
        CHECK(shape_lines < l.count, "%s: more shape lines than shapes parsed", path);
        if (shape_lines >= l.count) break;
        s = l.shape[shape_lines++];
        CHECK(hash != NULL, "%s: shape line without a class: %s", path, line);
        if (!hash) continue;
        /* "# CLASS: why" */
        e = strspn(hash + 1, " ");
        CHECK(sscanf(hash + 1 + e, "%31[a-z_0-9]:", cls) == 1 && strchr(hash, ':') != NULL,
              "%s: comment does not start with 'CLASS:': %s", path, line);
        CHECK(strlen(strchr(hash, ':') ? strchr(hash, ':') : "") > 10, "%s: no reason after the class: %s", path, line);
        int found = -1;
        for (int c = 0; c < NCLASS; c++)
            if (strcmp(cls, classes[c]) == 0) found = c;
        CHECK(found >= 0, "%s: unknown class '%s' in: %s", path, cls, line);
        if (found < 0) continue;
        CHECK(awkward_class_ok(cls, s.m, s.n, s.k) == 1, "%s: %lldx%lldx%lld is not of class %s", path, s.m, s.n,
              s.k, cls);
        count[found]++;
        slow[found] += h200_lower_bound_s(s.m, s.n, s.k) > 20e-6;
    }
    if (f) fclose(f);
    CHECK(shape_lines == l.count, "%d shape lines, %d shapes", shape_lines, l.count);
    for (int c = 0; c < NCLASS; c++) {
        CHECK(count[c] >= 3, "%s: class %s has %d shapes (at least 3)", path, classes[c], count[c]);
        CHECK(slow[c] >= 2, "%s: class %s has %d shapes over 20 us at the H200's peaks (at least 2)", path,
              classes[c], slow[c]);
    }
    /* the planted checks of the class rules: a shape of the wrong class is refused */
    CHECK(awkward_class_ok("k_unaligned", 4096, 4096, 4096) == 0, "k = 4096 taken as unaligned");
    CHECK(awkward_class_ok("mn_tiny", 65, 4096, 4096) == 0, "m = 65 taken as tiny");
    CHECK(awkward_class_ok("k_tiny", 8192, 8192, 129) == 0, "k = 129 taken as tiny");
    CHECK(awkward_class_ok("all_odd", 4095, 4096, 511) == 0, "an even n taken as odd");
    CHECK(awkward_class_ok("prime_8191", 8192, 4096, 4096) == 0, "8192 taken as prime");
    CHECK(awkward_class_ok("prime_8191", 8191, 8191, 4096) == 0, "two primes taken as one");
    CHECK(awkward_class_ok("nope", 1, 1, 1) == -1, "an unknown class accepted");
    CHECK(h200_lower_bound_s(8192, 8192, 16) > 20e-6 && h200_lower_bound_s(1025, 1023, 1021) < 20e-6,
          "the H200 lower bound");
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_shapes.XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_lists();
    test_text();
    test_files();
    test_product();
    test_format();
    test_cli_merge();
    test_llm_file();
    test_awkward_file();
    CHECK(test_dir_entries(tmp_dir) == 0, "%s not empty", tmp_dir);
    rmdir(tmp_dir);
    return test_finish("test_shapes");
}
