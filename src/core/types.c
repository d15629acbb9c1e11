#include "types.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Formats: IEEE 754 binary32 and binary16; bfloat16 (binary32's exponent, 7
 * fraction bits); TF32 (binary32's exponent, 10 fraction bits: what a tensor
 * core keeps of an FP32 input); FP8 E4M3 and E5M2 as in "FP8 Formats for Deep
 * Learning" (Micikevicius et al., 2022) and cuda_fp8.h: E4M3 has no
 * infinities and keeps its all-ones mantissa at the top exponent for NaN, so
 * its largest value is 1.75 * 2^8 = 448; E5M2 is IEEE-like, largest 1.75 * 2^15. */
static const types_info types_table[] = {
    {"fp32", 4, 1, 23, 0x1p-24, -126, FLT_MAX, 0, TYPES_MATH_FP32, "IEEE binary32"},
    {"tf32", 4, 1, 10, 0x1p-11, -126, 0x1.ffcp127, 0, TYPES_MATH_TF32,
     "FP32 storage, products of inputs rounded to 10 fraction bits on the tensor cores"},
    {"fp16", 2, 1, 10, 0x1p-11, -14, 65504.0, 0, TYPES_MATH_FP16, "IEEE binary16"},
    {"bf16", 2, 1, 7, 0x1p-8, -126, 0x1.fep127, 0, TYPES_MATH_BF16, "bfloat16: binary32's range, 7 fraction bits"},
    {"fp8_e4m3", 1, 1, 3, 0x1p-4, -6, 448.0, 1, TYPES_MATH_FP8, "FP8 E4M3 (no inf; converted with saturation)"},
    {"fp8_e5m2", 1, 1, 2, 0x1p-3, -14, 57344.0, 1, TYPES_MATH_FP8, "FP8 E5M2 (converted with saturation)"},
    /* the key and value types of sort, scan and histogram */
    {"f32", 4, 1, 23, 0x1p-24, -126, FLT_MAX, 0, TYPES_MATH_FP32, "binary32 keys or values"},
    {"u32", 4, 0, 0, 0.0, 0, 0.0, 0, TYPES_MATH_NONE, "unsigned 32-bit keys"},
    {"i32", 4, 0, 0, 0.0, 0, 0.0, 0, TYPES_MATH_NONE, "signed 32-bit values"},
    {"u8", 1, 0, 0, 0.0, 0, 0.0, 0, TYPES_MATH_NONE, "unsigned 8-bit samples"},
};
#define TYPES_N ((int)(sizeof types_table / sizeof types_table[0]))

int types_count(void) { return TYPES_N; }

const types_info *types_at(int i) { return i >= 0 && i < TYPES_N ? &types_table[i] : NULL; }

const types_info *types_find(const char *name)
{
    for (int i = 0; name && i < TYPES_N; i++)
        if (strcmp(types_table[i].name, name) == 0) return &types_table[i];
    return NULL;
}

int types_parse(const char *what, const char *name, const types_info **out, char *err, size_t err_len)
{
    size_t used;
    *out = types_find(name);
    if (*out) return 0;
    used = (size_t)snprintf(err, err_len, "%s %s: unknown element type (known:", what, name ? name : "(none)");
    for (int i = 0; i < TYPES_N && used < err_len; i++)
        used += (size_t)snprintf(err + used, err_len - used, "%s %s", i ? "," : "", types_table[i].name);
    if (used < err_len) snprintf(err + used, err_len - used, ")");
    return -1;
}

const char *types_math_name(types_math m)
{
    switch (m) {
    case TYPES_MATH_FP32: return "fp32";
    case TYPES_MATH_TF32: return "tf32";
    case TYPES_MATH_FP16: return "fp16";
    case TYPES_MATH_BF16: return "bf16";
    case TYPES_MATH_FP8: return "fp8";
    default: return "";
    }
}

types_math types_math_of(const char *name)
{
    const types_info *t = types_find(name);
    return t ? t->math : TYPES_MATH_NONE;
}

double types_round(const types_info *t, double x)
{
    int e;
    double q, r;
    if (!t->is_float || isnan(x) || isinf(x) || x == 0.0) return x;
    (void)frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
    e -= 1;
    if (e < t->min_exponent) e = t->min_exponent; /* subnormal: the quantum stops shrinking */
    q = ldexp(1.0, e - t->mantissa_bits);
    r = nearbyint(x / q) * q; /* x / q is exact (a power of two); nearbyint: ties to even */
    if (fabs(r) > t->max_finite) return t->saturates ? copysign(t->max_finite, x) : copysign(INFINITY, x);
    return r;
}
