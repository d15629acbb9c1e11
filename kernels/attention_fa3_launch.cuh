/* kernels/attention_fa3_launch.cuh: the host side of the rung fa3
 * (kernels/attention_fa3.cu: the idea; attention_fa3.cuh: the kernel), one
 * launcher template over (type, head_dim, K/V tile, consumer warpgroups),
 * shared by the rung's own instances (3 consumer warpgroups at head_dim 64,
 * 2 at 128 and 256) and the candidate family `fa3`
 * (kernels/search/attention_fa3_search.cu), which builds other K/V tiles
 * and warpgroup counts in the same binary. */
#ifndef KERNELS_ATTENTION_FA3_LAUNCH_CUH
#define KERNELS_ATTENTION_FA3_LAUNCH_CUH

#include "attention_fa3.cuh"
#include "gemm_wgmma_tmap.cuh"

/* The BHSD tensor at base (nbh heads of seq rows of d 16-bit elements) as a
 * 3-D tensor map (d, seq, nbh), boxes of 64 elements x box_rows rows x 1
 * head, 128-byte swizzle, zeros outside; 0 or a cudaError_t as int */
static int fa3_map(CUtensorMap *map, CUtensorMapDataType dt, const void *base, long long nbh, long long seq,
                   long long d, int box_rows)
{
    PFN_cuTensorMapEncodeTiled_v12000 enc = sgemm_tma_encoder();
    if (!enc)
        return (int)cudaErrorNotSupported;
    const cuuint64_t dims[3] = {(cuuint64_t)d, (cuuint64_t)seq, (cuuint64_t)nbh};
    const cuuint64_t strides[2] = {(cuuint64_t)d * 2, (cuuint64_t)(seq * d * 2)};
    const cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    const cuuint32_t estr[3] = {1, 1, 1};
    const CUresult r = enc(map, dt, 3, (void *)base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

/* The grid of case a (fp->p set) on a device of `sms` SMs: a CTA per work
 * tile, or, persistent, one per SM (one fits an SM), at most one per work
 * tile. Causal work tiles are unequal (a head's q tiles see 1..qtiles K/V
 * tiles), and the static rounds (fa3_round_block's snake) even them out
 * only with many heads and few q tiles a head; else a CTA per work tile
 * (the same kernel, one round each), whose order the hardware balances as
 * CTAs finish. */
template <int D>
static long long fa3_grid(const fa3_params *fp, const attention_args *a, int sms)
{
    const long long grid = fp->p.qtiles * fp->p.nbh;
    const bool pers =
        FA3_PERS(D) && (!a->causal || (fp->p.nbh >= FA3_PERS_CAUSAL_MIN_BH && fp->p.qtiles <= FA3_PERS_CAUSAL_MAX_QT));
    return pers && sms > 0 && grid > sms ? sms : grid;
}

/* The tail split of case a on a grid of `grid` persistent CTAs (of `sms`)
 * with work tiles of 64 NWG rows and K/V tiles of BKV keys, at most ts
 * chunks a work tile (FA3_TAIL_SPLIT; attention_fa3.cuh, fa3_params): sets
 * fp's split (0: none), tail0, ws and cnt. Only without the causal mask
 * (equal work tiles), with more work tiles than CTAs, a last round at most
 * half full, and a workspace of FA3_TAIL_BYTES (a->workspace, zeroed by
 * the caller before the first launch; NULL or smaller: no split). */
template <int D, int NWG>
static void fa3_tail_plan(fa3_params *fp, const attention_args *a, long long grid, int sms, int bkv, int ts)
{
    fp->split = 0;
    fp->tail0 = 0;
    fp->ws = NULL;
    fp->cnt = NULL;
    if (!FA3_PERS(D) || a->causal || sms <= 0 || grid != sms || !a->workspace ||
        a->workspace_bytes < FA3_TAIL_BYTES(D, NWG, sms))
        return;
    long long tail0;
    const long long split = attn_tail_split(fp->p.qtiles * fp->p.nbh, grid, (a->seq_kv + bkv - 1) / bkv, ts, &tail0);
    if (split < 2)
        return;
    fp->split = (int)split;
    fp->tail0 = (unsigned)tail0;
    fp->ws = (float *)a->workspace;
    fp->cnt = (unsigned *)(fp->ws + (size_t)sms * FA3_TAIL_SLOT(D, NWG));
}

/* The tail split a launch of case a takes (fa3_tail_plan's split: 0, or
 * the chunks a tail work tile) at K/V tiles of bkv keys and at most ts
 * chunks; a test's window into it */
template <int D, int NWG>
static int fa3_tail_split_of(const attention_args *a, int bkv, int ts)
{
    fa3_params fp;
    fp.p = attn_params_of(a, FA3_BQ_W(NWG));
    const int sms = sgemm_tma_sms();
    fa3_tail_plan<D, NWG>(&fp, a, fa3_grid<D>(&fp, a, sms), sms, bkv, ts);
    return fp.split;
}

/* The workspace the tail split may take at case a (FA3_TAIL_BYTES of this
 * device's SMs; 0 where it never splits: the causal mask, head_dim 256, or
 * no more work tiles than SMs) */
template <int D, int NWG>
static size_t fa3_tail_workspace(const attention_args *a, int ts)
{
    const int sms = sgemm_tma_sms();
    const long long qtiles = (a->seq_q + FA3_BQ_W(NWG) - 1) / FA3_BQ_W(NWG);
    if (!FA3_PERS(D) || a->causal || ts < 2 || sms <= 0 || qtiles * a->batch * a->heads <= sms)
        return 0;
    return FA3_TAIL_BYTES(D, NWG, sms);
}

/* The rung at head_dim D with K/V tiles of BKV keys, NWG consumer
 * warpgroups (q tiles of 64 NWG rows), QB Q buffers and at most TS tail
 * chunks a work tile (attention_fa3.cu's pick, FA3_BKV_DC, 2, FA3_QB and
 * FA3_TAIL_SPLIT, or a candidate's, kernels/search/attention_fa3_search.cu):
 * tensor maps (Q's box: 64 NWG rows, at most 256), the shared-memory opt-in
 * once per device, the grid (fa3_grid) and its tail split (fa3_tail_plan), the
 * launch. The caller has checked attention_fa3_supports. */
template <typename T, int D, int BKV, int NWG = 2, int QB = FA3_QB(D, BKV, NWG), int TS = FA3_TAIL_SPLIT,
          int SMX = FA3_SMX_RUNG>
static int attention_fa3_launch(const attention_args *a, cudaStream_t s)
{
    constexpr int SMEM = FA3_SMEM_QB(D, BKV, NWG, QB);
    static_assert(SMEM_SM90_FITS(SMEM, 1), "Q and the K / V ring fit one CTA per SM");
    static_assert(D == 64 || D == 128 || D == 256, "head_dim 64, 128 or 256");
    static_assert(FA3_BQ_W(NWG) <= 256, "Q's TMA box: at most 256 rows");
    static unsigned long long done; /* smem opt-in, a bit per device */
    const CUtensorMapDataType dt =
        (int)fa3_elem<T>::et == (int)ELEM_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    fa3_params fp;
    fp.p = attn_params_of(a, FA3_BQ_W(NWG));
    int rc = fa3_map(&fp.tq, dt, a->q, fp.p.nbh, a->seq_q, D, FA3_BQ_W(NWG));
    if (rc == 0)
        rc = fa3_map(&fp.tk, dt, a->k, fp.p.nbh, a->seq_kv, D, BKV);
    if (rc == 0)
        rc = fa3_map(&fp.tv, dt, a->v, fp.p.nbh, a->seq_kv, D, BKV);
    const void *kern = (const void *)attention_fa3_kernel<T, D, BKV, NWG, QB, SMX>;
    if (rc == 0)
        rc = smem_opt_in(kern, SMEM, &done);
    if (rc != 0)
        return rc;
    void *args[] = {(void *)&fp};
    const int sms = sgemm_tma_sms();
    const long long grid = fa3_grid<D>(&fp, a, sms);
    fa3_tail_plan<D, NWG>(&fp, a, grid, sms, BKV, TS);
    rc = (int)cudaLaunchKernel(kern, dim3((unsigned)grid), dim3(FA3_THREADS_W(NWG)), args,
                               (size_t)SMEM, s);
    return rc != 0 ? rc : (int)cudaGetLastError();
}

#endif
