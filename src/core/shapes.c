#include "shapes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sizes.h"

#define SHAPES_FORM "expected MxNxK, three sizes joined by 'x', e.g. 4096x14336x4096"

void shapes_init(shapes_list *l)
{
    l->count = 0;
}

void shapes_format(const cli_shape *s, char *buf, size_t len)
{
    snprintf(buf, len, "%lldx%lldx%lld", s->m, s->n, s->k);
}

int shapes_check(const cli_shape *s, char *err, size_t err_len)
{
    static const struct {
        const char *name; /* the matrix and its dimensions */
        int a, b;         /* indices into {m, n, k} */
    } mats[3] = {{"A (m x k)", 0, 2}, {"B (k x n)", 2, 1}, {"C (m x n)", 0, 1}};
    const long long d[3] = {s->m, s->n, s->k};
    for (int i = 0; i < 3; i++)
        if (d[i] < 1 || d[i] > SHAPES_MAX_DIM) {
            snprintf(err, err_len, "%c = %lld is out of range (each dimension in [1, %lld])", "mnk"[i], d[i],
                     SHAPES_MAX_DIM);
            return -1;
        }
    for (int i = 0; i < 3; i++) {
        long long e = d[mats[i].a] * d[mats[i].b]; /* <= 2^32: no overflow */
        if (e > SHAPES_MAX_ELEMS) {
            snprintf(err, err_len,
                     "%s would hold %lld elements, more than %lld (2^31-1: the kernels index with int)",
                     mats[i].name, e, SHAPES_MAX_ELEMS);
            return -1;
        }
    }
    return 0;
}

int shapes_add(shapes_list *l, const cli_shape *s, const char *from, char *err, size_t err_len)
{
    char name[80], sub[200];
    shapes_format(s, name, sizeof name);
    if (shapes_check(s, sub, sizeof sub)) {
        snprintf(err, err_len, "%s: shape %s: %s", from, name, sub);
        return -1;
    }
    for (int i = 0; i < l->count; i++) {
        const cli_shape *t = &l->shape[i];
        if (t->m != s->m || t->n != s->n || t->k != s->k) continue;
        if (strcmp(l->from[i], from) == 0)
            snprintf(err, err_len, "%s: shape %s is listed twice (each shape once)", from, name);
        else
            snprintf(err, err_len, "%s: shape %s is already given by %s (each shape once)", from, name,
                     l->from[i]);
        return -1;
    }
    if (l->count >= CLI_MAX_SHAPES) {
        snprintf(err, err_len, "%s: shape %s is one too many (at most %d GEMM shapes a run)", from, name,
                 CLI_MAX_SHAPES);
        return -1;
    }
    l->shape[l->count] = *s;
    snprintf(l->from[l->count], SHAPES_FROM_LEN, "%s", from);
    l->count++;
    return 0;
}

int shapes_merge(shapes_list *dst, const shapes_list *src, char *err, size_t err_len)
{
    for (int i = 0; i < src->count; i++)
        if (shapes_add(dst, &src->shape[i], src->from[i], err, err_len)) return -1;
    return 0;
}

int shapes_parse_one(const char *text, size_t len, cli_shape *s, char *err, size_t err_len)
{
    long long d[3];
    const char *p = text, *end = text + len;
    for (int i = 0; i < 3; i++) {
        const char *x = memchr(p, 'x', (size_t)(end - p));
        const char *stop = i < 2 ? x : end;
        char field[40], sub[200];
        size_t fl;
        if ((i < 2 && !x) || (i == 2 && memchr(p, 'x', (size_t)(end - p)))) {
            snprintf(err, err_len, "%s", SHAPES_FORM);
            return -1;
        }
        fl = (size_t)(stop - p);
        if (fl == 0) {
            snprintf(err, err_len, "%c is empty (%s)", "mnk"[i], SHAPES_FORM);
            return -1;
        }
        /* an embedded NUL would end the copied field early and pass unseen */
        if (fl >= sizeof field || memchr(p, '\0', fl)) {
            snprintf(err, err_len, "%c '%.*s' is not a size", "mnk"[i], (int)fl, p);
            return -1;
        }
        memcpy(field, p, fl);
        field[fl] = '\0';
        if (sizes_parse_one(field, 1, SHAPES_MAX_DIM, &d[i], sub, sizeof sub)) {
            snprintf(err, err_len, "%c %s", "mnk"[i], sub);
            return -1;
        }
        p = stop + 1;
    }
    s->m = d[0];
    s->n = d[1];
    s->k = d[2];
    return 0;
}

int shapes_parse_list(const char *opt, const char *text, shapes_list *l, char *err, size_t err_len)
{
    const char *p = text;
    int several = strchr(text, ',') != NULL;
    if (*p == '\0') {
        snprintf(err, err_len, "%s: empty list (expected MxNxK[,MxNxK...])", opt);
        return -1;
    }
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        cli_shape s;
        char sub[300];
        if (len == 0) {
            snprintf(err, err_len, "%s '%s': empty item in the list (expected MxNxK[,MxNxK...])", opt, text);
            return -1;
        }
        if (shapes_parse_one(p, len, &s, sub, sizeof sub)) {
            if (several)
                snprintf(err, err_len, "%s '%s': item '%.*s': %s", opt, text, (int)len, p, sub);
            else
                snprintf(err, err_len, "%s '%s': %s", opt, text, sub);
            return -1;
        }
        if (shapes_add(l, &s, opt, err, err_len)) return -1;
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

static int shapes_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int shapes_parse_text(const char *opt, const char *name, const char *text, size_t len, shapes_list *l,
                      char *err, size_t err_len)
{
    size_t pos = 0;
    int line = 0, found = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - s) : len - pos;
        const char *hash = memchr(s, '#', ll);
        size_t b = 0, e = hash ? (size_t)(hash - s) : ll;
        char from[SHAPES_FROM_LEN], sub[300];
        cli_shape sh;
        pos += ll + 1;
        line++;
        snprintf(from, sizeof from, "%s %s:%d", opt, name, line);
        if (memchr(s, '\0', ll)) {
            snprintf(err, err_len, "%s: a NUL byte (a shapes file is text: one MxNxK a line)", from);
            return -1;
        }
        while (b < e && shapes_blank(s[b])) b++;
        while (e > b && shapes_blank(s[e - 1])) e--;
        if (b == e) continue;
        if (shapes_parse_one(s + b, e - b, &sh, sub, sizeof sub)) {
            snprintf(err, err_len, "%s: '%.*s': %s (one shape a line; # starts a comment)", from, (int)(e - b),
                     s + b, sub);
            return -1;
        }
        if (shapes_add(l, &sh, from, err, err_len)) return -1;
        found++;
    }
    if (!found) {
        snprintf(err, err_len, "%s '%s': no shapes in the file (expected one MxNxK a line; # starts a comment)",
                 opt, name);
        return -1;
    }
    return 0;
}

int shapes_read_file(const char *opt, const char *path, shapes_list *l, char *err, size_t err_len)
{
    struct stat st;
    FILE *f;
    char *buf;
    size_t len = 0;
    int rc;
    if (path[0] == '\0') {
        snprintf(err, err_len, "%s: empty path (expected a file with one MxNxK a line)", opt);
        return -1;
    }
    /* stat first: opening a FIFO would block, and a directory opens fine on Linux */
    if (stat(path, &st) != 0) {
        snprintf(err, err_len, "%s '%s': cannot read it (%s)", opt, path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "%s '%s' is a directory (expected a file with one MxNxK a line)", opt, path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s '%s' is not a regular file (expected a file with one MxNxK a line)", opt,
                 path);
        return -1;
    }
    if (st.st_size > SHAPES_FILE_MAX) {
        snprintf(err, err_len, "%s '%s' is %lld bytes, more than a shapes file may hold (%ld)", opt, path,
                 (long long)st.st_size, SHAPES_FILE_MAX);
        return -1;
    }
    f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s '%s': cannot open it (%s)", opt, path, strerror(errno));
        return -1;
    }
    buf = malloc(SHAPES_FILE_MAX + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, err_len, "%s '%s': out of memory", opt, path);
        return -1;
    }
    /* the file may have grown since stat: read at most one byte past the limit */
    while (len <= SHAPES_FILE_MAX) {
        size_t got = fread(buf + len, 1, SHAPES_FILE_MAX + 1 - len, f);
        if (got == 0) break;
        len += got;
    }
    if (ferror(f)) {
        snprintf(err, err_len, "%s '%s': cannot read it (%s)", opt, path, strerror(errno));
        rc = -1;
    } else if (len > SHAPES_FILE_MAX) {
        snprintf(err, err_len, "%s '%s' is more than %ld bytes, more than a shapes file may hold", opt, path,
                 SHAPES_FILE_MAX);
        rc = -1;
    } else {
        rc = shapes_parse_text(opt, path, buf, len, l, err, err_len);
    }
    free(buf);
    fclose(f);
    return rc;
}

int shapes_product(const long long *const dim[3], const int count[3], shapes_list *l, char *err,
                   size_t err_len)
{
    static const char *const names[3] = {"--m", "--n", "--k"};
    const long long *v[3] = {dim[0], dim[1], dim[2]};
    int c[3] = {count[0], count[1], count[2]};
    int square = !c[0] && !c[2];
    const char *from = square ? "--n" : "--m/--n/--k";
    long long total;
    if (!c[1]) {
        snprintf(err, err_len,
                 "%s is given without --n (the product m x n x k needs --n, or --axis n; an --m or --k not "
                 "given takes --n's value)",
                 c[0] ? "--m" : "--k");
        return -1;
    }
    if (!square)
        for (int d = 0; d < 3; d += 2) {
            if (c[d]) continue;
            if (c[1] > 1) {
                snprintf(err, err_len,
                         "%s is not given and --n lists %d sizes: give %s (it takes --n's value only when "
                         "--n is one size)",
                         names[d], c[1], names[d]);
                return -1;
            }
            v[d] = dim[1];
            c[d] = 1;
        }
    total = square ? c[1] : (long long)c[0] * c[1] * c[2];
    if (total > CLI_MAX_SHAPES - l->count) {
        if (square)
            snprintf(err, err_len, "--n lists %lld sizes, more than fit (at most %d GEMM shapes a run)", total,
                     CLI_MAX_SHAPES);
        else
            snprintf(err, err_len,
                     "--m/--n/--k expand to %lld shapes (%d x %d x %d), more than fit (at most %d GEMM shapes "
                     "a run)",
                     total, c[0], c[1], c[2], CLI_MAX_SHAPES);
        return -1;
    }
    if (square) {
        for (int j = 0; j < c[1]; j++) {
            cli_shape s = {v[1][j], v[1][j], v[1][j]};
            if (shapes_add(l, &s, from, err, err_len)) return -1;
        }
        return 0;
    }
    for (int a = 0; a < c[0]; a++)
        for (int b = 0; b < c[1]; b++)
            for (int k = 0; k < c[2]; k++) {
                cli_shape s = {v[0][a], v[1][b], v[2][k]};
                if (shapes_add(l, &s, from, err, err_len)) return -1;
            }
    return 0;
}
