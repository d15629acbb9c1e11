/* src/core/types.h: the element types a case can run in, as one table: name,
 * storage, precision (mantissa bits, unit roundoff u = 2^-(bits + 1)), range,
 * and the math whose device ceiling its arithmetic runs at. The verification
 * tolerances (src/core/verify.c), the device ceilings (src/core/peaks.c) and
 * the GPU's conversions (src/gpu/convert_kernels.cu) all read it, so a type's
 * precision is written down once. Plain data and arithmetic: no CUDA. */
#ifndef COMPARE_TYPES_H
#define COMPARE_TYPES_H

#include <stddef.h>

/* The maths a device ceiling is known for (src/core/peaks.c): FP32 on the
 * SIMT lanes, and the dense tensor-core rates with FP32 accumulation. */
typedef enum {
    TYPES_MATH_NONE = -1, /* no compute ceiling (integer keys) */
    TYPES_MATH_FP32 = 0,
    TYPES_MATH_TF32,
    TYPES_MATH_FP16,
    TYPES_MATH_BF16,
    TYPES_MATH_FP8,       /* e4m3 and e5m2 run at the same rate */
    TYPES_MATH_COUNT
} types_math;

typedef struct {
    const char *name;      /* "fp32", "bf16", "fp8_e4m3", "u32": verbatim in --list, the CSV's math */
    int bytes;             /* storage bytes per element (tf32: held in 4) */
    int is_float;          /* 1 floating point, 0 integer */
    int mantissa_bits;     /* stored fraction bits (fp32 23, tf32 10, bf16 7, e4m3 3); 0 for integers */
    double unit_roundoff;  /* u = 2^-(mantissa_bits + 1): round to nearest errs by at most u relative; 0 integers */
    int min_exponent;      /* exponent of the smallest normal number (fp16 -14); below it, subnormals */
    double max_finite;     /* largest finite value (fp16 65504, e4m3 448); 0 for integers */
    int saturates;         /* 1: a conversion clamps to +-max_finite (FP8 here); 0: it overflows to inf */
    types_math math;       /* the ceiling its arithmetic runs at (TYPES_MATH_NONE: none) */
    const char *about;     /* one line for --list */
} types_info;

/* The table, in a fixed order: rows 0 .. types_count() - 1. */
int types_count(void);
const types_info *types_at(int i);
/* The type named `name` (exact), NULL when there is none. */
const types_info *types_find(const char *name);
/* types_find with a message: 0 and *out set, or -1 with err naming the bad
 * type and listing the known ones ("--type fp12: unknown element type (known: fp32, ...)");
 * `what` leads the message (the option or field that held the name). */
int types_parse(const char *what, const char *name, const types_info **out, char *err, size_t err_len);
/* "fp32", "tf32", "fp16", "bf16", "fp8"; "" for TYPES_MATH_NONE. */
const char *types_math_name(types_math m);
/* The math a row's math string runs at (types_find(name)->math), TYPES_MATH_NONE
 * for NULL or an unknown name. */
types_math types_math_of(const char *name);
/* x rounded to the nearest value of type t, ties to even, as the GPU's
 * conversions do (src/gpu/convert_kernels.cu): subnormals below min_exponent,
 * beyond max_finite +-inf or (saturates) +-max_finite; NaN stays NaN. For an
 * integer type, x unchanged. The CPU's reference of a rounded input. */
double types_round(const types_info *t, double x);

#endif
