/* tests/plugins/compare_plugin_v1.h: compare_plugin.h as ABI version 1 was
 * published (its declarations verbatim, its long comment cut), frozen here so
 * that tests/plugins/abi1_plugin.cu is built exactly as an ABI-1 user built
 * their plugin. compare speaks ABI 2 and must refuse it, saying how to port
 * (tests/test_plugin.c). Never edit the layout below. */
#ifndef COMPARE_PLUGIN_V1_H
#define COMPARE_PLUGIN_V1_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COMPARE_PLUGIN_ABI_VERSION 1
#define COMPARE_PLUGIN_SYMBOL "compare_plugin_get"

typedef int (*compare_sgemm_fn)(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
typedef int (*compare_reduce_fn)(const float *x, long long n, float *out, void *workspace, size_t workspace_bytes,
                                 cudaStream_t stream);
typedef int (*compare_sort_u32_fn)(const uint32_t *in, uint32_t *out, long long n, void *workspace,
                                   size_t workspace_bytes, cudaStream_t stream);
typedef int (*compare_sort_f32_fn)(const float *in, float *out, long long n, void *workspace, size_t workspace_bytes,
                                   cudaStream_t stream);

/* The sizes of a case: m, n, k for sgemm (elems 0); elems for reduce and sort
 * (m = n = k = 0). */
typedef struct {
    long long m, n, k;
    long long elems;
} compare_plugin_case;

typedef struct {
    const char *name;      /* see "Names" above */
    const char *op;        /* "sgemm", "reduce" or "sort" */
    const char *math;      /* sgemm: "fp32" or "tf32"; reduce: "fp32"; sort: "keys" */
    const char *about;     /* one line for --list (may be NULL) */
    /* the launcher(s) of its op: exactly the op's, the others NULL */
    compare_sgemm_fn sgemm;
    compare_reduce_fn reduce;
    compare_sort_u32_fn sort_u32;
    compare_sort_f32_fn sort_f32;
    /* optional (NULL: none / runs every case) */
    size_t (*workspace_bytes)(const compare_plugin_case *c);
    int (*supports)(const compare_plugin_case *c, char *why, size_t why_len);
} compare_plugin_variant;

typedef struct {
    int abi_version;                          /* COMPARE_PLUGIN_ABI_VERSION */
    const char *name;                         /* the plugin's name, for messages */
    int variant_count;                        /* 1 .. 64 */
    const compare_plugin_variant *variants;   /* variant_count rows */
} compare_plugin;

/* Exported by every plugin (extern "C" in C++). */
const compare_plugin *compare_plugin_get(void);
typedef const compare_plugin *(*compare_plugin_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
