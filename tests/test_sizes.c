/* tests/test_sizes.c (cpu): the size grammar of --m/--n/--k and --elems
 * (src/core/sizes.c): every accepted form with its exact expansion, every
 * rejected form with a message that names the bad item, the bounds, the
 * list capacity, and sizes_format. */
#include "sizes.h"
#include "testlib.h"

#include <stdio.h>
#include <string.h>

#define MAX_N 65536LL
#define MAX_E (1LL << 32)

// ---- helpers ----------------------------------------------------------------

/* Parses text in [lo, hi] and checks it expands to want[0..want_n). */
static void expect_ok(const char *text, long long lo, long long hi, const long long *want, int want_n)
{
    long long out[SIZES_MAX_COUNT];
    int count = -1;
    char err[512] = "";
    int rc = sizes_parse(text, lo, hi, out, SIZES_MAX_COUNT, &count, err, sizeof err);
    CHECK(rc == 0, "'%s' rejected: %s", text, err);
    if (rc != 0) return;
    CHECK(count == want_n, "'%s' expanded to %d values, expected %d", text, count, want_n);
    for (int i = 0; i < count && i < want_n; i++)
        CHECK(out[i] == want[i], "'%s'[%d] = %lld, expected %lld", text, i, out[i], want[i]);
}

/* Parses text in [lo, hi], expects a refusal whose message holds `needle`. */
static void expect_bad(const char *text, long long lo, long long hi, const char *needle)
{
    long long out[SIZES_MAX_COUNT];
    int count = -1;
    char err[512] = "";
    int rc = sizes_parse(text, lo, hi, out, SIZES_MAX_COUNT, &count, err, sizeof err);
    CHECK(rc == -1, "'%s' accepted (rc %d, count %d)", text, rc, count);
    CHECK(err[0] != '\0', "'%s': empty message", text);
    CHECK(test_contains(err, needle), "'%s': message \"%s\" does not contain \"%s\"", text, err, needle);
}

#define OK(text, lo, hi, ...)                                                         \
    do {                                                                              \
        static const long long w_[] = {__VA_ARGS__};                                  \
        expect_ok(text, lo, hi, w_, (int)(sizeof w_ / sizeof w_[0]));                 \
    } while (0)

// ---- accepted forms -------------------------------------------------------------

static void test_accepted(void)
{
    OK("4096", 1, MAX_N, 4096);
    OK("1", 1, MAX_N, 1);
    OK("65536", 1, MAX_N, 65536);
    OK("2^26", 1, MAX_E, 1LL << 26);
    OK("2^0", 1, MAX_N, 1);
    OK("2^32", 1, MAX_E, 1LL << 32);
    OK("64M", 1, MAX_E, 64LL << 20);
    OK("4K", 1, MAX_N, 4096);
    OK("4k", 1, MAX_N, 4096);
    OK("1G", 1, MAX_E, 1LL << 30);
    OK("4G", 1, MAX_E, 4LL << 30);
    OK("3K", 1, MAX_N, 3072);
    OK("1024,2048,4096", 1, MAX_N, 1024, 2048, 4096);
    OK("4096,1024", 1, MAX_N, 4096, 1024); /* order kept */
    OK("512:8192", 1, MAX_N, 512, 1024, 2048, 4096, 8192);
    OK("1000:5000", 1, MAX_N, 1000, 2000, 4000);
    OK("7:7", 1, MAX_N, 7);
    OK("1K:4K", 1, MAX_N, 1024, 2048, 4096);
    OK("2^10:2^12", 1, MAX_N, 1024, 2048, 4096);
    /* LO:HI:xF multiplies by F (x2: the doubling range spelled out) */
    OK("1024:8192:x2", 1, MAX_N, 1024, 2048, 4096, 8192);
    OK("1024:8192:X2", 1, MAX_N, 1024, 2048, 4096, 8192);
    OK("1000:5000:x2", 1, MAX_N, 1000, 2000, 4000);
    OK("1:100:x10", 1, MAX_N, 1, 10, 100);
    OK("512:8192:x4", 1, MAX_N, 512, 2048, 8192);
    OK("2^20:2^28:x4", 1, MAX_E, 1LL << 20, 1LL << 22, 1LL << 24, 1LL << 26, 1LL << 28);
    OK("7:7:x2", 1, MAX_N, 7);
    OK("4K:64K:x2,3", 1, MAX_N, 4096, 8192, 16384, 32768, 65536, 3);
    OK("1,2^10,3:12", 1, MAX_N, 1, 1024, 3, 6, 12);
    OK("1:2^32", 1, MAX_E, 1LL << 0, 1LL << 1, 1LL << 2, 1LL << 3, 1LL << 4, 1LL << 5, 1LL << 6, 1LL << 7,
       1LL << 8, 1LL << 9, 1LL << 10, 1LL << 11, 1LL << 12, 1LL << 13, 1LL << 14, 1LL << 15, 1LL << 16,
       1LL << 17, 1LL << 18, 1LL << 19, 1LL << 20, 1LL << 21, 1LL << 22, 1LL << 23, 1LL << 24, 1LL << 25,
       1LL << 26, 1LL << 27, 1LL << 28, 1LL << 29, 1LL << 30, 1LL << 31, 1LL << 32);
    /* a range ending just under a doubling stops before it */
    OK("3:47", 1, MAX_N, 3, 6, 12, 24);
    /* stepped ranges: the end is included when it lands on a step */
    OK("1024:8192:1024", 1, MAX_N, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192);
    OK("1:10:4", 1, MAX_N, 1, 5, 9);
    OK("1:2:3", 1, MAX_N, 1);
    OK("7:7:3", 1, MAX_N, 7);
    OK("1000:5000:1500", 1, MAX_N, 1000, 2500, 4000);
    OK("1K:4K:1K,100", 1, MAX_N, 1024, 2048, 3072, 4096, 100);
    OK("2^10:2^12:2^10", 1, MAX_N, 1024, 2048, 3072, 4096);
    OK("1M:4M:1M", 1, MAX_E, 1LL << 20, 2LL << 20, 3LL << 20, 4LL << 20);
    OK("65536:65536:65536", 1, MAX_N, 65536);
    OK("2^31:2^32:2^31", 1, MAX_E, 1LL << 31, 1LL << 32);
    OK("1:3:1,4:8", 1, MAX_N, 1, 2, 3, 4, 8);

    /* sizes_parse_one: a single value only */
    {
        long long v = 0;
        char err[256] = "";
        CHECK(sizes_parse_one("2^20", 1, MAX_E, &v, err, sizeof err) == 0 && v == (1LL << 20),
              "parse_one 2^20: %lld %s", v, err);
        CHECK(sizes_parse_one("8M", 1, MAX_E, &v, err, sizeof err) == 0 && v == (8LL << 20),
              "parse_one 8M: %lld %s", v, err);
        CHECK(sizes_parse_one("1,2", 1, MAX_E, &v, err, sizeof err) == -1, "parse_one accepted a list");
        CHECK(sizes_parse_one("1:2", 1, MAX_E, &v, err, sizeof err) == -1, "parse_one accepted a range");
    }
}

// ---- rejected forms -------------------------------------------------------------

static void test_rejected(void)
{
    /* every message quotes the offending item */
    expect_bad("2^99", 1, MAX_E, "'2^99'");
    expect_bad("2^63", 1, MAX_E, "'2^63'");
    expect_bad("2^33", 1, MAX_E, "'2^33'");
    expect_bad("-1", 1, MAX_N, "'-1'");
    expect_bad("0", 1, MAX_N, "'0'");
    expect_bad("0K", 1, MAX_N, "'0K'");
    expect_bad("1.5", 1, MAX_N, "'1.5'");
    expect_bad("abc", 1, MAX_N, "'abc'");
    expect_bad("", 1, MAX_N, "empty");
    expect_bad(",", 1, MAX_N, "empty");
    expect_bad("1,,2", 1, MAX_N, "'1,,2'");
    expect_bad("1,2,", 1, MAX_N, "'1,2,'");
    expect_bad(",1", 1, MAX_N, "',1'");
    expect_bad("2048x", 1, MAX_N, "'2048x'");
    expect_bad("1e3", 1, MAX_N, "'1e3'");
    expect_bad(" 12", 1, MAX_N, "' 12'");
    expect_bad("12 ", 1, MAX_N, "'12 '");
    expect_bad("+5", 1, MAX_N, "'+5'");
    expect_bad("8192:512", 1, MAX_N, "'8192:512'");
    expect_bad("1:2:3:4", 1, MAX_N, "'1:2:3:4' is not a range");
    expect_bad("1::4", 1, MAX_N, "'1::4' is not a range");
    expect_bad("1:8:", 1, MAX_N, "'1:8:' is not a range");
    expect_bad("::", 1, MAX_N, "'::' is not a range");
    expect_bad("1:8:0", 1, MAX_N, "range '1:8:0': step '0' is too small (at least 1)");
    expect_bad("1:8:x", 1, MAX_N, "range '1:8:x': factor 'x' is not xF with F in [2, 1024]");
    expect_bad("1:8:x1", 1, MAX_N, "factor 'x1' is not xF");
    expect_bad("1:8:x0", 1, MAX_N, "factor 'x0' is not xF");
    expect_bad("1:8:x2048", 1, MAX_N, "factor 'x2048' is not xF");
    expect_bad("1:8:x-2", 1, MAX_N, "factor 'x-2' is not xF");
    expect_bad("1:8:xx2", 1, MAX_N, "factor 'xx2' is not xF");
    expect_bad("1:8:x2K", 1, MAX_N, "factor 'x2K' is not xF");
    expect_bad("8:1:x2", 1, MAX_N, "range '8:1:x2' is empty");
    expect_bad("1:2^40:x2", 1, MAX_E, "too large");
    expect_bad("1:2^32:x2,3:2^32:x2,5,7", 1, MAX_E, "more than");
    expect_bad("1:8:x2,4", 1, MAX_N, "'4' appears twice");
    expect_bad("1:8:99999", 1, MAX_N, "step '99999' is too large (at most 65536)");
    expect_bad("8:1:1", 1, MAX_N, "range '8:1:1' is empty");
    expect_bad("1:9:4,5", 1, MAX_N, "'5' appears twice");
    expect_bad("1:65:1", 1, MAX_N, "'1:65:1' expands to more than 64");
    expect_bad("1:65536:1", 1, MAX_N, "expands to more than 64");   /* refused before expanding */
    expect_bad("1:2^32:1", 1, MAX_E, "expands to more than 64");
    expect_bad("1,2,3:65:1", 1, MAX_N, "more than 64");             /* 2 + 63 */
    /* 2 + 62: exactly the cap */
    OK("1,2,3:64:1", 1, MAX_N, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
       24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,
       51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64);
    expect_bad(":512", 1, MAX_N, "512");
    expect_bad("512:", 1, MAX_N, "512");
    expect_bad("512:abc", 1, MAX_N, "'abc'");
    expect_bad("2^", 1, MAX_N, "'2^'");
    expect_bad("^2", 1, MAX_N, "'^2'");
    expect_bad("3^4", 1, MAX_N, "'3^4'");
    expect_bad("2^-1", 1, MAX_N, "'2^-1'");
    expect_bad("2^3^4", 1, MAX_N, "'2^3^4'");
    expect_bad("K", 1, MAX_N, "'K'");
    expect_bad("4KB", 1, MAX_N, "'4KB'");
    expect_bad("4T", 1, MAX_N, "'4T'");
    expect_bad("99999999999999999999999", 1, MAX_E, "'99999999999999999999999'");
    expect_bad("18446744073709551616", 1, MAX_E, "'18446744073709551616'"); /* 2^64 */
    expect_bad("9223372036854775807", 1, MAX_E, "'9223372036854775807'");   /* LLONG_MAX */
    expect_bad("99999999999G", 1, MAX_E, "'99999999999G'");
    expect_bad("0x10", 1, MAX_N, "'0x10'");
    expect_bad("1024,1024", 1, MAX_N, "'1024'");        /* listed twice */
    expect_bad("512:2048,1024", 1, MAX_N, "'1024'");    /* overlaps the range */

    /* bounds: the message gives the bound */
    expect_bad("65537", 1, MAX_N, "65536");
    expect_bad("2^17", 1, MAX_N, "'2^17'");
    expect_bad("128K", 1, MAX_N, "'128K'");
    expect_bad("4097", 1, MAX_E >> 20, "'4097'");
    expect_bad("8", 16, MAX_N, "at least 16");
    expect_bad("1024,99999999", 1, MAX_N, "'99999999'");
    expect_bad("512:131072", 1, MAX_N, "'131072'");
    expect_bad("2^33", 1, MAX_E, "4294967296");

    /* capacity: 65 distinct values in a list, and a range past the cap */
    {
        char text[1024];
        size_t used = 0;
        for (int i = 1; i <= SIZES_MAX_COUNT + 1; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%d", i > 1 ? "," : "", i);
        expect_bad(text, 1, MAX_N, "more than 64");
        /* exactly 64 is fine */
        text[strlen(text) - 3] = '\0'; /* drop ",65" */
        {
            long long out[SIZES_MAX_COUNT];
            int count = 0;
            char err[256] = "";
            CHECK(sizes_parse(text, 1, MAX_N, out, SIZES_MAX_COUNT, &count, err, sizeof err) == 0 &&
                      count == SIZES_MAX_COUNT && out[63] == 64,
                  "64 values: count %d err %s", count, err);
        }
        expect_bad("1:2^32,3:2^32,5:2^32", 1, MAX_E, "more than 64"); /* 33 + 31 + 30 */
        expect_bad("1:2^32,3:2^32,5", 1, MAX_E, "more than 64");
    }
    /* a caller's smaller cap is honoured */
    {
        long long out[SIZES_MAX_COUNT];
        int count = 0;
        char err[256] = "";
        CHECK(sizes_parse("1,2,3", 1, MAX_N, out, 2, &count, err, sizeof err) == -1 && test_contains(err, "2"),
              "cap 2 accepted 3 values (%s)", err);
        CHECK(sizes_parse("1:4", 1, MAX_N, out, 2, &count, err, sizeof err) == -1, "cap 2 accepted range 1:4");
        CHECK(sizes_parse("1:2", 1, MAX_N, out, 2, &count, err, sizeof err) == 0 && count == 2,
              "cap 2 refused 1:2 (%s)", err);
        CHECK(sizes_parse("1:3:1", 1, MAX_N, out, 2, &count, err, sizeof err) == -1, "cap 2 accepted 1:3:1");
        CHECK(sizes_parse("5,1:3:2", 1, MAX_N, out, 2, &count, err, sizeof err) == -1, "cap 2 accepted 5,1:3:2");
        CHECK(sizes_parse("1:3:2", 1, MAX_N, out, 2, &count, err, sizeof err) == 0 && count == 2 && out[1] == 3,
              "cap 2 refused 1:3:2 (%s)", err);
    }
    /* a tiny err buffer is never overrun and stays terminated */
    {
        long long out[SIZES_MAX_COUNT];
        int count = 0;
        char err[8];
        memset(err, 'Z', sizeof err);
        CHECK(sizes_parse("abcdefghijklmnop", 1, MAX_N, out, SIZES_MAX_COUNT, &count, err, sizeof err) == -1 &&
                  memchr(err, '\0', sizeof err) != NULL,
              "short err buffer not terminated");
    }
}

// ---- formatting -----------------------------------------------------------------

static void expect_format(long long v, const char *want)
{
    char buf[64];
    sizes_format(v, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0, "sizes_format(%lld) = '%s', expected '%s'", v, buf, want);
}

static void test_format(void)
{
    expect_format(1, "1");
    expect_format(512, "512");
    expect_format(1000, "1000");
    expect_format(1023, "1023");
    expect_format(1024, "2^10");
    expect_format(2048, "2^11");
    expect_format(3072, "3072");
    expect_format(4095, "4095");
    expect_format(1LL << 26, "2^26");
    expect_format(1LL << 32, "2^32");
    expect_format((1LL << 26) + 1, "67108865");
    /* a formatted power of two parses back to itself */
    for (int e = 10; e <= 32; e++) {
        char buf[64], err[128];
        long long v = 0;
        sizes_format(1LL << e, buf, sizeof buf);
        CHECK(sizes_parse_one(buf, 1, MAX_E, &v, err, sizeof err) == 0 && v == (1LL << e),
              "'%s' does not round-trip (%s)", buf, err);
    }
}

int main(void)
{
    test_accepted();
    test_rejected();
    test_format();
    return test_finish("test_sizes");
}
