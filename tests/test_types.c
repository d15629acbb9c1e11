/* tests/test_types.c (cpu): the element-type table (src/core/types.c): each
 * type's storage, precision and range as the formats define them, parsing by
 * name with its message, the math each runs at, and types_round (the CPU's
 * rounding, which the GPU's conversions must equal: test_gpu_convert) on
 * exact values, ties, subnormals, overflow and saturation. */
#include "testlib.h"
#include "types.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void test_table(void)
{
    static const struct {
        const char *name;
        int bytes, is_float, bits;
        double u, max;
        types_math math;
    } want[] = {
        {"fp32", 4, 1, 23, 0x1p-24, FLT_MAX, TYPES_MATH_FP32},
        {"tf32", 4, 1, 10, 0x1p-11, 0x1.ffcp127, TYPES_MATH_TF32},
        {"fp16", 2, 1, 10, 0x1p-11, 65504.0, TYPES_MATH_FP16},
        {"bf16", 2, 1, 7, 0x1p-8, 0x1.fep127, TYPES_MATH_BF16},
        {"fp8_e4m3", 1, 1, 3, 0x1p-4, 448.0, TYPES_MATH_FP8},
        {"fp8_e5m2", 1, 1, 2, 0x1p-3, 57344.0, TYPES_MATH_FP8},
        {"f32", 4, 1, 23, 0x1p-24, FLT_MAX, TYPES_MATH_FP32},
        {"u32", 4, 0, 0, 0.0, 0.0, TYPES_MATH_NONE},
        {"i32", 4, 0, 0, 0.0, 0.0, TYPES_MATH_NONE},
        {"u8", 1, 0, 0, 0.0, 0.0, TYPES_MATH_NONE},
    };
    const int n = (int)(sizeof want / sizeof want[0]);
    CHECK(types_count() == n, "%d types, expected %d", types_count(), n);
    for (int i = 0; i < n; i++) {
        const types_info *t = types_find(want[i].name);
        CHECK(t && t == types_at(i), "%s: not found at row %d", want[i].name, i);
        if (!t) continue;
        CHECK(t->bytes == want[i].bytes && t->is_float == want[i].is_float && t->mantissa_bits == want[i].bits,
              "%s: %d bytes, float %d, %d bits", t->name, t->bytes, t->is_float, t->mantissa_bits);
        CHECK(t->unit_roundoff == want[i].u, "%s: u = %g, expected %g", t->name, t->unit_roundoff, want[i].u);
        /* u = 2^-(bits + 1) for every float type */
        CHECK(!t->is_float || t->unit_roundoff == ldexp(1.0, -(t->mantissa_bits + 1)), "%s: u and bits disagree", t->name);
        CHECK(t->max_finite == want[i].max, "%s: max %.17g, expected %.17g", t->name, t->max_finite, want[i].max);
        CHECK(t->math == want[i].math, "%s: math %d", t->name, (int)t->math);
        CHECK(types_math_of(t->name) == t->math, "%s: types_math_of", t->name);
        /* the largest finite value is a value of the type */
        if (t->is_float)
            CHECK(types_round(t, t->max_finite) == t->max_finite, "%s: max_finite is not a value", t->name);
    }
    CHECK(types_at(-1) == NULL && types_at(n) == NULL, "types_at out of range");
    CHECK(types_find("FP16") == NULL && types_find("") == NULL && types_find(NULL) == NULL, "names are exact");
    CHECK(types_math_of("nope") == TYPES_MATH_NONE && types_math_of(NULL) == TYPES_MATH_NONE, "unknown math");
    CHECK(strcmp(types_math_name(TYPES_MATH_TF32), "tf32") == 0 && strcmp(types_math_name(TYPES_MATH_FP8), "fp8") == 0 &&
              strcmp(types_math_name(TYPES_MATH_NONE), "") == 0,
          "math names");
}

static void test_parse(void)
{
    const types_info *t = NULL;
    char err[512];
    CHECK(types_parse("--type", "bf16", &t, err, sizeof err) == 0 && t && strcmp(t->name, "bf16") == 0, "bf16 parses");
    CHECK(types_parse("--type", "fp12", &t, err, sizeof err) == -1 && t == NULL, "fp12 is refused");
    CHECK(strstr(err, "--type fp12: unknown element type") && strstr(err, "fp8_e4m3") && strstr(err, "u8)"),
          "message: [%s]", err);
    /* a short buffer is cut, not overrun */
    CHECK(types_parse("--type", "x", &t, err, 12) == -1 && strlen(err) == 11, "short buffer: [%s]", err);
}

static void test_round(void)
{
    const types_info *fp16 = types_find("fp16"), *bf16 = types_find("bf16"), *e4m3 = types_find("fp8_e4m3"),
                     *e5m2 = types_find("fp8_e5m2"), *fp32 = types_find("fp32"), *u32 = types_find("u32");
    /* exact values stay */
    CHECK(types_round(fp16, 1.5) == 1.5 && types_round(bf16, -3.0) == -3.0 && types_round(e4m3, 0.25) == 0.25,
          "exact values");
    /* fp16: 0.1 -> 1638 / 16384; ties to even */
    CHECK(types_round(fp16, 0.1) == 0.0999755859375, "fp16(0.1) = %.17g", types_round(fp16, 0.1));
    CHECK(types_round(fp16, 1.0 + 0x1p-11) == 1.0 && types_round(fp16, 1.0 + 0x3p-11) == 1.0 + 0x1p-9, "fp16 ties");
    CHECK(types_round(fp16, 65504.0 + 15.9) == 65504.0 && isinf(types_round(fp16, 65520.0)), "fp16 overflow");
    CHECK(types_round(fp16, 0x1p-24) == 0x1p-24 && types_round(fp16, 0x1p-25) == 0.0 &&
              types_round(fp16, 0x3p-25) == 0x1p-23,
          "fp16 subnormals");
    /* bf16 and FP8 */
    CHECK(types_round(bf16, 1.0 + 0x1p-8) == 1.0 && types_round(bf16, 1.0 + 0x3p-8) == 1.0 + 0x1p-6, "bf16 ties");
    CHECK(types_round(bf16, 3.14159274) == 3.140625, "bf16(pi) = %.17g", types_round(bf16, 3.14159274));
    CHECK(types_round(e4m3, 1.0625) == 1.0 && types_round(e4m3, 1.1875) == 1.25 && types_round(e4m3, 464.0) == 448.0,
          "e4m3 ties");
    CHECK(types_round(e4m3, 1e6) == 448.0 && types_round(e4m3, -1e6) == -448.0 && types_round(e5m2, 1e9) == 57344.0,
          "FP8 saturates");
    CHECK(types_round(e4m3, 0x1p-9) == 0x1p-9 && types_round(e4m3, 0x1p-11) == 0.0, "e4m3 subnormals");
    CHECK(types_round(e5m2, 1.125) == 1.0 && types_round(e5m2, 1.375) == 1.5, "e5m2 ties");
    CHECK(isnan(types_round(e4m3, NAN)) && isinf(types_round(fp16, INFINITY)), "NaN and inf pass");
    /* fp32: a double rounds to the nearest float */
    CHECK(types_round(fp32, 0.1) == (double)0.1f && types_round(fp32, 1.0 + 0x1p-30) == 1.0, "fp32 rounding");
    CHECK(types_round(u32, 7.5) == 7.5, "an integer type leaves values alone");
    /* the error bound that u names: |round(x) - x| <= u |x| for normal x */
    for (int i = 1; i < 1000; i++) {
        double x = 1.0 + i * 0.000977 + i * 1e-7;
        CHECK(fabs(types_round(bf16, x) - x) <= bf16->unit_roundoff * x, "bf16 bound at %.17g", x);
        CHECK(fabs(types_round(e5m2, x) - x) <= e5m2->unit_roundoff * x, "e5m2 bound at %.17g", x);
    }
}

int main(void)
{
    test_table();
    test_parse();
    test_round();
    return test_finish("test_types");
}
