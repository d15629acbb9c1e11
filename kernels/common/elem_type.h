/* kernels/common/elem_type.h: the element types a kernel launcher takes, as a
 * small enum shared by the launchers of the typed ops (softmax, the norms,
 * GEMV, the low-precision GEMM) and the op files that call them. The names
 * are those of src/core/types.c ("fp32", "fp16", "bf16", "fp8_e4m3",
 * "fp8_e5m2"); elem_type_from_name maps a case's type to the enum.
 * Plain C, usable from .c and .cu files. */
#ifndef COMPARE_ELEM_TYPE_H
#define COMPARE_ELEM_TYPE_H

#include <string.h>

typedef enum {
    ELEM_FP32 = 0,
    ELEM_FP16 = 1,
    ELEM_BF16 = 2,
    ELEM_FP8_E4M3 = 3,
    ELEM_FP8_E5M2 = 4,
    ELEM_INVALID = -1
} elem_type;

/* The enum of a type name (src/core/types.c's), ELEM_INVALID for any other. */
static inline elem_type elem_type_from_name(const char *name)
{
    if (!name) return ELEM_INVALID;
    if (strcmp(name, "fp32") == 0) return ELEM_FP32;
    if (strcmp(name, "fp16") == 0) return ELEM_FP16;
    if (strcmp(name, "bf16") == 0) return ELEM_BF16;
    if (strcmp(name, "fp8_e4m3") == 0) return ELEM_FP8_E4M3;
    if (strcmp(name, "fp8_e5m2") == 0) return ELEM_FP8_E5M2;
    return ELEM_INVALID;
}

/* Storage bytes of one element (0 for ELEM_INVALID). */
static inline int elem_type_bytes(elem_type t)
{
    switch (t) {
    case ELEM_FP32: return 4;
    case ELEM_FP16:
    case ELEM_BF16: return 2;
    case ELEM_FP8_E4M3:
    case ELEM_FP8_E5M2: return 1;
    default: return 0;
    }
}

#endif
