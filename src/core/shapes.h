/* src/core/shapes.h: GEMM shapes (m, n, k) from the command line.
 *
 * Three sources, each checked here and merged by cli_parse in command-line order:
 *   --shape MxNxK[,MxNxK...]   explicit shapes, e.g. 4096x14336x4096
 *   --shapes FILE              one MxNxK a line; '#' starts a comment (whole
 *                              line or trailing); blank lines are skipped;
 *                              spaces, tabs and a CR around a shape are ignored
 *   --m/--n/--k LISTs          the product m x n x k (sizes.h forms per
 *                              dimension; m outermost, k innermost); see
 *                              shapes_product for the defaults
 * In MxNxK each dimension takes a sizes.h value (4096, 4K, 2^12), no list or
 * range, no spaces. C (m x n) = A (m x k) * B (k x n).
 *
 * Bounds, for every shape whatever its source: each dimension in
 * [1, SHAPES_MAX_DIM], and each of A, B, C at most SHAPES_MAX_ELEMS elements
 * (the kernels index with int). A shape given twice (in one source or across
 * sources) is refused: it would be measured and written to the CSV twice.
 *
 * Every function returns 0, or -1 with a message in err that names the
 * argument (or FILE:LINE) and the bad part. */
#ifndef COMPARE_SHAPES_H
#define COMPARE_SHAPES_H

#include <stddef.h>

#include "cli.h"

#define SHAPES_MAX_DIM 65536LL         /* each of m, n, k */
#define SHAPES_MAX_ELEMS 2147483647LL  /* each of A, B, C: INT_MAX, the kernels' index type */
#define SHAPES_FROM_LEN 96             /* an origin label: "--shape", "--shapes FILE:LINE", ... */
#define SHAPES_FILE_MAX (1L << 20)     /* a shapes file holds at most CLI_MAX_SHAPES shapes */
#define SHAPES_LINE_MAX 256            /* characters before a comment on one line */

/* Shapes in the order given, each with where it came from (for messages). */
typedef struct {
    cli_shape shape[CLI_MAX_SHAPES];
    char from[CLI_MAX_SHAPES][SHAPES_FROM_LEN];
    int count;
} shapes_list;

void shapes_init(shapes_list *l);

/* Checks the bounds above. */
int shapes_check(const cli_shape *s, char *err, size_t err_len);

/* Appends s (from: its origin label); refuses a shape out of bounds, one
 * already in l (naming both origins), and a full list (naming the limit). */
int shapes_add(shapes_list *l, const cli_shape *s, const char *from, char *err, size_t err_len);

/* Appends every shape of src to dst, as shapes_add. */
int shapes_merge(shapes_list *dst, const shapes_list *src, char *err, size_t err_len);

/* Parses exactly one "MxNxK" from text[0..len); each dimension in [1,
 * SHAPES_MAX_DIM] (the element bounds are shapes_check's). The message names
 * the dimension but not the item: callers add where it came from. */
int shapes_parse_one(const char *text, size_t len, cli_shape *s, char *err, size_t err_len);

/* Parses the --shape value "MxNxK[,MxNxK...]" into l; opt names the option. */
int shapes_parse_list(const char *opt, const char *text, shapes_list *l, char *err, size_t err_len);

/* Parses a shapes file's contents text[0..len) (name: the file, for
 * "opt name:LINE" messages) into l; no shape at all is an error. */
int shapes_parse_text(const char *opt, const char *name, const char *text, size_t len, shapes_list *l,
                      char *err, size_t err_len);

/* Reads the regular file `path` (at most SHAPES_FILE_MAX bytes) and parses
 * it as shapes_parse_text does. */
int shapes_read_file(const char *opt, const char *path, shapes_list *l, char *err, size_t err_len);

/* The --m/--n/--k product into l. dim[0..2] are the m, n, k lists and
 * count[0..2] their lengths, 0 for an option not given. With neither m nor k
 * given, n alone gives square shapes (m = n = k, today's --n). Otherwise n
 * must be given, and an m or k not given takes n's value, which must then be
 * a single size. */
int shapes_product(const long long *const dim[3], const int count[3], shapes_list *l, char *err,
                   size_t err_len);

/* "4096x14336x4096" (always all three dimensions, in decimal). */
void shapes_format(const cli_shape *s, char *buf, size_t len);

#endif
