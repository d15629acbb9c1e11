/* kernels/gemm_wgmma_tmap.cuh: the host side both Hopper TMA GEMMs share,
 * the TF32 one (sgemm_tf32_tma_launch.cuh) and the fp16 / bf16 / fp8 one
 * (gemm_wgmma.cu): the tensor-map encoder, a 2-D tiled 128-byte-swizzle
 * tensor map of any element type, the SM count, the launch configuration
 * of a cluster launch and the count of resident clusters of a persistent
 * kernel.
 *
 * Idea: the tensor maps are encoded on the host for each call
 * (cuTensorMapEncodeTiled, found through cudaGetDriverEntryPointByVersion:
 * no -lcuda) and travel as __grid_constant__ kernel parameters; what the
 * element type changes is the map's data type and its bytes per element
 * (the row stride in bytes and the box, whose inner extent is 128 bytes for
 * the 128-byte swizzle). A persistent grid is as many clusters as are
 * resident at once, asked once per device; the SM count feeds the pick
 * rules. */
#ifndef KERNELS_GEMM_WGMMA_TMAP_CUH
#define KERNELS_GEMM_WGMMA_TMAP_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

/* cuTensorMapEncodeTiled from the driver, through the runtime (no -lcuda);
 * NULL when the driver has none */
static PFN_cuTensorMapEncodeTiled_v12000 sgemm_tma_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    static int tried;
    if (!tried) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        tried = 1;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}

/* Row-major rows x cols matrix of `esize`-byte elements of data type `dt`
 * at `base`, rows `ld` elements apart (ld >= cols: columns cols .. ld-1 are
 * outside the map, read as zeros like everything past its edges), boxes of
 * box_cols x box_rows, 128-byte swizzle, zero fill outside, L2 promotion
 * `l2`; 0, cudaErrorNotSupported without an encoder, or
 * cudaErrorInvalidValue when the driver refuses the map (a row stride not a
 * multiple of 16 bytes, a base not 16-byte aligned, ...). */
static int gemm_tma_map_2d_ld(CUtensorMap *map, CUtensorMapDataType dt, int esize, const void *base,
                              long long rows, long long cols, long long ld, int box_cols, int box_rows,
                              CUtensorMapL2promotion l2)
{
    PFN_cuTensorMapEncodeTiled_v12000 enc = sgemm_tma_encoder();
    if (!enc)
        return (int)cudaErrorNotSupported; /* driver without TMA */
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)ld * (cuuint64_t)esize};
    const cuuint32_t boxd[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t estr[2] = {1, 1};
    CUresult r = enc(map, dt, 2, (void *)base, dims, strides, boxd, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                     CU_TENSOR_MAP_SWIZZLE_128B, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

/* The same with rows cols elements apart (a dense matrix). */
static int gemm_tma_map_2d(CUtensorMap *map, CUtensorMapDataType dt, int esize, const void *base,
                           long long rows, long long cols, int box_cols, int box_rows,
                           CUtensorMapL2promotion l2)
{
    return gemm_tma_map_2d_ld(map, dt, esize, base, rows, cols, cols, box_cols, box_rows, l2);
}

/* The SM count of the current device, 0 when it cannot be read (a pick
 * rule then takes its large-shape choice). */
static int sgemm_tma_sms(void)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return sms;
}

/* The launch of a persistent kernel in clusters of CL CTAs (the cluster
 * dimension set at the launch, not compiled in; attr: its storage), of
 * `threads` threads and `smem` bytes of dynamic shared memory, one cluster
 * for now (the caller sets gridDim once it knows how many are resident). */
static void gemm_tma_cluster_cfg(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int CL, int threads, int smem,
                                 cudaStream_t stream)
{
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)CL;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3((unsigned)CL, 1, 1);
    cfg->blockDim = dim3((unsigned)threads, 1, 1);
    cfg->dynamicSmemBytes = (size_t)smem;
    cfg->stream = stream;
    cfg->attrs = attr;
    cfg->numAttrs = CL > 1 ? 1 : 0;
}

/* Clusters of CL CTAs of `kern` that can be resident at once on the current
 * device (cfg: the launch, with its cluster attribute for CL > 1), queried
 * once per device into cache[dev] (0..63; 0 = not yet queried); 0 or an
 * error. */
static int gemm_tma_cluster_slots(const void *kern, const cudaLaunchConfig_t *cfg, int CL, int *cache,
                                  int *slots)
{
    int dev = 0, v = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    v = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        if (CL > 1) {
            e = cudaOccupancyMaxActiveClusters(&v, kern, cfg);
        } else {
            int sms = 0, per_sm = 0;
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
            if (e == cudaSuccess)
                e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, (int)cfg->blockDim.x,
                                                                  cfg->dynamicSmemBytes);
            v = sms * per_sm;
        }
        if (e != cudaSuccess)
            return (int)e;
        if (v < 1)
            return (int)cudaErrorInvalidConfiguration; /* not even one cluster fits */
        if (dev < 64)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    *slots = v;
    return 0;
}

#endif
