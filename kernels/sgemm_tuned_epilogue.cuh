/* kernels/sgemm_tuned_epilogue.cuh: writing a thread tile of tile, st and sk
 * into C: straight from registers (tile), or staged through shared memory
 * (st, sk), stored or added by reductions (sk's partial tiles).
 *
 * Idea: staged, each warp stores 512 contiguous bytes per instruction
 * instead of 16-byte pieces of many rows, which matters when every block
 * stores at the same time (one wave); it also frees ptxas to pick registers
 * with fewer FFMA operand bank conflicts in the main loop. Reductions are
 * FP32 atomic adds in L2 (RED, no value returned): subnormal sums flush to
 * zero. */
#ifndef KERNELS_SGEMM_TUNED_EPILOGUE_CUH
#define KERNELS_SGEMM_TUNED_EPILOGUE_CUH

#include "sgemm_tuned_common.cuh"
#include "sgemm_tuned_edge.cuh"

/* Stores the thread tile acc into C from registers as float4, skipping rows
 * past m and columns past n. */
template <int TM, int TN, int LM, int LN, int VEC>
static __device__ __forceinline__ void sgemm_tuned_store_direct(float *__restrict__ C, int m, int n,
                                                                int bm, int bn, int tm0, int tn0,
                                                                float (&acc)[TM][TN])
{
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int gr = bm + tm0 + (i / 4) * (LM * 4) + i % 4;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int j4 = 0; j4 < TN / 4; ++j4)
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, VEC == SGEMM_TUNED_VEC_16B,
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],
                                     acc[i][j4 * 4 + 3]));
    }
}

/* C[row, col .. col+3] += v for the elements before `lim` (nothing when
 * !row_ok), as reductions in L2 (RED: no value comes back): vec, one
 * red.global.add.v4.f32 (row 16-byte aligned, lim % 4 == 0; sm_90 and later); else one
 * per element. FP32 atomic adds round to nearest and flush subnormals. */
static __device__ __forceinline__ void sgemm_tuned_red4(float *row, int row_ok, int col, int lim,
                                                        int vec, float4 v)
{
    if (!row_ok)
        return;
#if __CUDA_ARCH__ >= 900
    if (vec) {
        if (col < lim)
            asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(row + col), "f"(v.x),
                         "f"(v.y), "f"(v.z), "f"(v.w)
                         : "memory");
    } else
#else
    (void)vec; /* the vector RED is sm_90's: PTX for an older target (compute_80) adds one element at a time */
#endif
    {
        if (col + 0 < lim) atomicAdd(row + col + 0, v.x);
        if (col + 1 < lim) atomicAdd(row + col + 1, v.y);
        if (col + 2 < lim) atomicAdd(row + col + 2, v.z);
        if (col + 3 < lim) atomicAdd(row + col + 3, v.w);
    }
}

/* Columns c .. c+3 of a staged quad from the float4 p read at c, whose
 * element x holds column c + (x ^ s) (sgemm_tuned_store_staged's swizzle). */
static __device__ __forceinline__ float4 sgemm_tuned_unswizzle4(float4 p, int s)
{
    if (s & 1)
        p = make_float4(p.y, p.x, p.w, p.z);
    if (s & 2)
        p = make_float4(p.z, p.w, p.x, p.y);
    return p;
}

/* Writes the thread tile acc into C through shared memory (RED 0: C = acc;
 * 1: C += acc by reductions), skipping rows past m and columns past n. The
 * stages must be free: every copy is drained and a barrier passed first.
 * One thread row i at a time, the block's BM/TM rows of that i are staged
 * ([BM/TM][BN+4], two buffers taken in turn, so one barrier per i), then
 * read back as float4 along the rows, so each warp stores (or reduces) 512
 * contiguous bytes. A thread writes its row's elements one by one, column
 * c at c ^ (lane row & 3): the 32 stores of one instruction then hit 32
 * banks (without the swizzle they share 8: 4-way conflicts); the reader
 * undoes it with sgemm_tuned_unswizzle4. Leaves reads of the staging
 * buffers in flight: a barrier comes before the stages are written again.
 * Why not sgemm_tuned_store_direct: with one wave every block stores at the
 * same time and the float4 stores of 16-byte pieces of many rows lost to it
 * in the search (scalar stores straight to C are four times the L2 write
 * requests). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int RED, int VEC>
static __device__ __forceinline__ void sgemm_tuned_store_staged(float *__restrict__ C, int m, int n,
                                                                int bm, int bn, int tid, int warp,
                                                                int lane, int tn0,
                                                                float (&acc)[TM][TN])
{
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int WARPS_N = BN / WN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int C_ROWS = BM / TM;                       /* staged rows: one per (warp row, lane row) */
    constexpr int C_LD = BN + 4;                          /* staged row stride, 16-byte aligned */
    constexpr int C_BUF = C_ROWS * C_LD;                  /* floats per staging buffer */
    constexpr int C_F4 = C_ROWS * (BN / 4) / THREADS;     /* float4 read back per thread */
    static_assert(C_ROWS * (BN / 4) % THREADS == 0, "float4 of a staged row set per thread");
    static_assert(2 * C_BUF <= ST * sgemm_tuned_stage_floats(BM, BN, BK),
                  "two staging buffers fit in the stages");
    float *smem = (float *)sgemm_tuned_smem;
    const int c_rl = (warp / WARPS_N) * LM + lane / LN; /* this thread's staged row */
    const int c_sw = (lane / LN) & 3;                   /* its column swizzle */
    cp_async_wait(0);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float *c_buf = smem + (i % 2) * C_BUF;
#pragma unroll
        for (int j = 0; j < TN; ++j)
            c_buf[c_rl * C_LD + tn0 + (j / 4) * (LN * 4) + ((j % 4) ^ c_sw)] = acc[i][j];
        __syncthreads(); /* also: buffer (i+1) % 2 was last read before this barrier */
        if constexpr (VEC == SGEMM_TUNED_VEC_PADB) {
            /* rows not 16-byte aligned (VEC 3: B was padded, C cannot be): a
             * warp takes a staged row at a time, its lanes on consecutive
             * columns (lane + 32 j: each store 128 contiguous bytes), the
             * row's addresses computed once (column c of staged row r sits at
             * c ^ its swizzle, inside c's quad: the reads hit 32 banks) */
            constexpr int WARPS = THREADS / 32;
            static_assert(C_ROWS % WARPS == 0 && BN % 32 == 0, "staged rows per warp, columns per lane");
#pragma unroll 1
            for (int r = warp; r < C_ROWS; r += WARPS) {
                const int gr = bm + (r / LM) * WM + (r % LM) * 4 + (i / 4) * (LM * 4) + i % 4;
                const float *s_row = c_buf + r * C_LD;
                const int sw = (r % LM) & 3;
                float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
                for (int j = 0; j < BN / 32; ++j)
                    sgemm_tuned_put1(c_row, gr < m, bn + lane + 32 * j, n, RED, s_row[(lane + 32 * j) ^ sw]);
            }
        } else if constexpr (VEC == SGEMM_TUNED_VEC_LANES) {
            /* rows not 16-byte aligned: one element a lane, consecutive lanes on
             * consecutive columns (column c of staged row r sits at c ^ its swizzle;
             * the xor stays inside c's quad, so a warp's reads still hit 32 banks) */
            static_assert((C_ROWS * BN) % THREADS == 0 && BN % 32 == 0, "staged elements per thread");
            /* not unrolled: unrolled, the addresses of every element were hoisted
             * beside the live accumulators of the rows still to come (spills) */
#pragma unroll 1
            for (int q = 0; q < C_ROWS * BN / THREADS; ++q) {
                const int e = q * THREADS + tid;
                const int r = e / BN, c = e % BN;
                const int gr = bm + (r / LM) * WM + (r % LM) * 4 + (i / 4) * (LM * 4) + i % 4;
                sgemm_tuned_put1(C + (size_t)(gr < m ? gr : 0) * n, gr < m, bn + c, n, RED,
                                 c_buf[r * C_LD + (c ^ ((r % LM) & 3))]);
            }
        } else {
#pragma unroll
            for (int q = 0; q < C_F4; ++q) {
                const int e = q * THREADS + tid;
                const int r = e / (BN / 4), c = e % (BN / 4) * 4;
                const int gr = bm + (r / LM) * WM + (r % LM) * 4 + (i / 4) * (LM * 4) + i % 4;
                float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
                const float4 v = sgemm_tuned_unswizzle4(*(const float4 *)&c_buf[r * C_LD + c], (r % LM) & 3);
                if (RED)
                    sgemm_tuned_red4(c_row, gr < m, bn + c, n, VEC == SGEMM_TUNED_VEC_16B, v);
                else
                    sgemm_store4(c_row, gr < m, bn + c, n, VEC == SGEMM_TUNED_VEC_16B, v);
            }
        }
    }
}

#endif
