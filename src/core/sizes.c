#include "sizes.h"

#include <stdio.h>
#include <string.h>

static int sizes_parse_digits(const char *s, size_t len, unsigned long long *v)
{
    unsigned long long x = 0;
    if (len == 0) return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (~0ULL - d) / 10) return -2; /* overflow */
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* Parses s[0..len) as one value. */
static int sizes_value(const char *s, size_t len, long long min, long long max,
                       long long *value, char *err, size_t err_len)
{
    unsigned long long v = 0;
    const char *caret = memchr(s, '^', len);
    int rc;
    if (len == 0) {
        snprintf(err, err_len, "empty size");
        return -1;
    }
    if (caret) {
        unsigned long long base, exp;
        size_t bl = (size_t)(caret - s);
        if (sizes_parse_digits(s, bl, &base) || sizes_parse_digits(caret + 1, len - bl - 1, &exp) ||
            base != 2) {
            snprintf(err, err_len, "'%.*s' is not a size (expected 2^K)", (int)len, s);
            return -1;
        }
        if (exp > 62) {
            snprintf(err, err_len, "'%.*s' is too large (at most %lld)", (int)len, s, max);
            return -1;
        }
        v = 1ULL << exp;
    } else {
        unsigned long long mult = 1;
        size_t dl = len;
        char last = s[len - 1];
        if (last == 'K' || last == 'k') mult = 1ULL << 10;
        else if (last == 'M' || last == 'm') mult = 1ULL << 20;
        else if (last == 'G' || last == 'g') mult = 1ULL << 30;
        if (mult != 1) dl--;
        rc = sizes_parse_digits(s, dl, &v);
        if (rc == -2 || (rc == 0 && v > (~0ULL >> 2) / mult)) {
            snprintf(err, err_len, "'%.*s' is too large (at most %lld)", (int)len, s, max);
            return -1;
        }
        if (rc) {
            snprintf(err, err_len,
                     "'%.*s' is not a size (expected a positive integer, 2^K, or an integer with K/M/G)",
                     (int)len, s);
            return -1;
        }
        v *= mult;
    }
    if ((long long)v < min) {
        snprintf(err, err_len, "'%.*s' is too small (at least %lld)", (int)len, s, min);
        return -1;
    }
    if ((long long)v > max) {
        snprintf(err, err_len, "'%.*s' is too large (at most %lld)", (int)len, s, max);
        return -1;
    }
    *value = (long long)v;
    return 0;
}

int sizes_parse_one(const char *text, long long min, long long max,
                    long long *value, char *err, size_t err_len)
{
    return sizes_value(text, strlen(text), min, max, value, err, err_len);
}

/* A size listed twice would be measured (and written to the CSV) twice. */
static int sizes_seen(const long long *out, int n, long long v, const char *text, char *err, size_t err_len)
{
    for (int i = 0; i < n; i++)
        if (out[i] == v) {
            snprintf(err, err_len, "'%lld' appears twice in '%s' (each size once)", v, text);
            return -1;
        }
    return 0;
}

int sizes_parse(const char *text, long long min, long long max,
                long long *out, int cap, int *count, char *err, size_t err_len)
{
    const char *p = text;
    int n = 0;
    if (cap > SIZES_MAX_COUNT) cap = SIZES_MAX_COUNT;
    if (*p == '\0') {
        snprintf(err, err_len, "empty size list");
        return -1;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        if (len == 0) {
            snprintf(err, err_len, "empty item in list '%s'", text);
            return -1;
        }
        if (colon) {
            long long lo, hi, step = 0;
            size_t ll = (size_t)(colon - p);
            const char *colon2 = memchr(colon + 1, ':', len - ll - 1);
            size_t hl = colon2 ? (size_t)(colon2 - colon - 1) : len - ll - 1;
            size_t sl = colon2 ? len - ll - hl - 2 : 0;
            if (ll == 0 || hl == 0 || (colon2 && (sl == 0 || memchr(colon2 + 1, ':', sl)))) {
                snprintf(err, err_len, "'%.*s' is not a range (expected LO:HI, LO:HI:STEP or LO:HI:xF)", (int)len, p);
                return -1;
            }
            if (sizes_value(p, ll, min, max, &lo, err, err_len) ||
                sizes_value(colon + 1, hl, min, max, &hi, err, err_len))
                return -1;
            long long factor = 2; /* LO:HI and LO:HI:xF multiply; LO:HI:STEP adds */
            if (colon2 && (colon2[1] == 'x' || colon2[1] == 'X')) {
                unsigned long long f = 0;
                if (sizes_parse_digits(colon2 + 2, sl - 1, &f) || f < 2 || f > 1024) {
                    snprintf(err, err_len, "range '%.*s': factor '%.*s' is not xF with F in [2, 1024]", (int)len, p,
                             (int)sl, colon2 + 1);
                    return -1;
                }
                factor = (long long)f;
            } else if (colon2) {
                char sub[160];
                long long smin = 1, smax = max > 1 ? max : 1;
                if (sizes_value(colon2 + 1, sl, smin, smax, &step, sub, sizeof sub)) {
                    snprintf(err, err_len, "range '%.*s': step %s", (int)len, p, sub);
                    return -1;
                }
            }
            if (lo > hi) {
                snprintf(err, err_len, "range '%.*s' is empty (LO > HI)", (int)len, p);
                return -1;
            }
            if (step > 0) {
                /* LO, LO+STEP, ... while <= HI: counted first, so a huge range fails at once */
                long long steps = (hi - lo) / step + 1;
                if (steps > cap - n) {
                    snprintf(err, err_len, "'%s' expands to more than %d sizes", text, cap);
                    return -1;
                }
                for (long long j = 0; j < steps; j++) {
                    if (sizes_seen(out, n, lo + j * step, text, err, err_len)) return -1;
                    out[n++] = lo + j * step;
                }
            } else {
                for (long long v = lo; v <= hi; v *= factor) {
                    if (n >= cap) {
                        snprintf(err, err_len, "'%s' expands to more than %d sizes", text, cap);
                        return -1;
                    }
                    if (sizes_seen(out, n, v, text, err, err_len)) return -1;
                    out[n++] = v;
                    if (v > hi / factor) break;
                }
            }
        } else {
            if (n >= cap) {
                snprintf(err, err_len, "'%s' has more than %d sizes", text, cap);
                return -1;
            }
            if (sizes_value(p, len, min, max, &out[n], err, err_len)) return -1;
            if (sizes_seen(out, n, out[n], text, err, err_len)) return -1;
            n++;
        }
        if (!end) break;
        p = end + 1;
    }
    *count = n;
    return 0;
}

void sizes_format(long long v, char *buf, size_t len)
{
    if (v >= 1024 && (v & (v - 1)) == 0) {
        int e = 0;
        while ((1LL << e) < v) e++;
        snprintf(buf, len, "2^%d", e);
    } else {
        snprintf(buf, len, "%lld", v);
    }
}
