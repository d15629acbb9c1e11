/* src/gpu/variants.c: the variant table and the adapters from a case to each
 * launcher. Each adapter returns a status_t and leaves a message through
 * check.h on error. */
#include "variants.h"

#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "check.h"
#include "verify_kernels.h"
#include "reduce.h"
#include "sgemm.h"
#ifdef COMPARE_HAVE_WGMMA
#include "sgemm_tf32_tma.h"
#include "sgemm_tf32_wgmma.h"
#endif
#include "shim.h"
#include "sort.h"

// ---------------------------------------------------------------------------
// sgemm

#define SGEMM_HAND(fn)                                                   \
    static int v_##fn(const case_ctx *c, cudaStream_t s)                 \
    {                                                                    \
        CK_LAUNCH(fn(c->A, c->B, c->C, c->m, c->n, c->k, s));            \
        return STATUS_OK;                                                \
    }

SGEMM_HAND(sgemm_naive)
SGEMM_HAND(sgemm_tiled16)
SGEMM_HAND(sgemm_tiled32)
SGEMM_HAND(sgemm_regblock)
SGEMM_HAND(sgemm_vec4)
SGEMM_HAND(sgemm_warptile)
SGEMM_HAND(sgemm_pipelined)
SGEMM_HAND(sgemm_tuned)
SGEMM_HAND(sgemm_tf32_mma)
#ifdef COMPARE_HAVE_WGMMA
SGEMM_HAND(sgemm_tf32_wgmma)
SGEMM_HAND(sgemm_tf32_tma)
#endif

static int v_cublas_fp32(const case_ctx *c, cudaStream_t s)
{
    (void)s; /* the handle is bound to the run's stream */
    return blas_sgemm(c->dev->blas, c->A, c->B, c->C, c->m, c->n, c->k, 0);
}

static int v_cublas_tf32(const case_ctx *c, cudaStream_t s)
{
    (void)s;
    return blas_sgemm(c->dev->blas, c->A, c->B, c->C, c->m, c->n, c->k, 1);
}

/* test-only: an illegal address, to prove faults are reported per variant */
static int v_test_fault(const case_ctx *c, cudaStream_t s)
{
    CK_LAUNCH(gpucheck_fault(c->C, s));
    CK_CUDA(cudaStreamSynchronize(s));
    return STATUS_OK;
}

/* test-only: a wrong result (the naive kernel over k - 1 terms) */
static int v_test_wrong(const case_ctx *c, cudaStream_t s)
{
    CK_LAUNCH(sgemm_naive(c->A, c->B, c->C, c->m, c->n, c->k - 1, s));
    return STATUS_OK;
}

// ---------------------------------------------------------------------------
// reduce

#define REDUCE_HAND(fn)                                                                  \
    static int v_##fn(const case_ctx *c, cudaStream_t s)                                 \
    {                                                                                    \
        CK_LAUNCH(fn(c->x, c->elems, c->sum_dev, c->scratch, c->scratch_bytes, s));      \
        return STATUS_OK;                                                                \
    }

REDUCE_HAND(reduce_interleaved)
REDUCE_HAND(reduce_sequential)
REDUCE_HAND(reduce_shuffle)
REDUCE_HAND(reduce_vec4)

static int v_shim_error(const char *fn, const char *msg)
{
    status_set_message("%s: %s", fn, msg);
    return STATUS_ERROR;
}

static int v_thrust_reduce(const case_ctx *c, cudaStream_t s)
{
    char msg[400];
    if (shim_thrust_reduce_f32(c->x, c->elems, c->sum_host, s, msg, sizeof msg))
        return v_shim_error("shim_thrust_reduce_f32", msg);
    *c->sum_on_host = 1;
    return STATUS_OK;
}

static int v_cub_reduce(const case_ctx *c, cudaStream_t s)
{
    char msg[400];
    if (shim_cub_reduce_f32(c->x, c->elems, c->sum_dev, c->lib_temp, c->lib_temp_bytes, s, msg, sizeof msg))
        return v_shim_error("shim_cub_reduce_f32", msg);
    return STATUS_OK;
}

// ---------------------------------------------------------------------------
// sort

static int v_radix(const case_ctx *c, cudaStream_t s)
{
    if (c->keys_are_float)
        CK_LAUNCH(sort_radix_f32((const float *)c->keys_in, (float *)c->keys_out, c->elems, c->scratch,
                                 c->scratch_bytes, s));
    else
        CK_LAUNCH(sort_radix_u32((const uint32_t *)c->keys_in, (uint32_t *)c->keys_out, c->elems, c->scratch,
                                 c->scratch_bytes, s));
    return STATUS_OK;
}

/* thrust::sort sorts in place: the unsorted keys are copied into the output
 * buffer before each run, untimed (a user's data is already in place). */
static int v_thrust_sort_prepare(const case_ctx *c, cudaStream_t s)
{
    CK_CUDA(cudaMemcpyAsync(c->keys_out, c->keys_in, (size_t)c->elems * 4, cudaMemcpyDeviceToDevice, s));
    return STATUS_OK;
}

static int v_thrust_sort(const case_ctx *c, cudaStream_t s)
{
    char msg[400];
    int rc = c->keys_are_float ? shim_thrust_sort_f32((float *)c->keys_out, c->elems, s, msg, sizeof msg)
                               : shim_thrust_sort_u32((uint32_t *)c->keys_out, c->elems, s, msg, sizeof msg);
    return rc ? v_shim_error("shim_thrust_sort", msg) : STATUS_OK;
}

static int v_cub_sort(const case_ctx *c, cudaStream_t s)
{
    char msg[400];
    int rc = c->keys_are_float
                 ? shim_cub_sort_f32((const float *)c->keys_in, (float *)c->keys_out, c->elems, c->lib_temp,
                                     c->lib_temp_bytes, s, msg, sizeof msg)
                 : shim_cub_sort_u32((const uint32_t *)c->keys_in, (uint32_t *)c->keys_out, c->elems,
                                     c->lib_temp, c->lib_temp_bytes, s, msg, sizeof msg);
    return rc ? v_shim_error("shim_cub_sort", msg) : STATUS_OK;
}

// ---------------------------------------------------------------------------
// the table

const variant variants_table[] = {
    /* op, name, lib, math, ref, run, prepare, host_sync, test_only, about */
    {"sgemm", "cublas_fp32", 1, "fp32", NULL, v_cublas_fp32, NULL, 0, 0, "cuBLAS SGEMM, CUBLAS_DEFAULT_MATH (FP32 cores)"},
    {"sgemm", "cublas_tf32", 1, "tf32", NULL, v_cublas_tf32, NULL, 0, 0, "cuBLAS SGEMM, CUBLAS_TF32_TENSOR_OP_MATH"},
    {"sgemm", "naive", 0, "fp32", "cublas_fp32", v_sgemm_naive, NULL, 0, 0, "one thread per C element, 16x16 blocks"},
    {"sgemm", "tiled16", 0, "fp32", "cublas_fp32", v_sgemm_tiled16, NULL, 0, 0, "16x16 shared-memory tiles"},
    {"sgemm", "tiled32", 0, "fp32", "cublas_fp32", v_sgemm_tiled32, NULL, 0, 0, "32x32 shared-memory tiles"},
    {"sgemm", "regblock", 0, "fp32", "cublas_fp32", v_sgemm_regblock, NULL, 0, 0, "128x128 block tile, 8x8 per thread"},
    {"sgemm", "vectorized", 0, "fp32", "cublas_fp32", v_sgemm_vec4, NULL, 0, 0, "+ float4 loads, A tile transposed, no bank conflicts"},
    {"sgemm", "warptile", 0, "fp32", "cublas_fp32", v_sgemm_warptile, NULL, 0, 0, "+ block/warp/thread tiling (64x32 warps, 2x2 of 4x4)"},
    {"sgemm", "pipelined", 0, "fp32", "cublas_fp32", v_sgemm_pipelined, NULL, 0, 0, "+ 3-stage cp.async pipeline"},
    {"sgemm", "tuned", 0, "fp32", "cublas_fp32", v_sgemm_tuned, NULL, 0, 0, "copies spread over the k-steps, barrier mid-slab; shape picked by compare-search"},
    {"sgemm", "tf32_mma", 0, "tf32", "cublas_tf32", v_sgemm_tf32_mma, NULL, 0, 0, "TF32 tensor cores, mma.sync m16n8k8, cp.async pipeline, truncated operands"},
#ifdef COMPARE_HAVE_WGMMA
    {"sgemm", "tf32_wgmma", 0, "tf32", "cublas_tf32", v_sgemm_tf32_wgmma, NULL, 0, 0, "TF32 warpgroup MMA (wgmma, sm_90a), C^T = B^T A^T"},
    {"sgemm", "tf32_tma", 0, "tf32", "cublas_tf32", v_sgemm_tf32_tma, NULL, 0, 0, "tf32_wgmma fed by TMA through an mbarrier ring, no block barrier in the loop"},
#endif
    {"sgemm", "test_fault", 0, "fp32", "cublas_fp32", v_test_fault, NULL, 0, 1, "test only: illegal address"},
    {"sgemm", "test_wrong", 0, "fp32", "cublas_fp32", v_test_wrong, NULL, 0, 1, "test only: wrong result"},
    {"reduce", "thrust", 1, "fp32", NULL, v_thrust_reduce, NULL, 1, 0, "thrust::reduce as a user calls it (temp alloc, result to host: host costs timed)"},
    {"reduce", "cub", 1, "fp32", NULL, v_cub_reduce, NULL, 0, 0, "cub::DeviceReduce::Sum, temp storage preallocated"},
    {"reduce", "interleaved", 0, "fp32", "thrust", v_reduce_interleaved, NULL, 0, 0, "tree, interleaved addressing (divergent)"},
    {"reduce", "sequential", 0, "fp32", "thrust", v_reduce_sequential, NULL, 0, 0, "tree, sequential addressing"},
    {"reduce", "shuffle", 0, "fp32", "thrust", v_reduce_shuffle, NULL, 0, 0, "warp-shuffle tree"},
    {"reduce", "vec4", 0, "fp32", "thrust", v_reduce_vec4, NULL, 0, 0, "float4 loads, grid sized to the GPU, one launch"},
    {"sort", "thrust", 1, "keys", NULL, v_thrust_sort, v_thrust_sort_prepare, 1, 0, "thrust::sort in place, as a user calls it (host costs timed)"},
    {"sort", "cub", 1, "keys", NULL, v_cub_sort, NULL, 0, 0, "cub::DeviceRadixSort::SortKeys"},
    {"sort", "radix", 0, "keys", "thrust", v_radix, NULL, 0, 0, "LSD radix sort, 8-bit digits"},
};
const int variants_count = (int)(sizeof variants_table / sizeof variants_table[0]);

int variants_visible(int i)
{
    static int test_rows = -1;
    if (test_rows < 0) {
        const char *e = getenv("COMPARE_TEST_VARIANTS");
        test_rows = e && strcmp(e, "1") == 0;
    }
    return !variants_table[i].test_only || test_rows;
}

int variants_find(const char *op, const char *name)
{
    for (int i = 0; i < variants_count; i++)
        if (strcmp(variants_table[i].op, op) == 0 && strcmp(variants_table[i].name, name) == 0) return i;
    return -1;
}

int variants_find_name(const char *name)
{
    for (int i = 0; i < variants_count; i++)
        if (strcmp(variants_table[i].name, name) == 0) return i;
    return -1;
}

const char *variants_op_ref(const char *op)
{
    if (strcmp(op, "sgemm") == 0) return "cublas_fp32";
    return "thrust";
}

const char *variants_op_best(const char *op)
{
    if (strcmp(op, "sgemm") == 0) return "cublas_tf32";
    return "cub";
}

size_t variants_scratch_bytes(const char *op, long long elems)
{
    if (strcmp(op, "reduce") == 0) return reduce_scratch_bytes(elems);
    if (strcmp(op, "sort") == 0) return sort_radix_scratch_bytes(elems);
    return 0;
}
