/* compare_plugin.h: put your own kernel beside compare's, with no edit of ours.
 *
 * A plugin is a shared library that exports one function,
 *
 *     const compare_plugin *compare_plugin_get(void);
 *
 * returning a static table of variants. `compare --plugin ./libmine.so` loads
 * it at start-up (before any GPU work); its variants then join the built-in
 * ones: --list shows them, --variants selects them, and each is verified
 * against the same reference, timed by the same harness, reported as a
 * percent of the library and written to the CSV (column `source`: the
 * plugin's file name) and the plots exactly like ours.
 *
 * Layout and contract of the launchers (the same as compare's own kernels):
 *  - sgemm:  C = A * B in FP32 (math "fp32"; "tf32" if your kernel uses TF32
 *            tensor cores: the tolerance is then TF32's), every matrix
 *            ROW-MAJOR and densely packed: A is m x k (A[i*k + p]), B is k x n
 *            (B[p*n + j]), C is m x n (C[i*n + j]). C's previous contents are
 *            garbage (compare poisons it with NaN before the checked run):
 *            write every element. Any m, n, k >= 1 may be asked; decline the
 *            shapes you do not handle through `supports`.
 *  - reduce: *out = sum of x[0..n) in float, out one float in device memory;
 *            x is 4-byte aligned (not necessarily 16).
 *  - sort:   out[0..n) = in[0..n) sorted ascending (u32; f32 by IEEE order,
 *            -0.0 before +0.0), in must not be modified; both launchers given.
 *  - Every pointer is device memory. Launch on `stream` only, never
 *    synchronise the device, never allocate in the call if you can size a
 *    workspace instead (it would be timed).
 *  - workspace: if `workspace_bytes` is set, compare allocates that many bytes
 *    of device memory for the case (outside the timed region), zeroes them
 *    once, and passes them to every call of the case (reduce and sort
 *    launchers receive them as arguments; sgemm launchers do not take one).
 *  - Return 0 on success, else a cudaError_t value (e.g. the result of
 *    cudaGetLastError() after your launch): the row becomes ERROR with that
 *    error's name, and the run goes on. A wrong result is a FAIL row.
 *  - supports (optional): return 1 to run the case, 0 to decline it with a
 *    reason in why[0..why_len) (the row becomes SKIP with that reason).
 *
 * Names: 1 to 31 characters of [a-z0-9_], starting with a letter, unique
 * among all variants of the op (built-in ones included).
 *
 * Build against the installed package (see examples/plugin/):
 *     find_package(compare REQUIRED)
 *     target_link_libraries(mine PRIVATE compare::plugin)
 * which brings this header and nothing else to link. */
#ifndef COMPARE_PLUGIN_H
#define COMPARE_PLUGIN_H

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
