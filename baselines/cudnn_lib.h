/* baselines/cudnn_lib.h: cuDNN 9 loaded at run time (dlopen + dlsym), never
 * linked, so that compare starts on a machine without libcudnn and its cuDNN
 * rows are SKIP there, with the reason.
 *
 * Build time: CMake (baselines/cudnn.cmake) looks for cudnn.h in
 * COMPARE_CUDNN_ROOT, the CUDA toolkit, then a pip nvidia-cudnn-cu13 / -cu12
 * package; found, it defines COMPARE_HAVE_CUDNN and COMPARE_CUDNN_LIBDIR (the
 * lib folder beside those headers). Without headers the rows compile to a
 * SKIP "cuDNN not found at build time".
 * Run time, the library tried: $COMPARE_CUDNN_LIB alone when set (a path or
 * name; the tests point it at a missing file), else "libcudnn.so.9" (the
 * loader's search: LD_LIBRARY_PATH, the system), then
 * COMPARE_CUDNN_LIBDIR/libcudnn.so.9. None loads: SKIP "cuDNN not found
 * (dlopen: ...)". Loaded once per process (thread-safe). */
#ifndef BASELINES_CUDNN_LIB_H
#define BASELINES_CUDNN_LIB_H

#include <stddef.h>

#ifdef COMPARE_HAVE_CUDNN
#include <cudnn.h>

/* The entry points compare calls, by their cuDNN names without the prefix. */
typedef struct {
    size_t (*GetVersion)(void);
    const char *(*GetErrorString)(cudnnStatus_t status);
    void (*GetLastErrorString)(char *message, size_t max_size); /* NULL when the library lacks it */
    cudnnStatus_t (*Create)(cudnnHandle_t *handle);
    cudnnStatus_t (*Destroy)(cudnnHandle_t handle);
    cudnnStatus_t (*SetStream)(cudnnHandle_t handle, cudaStream_t stream);
    cudnnStatus_t (*CreateTensorDescriptor)(cudnnTensorDescriptor_t *desc);
    cudnnStatus_t (*DestroyTensorDescriptor)(cudnnTensorDescriptor_t desc);
    cudnnStatus_t (*SetTensor4dDescriptor)(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
                                           cudnnDataType_t type, int n, int c, int h, int w);
    cudnnStatus_t (*SoftmaxForward)(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                    const void *alpha, const cudnnTensorDescriptor_t x_desc, const void *x,
                                    const void *beta, const cudnnTensorDescriptor_t y_desc, void *y);
    cudnnStatus_t (*BackendCreateDescriptor)(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *desc);
    cudnnStatus_t (*BackendDestroyDescriptor)(cudnnBackendDescriptor_t desc);
    cudnnStatus_t (*BackendFinalize)(cudnnBackendDescriptor_t desc);
    cudnnStatus_t (*BackendSetAttribute)(cudnnBackendDescriptor_t desc, cudnnBackendAttributeName_t name,
                                         cudnnBackendAttributeType_t type, int64_t count, const void *values);
    cudnnStatus_t (*BackendGetAttribute)(cudnnBackendDescriptor_t const desc, cudnnBackendAttributeName_t name,
                                         cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                                         void *values);
    cudnnStatus_t (*BackendExecute)(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                    cudnnBackendDescriptor_t variant_pack);
    size_t version;        /* GetVersion(): major * 10000 + minor * 100 + patch */
    char path[512];        /* the file loaded */
} cudnn_fns;

/* The table, loaded at the first call; NULL when cuDNN cannot be loaded (no
 * file, a missing symbol, a version other than 9.x), with the SKIP text in
 * why. */
const cudnn_fns *cudnn_lib_fns(char *why, size_t why_len);
#endif

/* 1 when cuDNN is there to call, else 0 with the SKIP text in why: "cuDNN not
 * found at build time (...)" in a build without its headers, "cuDNN not
 * found (dlopen: ...)" when no library loads. */
int cudnn_lib_available(char *why, size_t why_len);

#ifdef COMPARE_HAVE_CUDNN
#include <stdint.h>

/* The graph-API helpers the cuDNN rows share (plain C, no CUDA: the caller
 * names the device). baselines/cudnn_sdpa.c uses them; baselines/cudnn_rows.c
 * still has its own copies (cr_fail, cr_get_handle, cr_engine_index, cr_pick). */

/* Records a failed call in status.h's buffer, "call: CUDNN_STATUS_...
 * (cuDNN's last error) (file:line)"; returns 1 when st failed, else 0. */
int cudnn_lib_fail(const cudnn_fns *f, cudnnStatus_t st, const char *call, const char *file, int line);

/* The handle of device `device` for the calling thread (one per thread and
 * device, made at the first need; a handle of another device the thread held
 * is dropped, not destroyed: that needs its device current). */
cudnnStatus_t cudnn_lib_handle(const cudnn_fns *f, int device, cudnnHandle_t *h);

/* The engine global index of an engine configuration (-1 when cuDNN does
 * not say). */
int64_t cudnn_lib_engine_index(const cudnn_fns *f, cudnnBackendDescriptor_t cfg);

/* A finalized execution plan of a graph: its engine's global index, the
 * heuristic mode that gave it, and the caller's tag (which of its graphs). */
typedef struct {
    cudnnBackendDescriptor_t exec;
    int64_t engine;
    cudnnBackendHeurMode_t mode;
    int tag;
} cudnn_lib_cand;

#define CUDNN_LIB_HEUR_MAX 8 /* configurations cudnn_lib_candidates asks a heuristic for */

/* Appends to cands[*n ..< max] the configurations of heuristic `mode` for
 * graph (its first CUDNN_LIB_HEUR_MAX) whose execution plans finalize on
 * handle h: every one when `all`, else the first; a FALLBACK configuration
 * whose engine heuristic A already gave under the same tag is skipped.
 * Returns success when one was added, else the last failure (recorded in
 * status.h's buffer; "no engine" when the heuristic had none). */
cudnnStatus_t cudnn_lib_candidates(const cudnn_fns *f, cudnnHandle_t h, cudnnBackendDescriptor_t graph,
                                   cudnnBackendHeurMode_t mode, int all, int tag, cudnn_lib_cand *cands, int *n,
                                   int max);
#endif

#endif
