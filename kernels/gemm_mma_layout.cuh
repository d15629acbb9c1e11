/* kernels/gemm_mma_layout.cuh: the index arithmetic of the mma.sync GEMM
 * rungs' shared-memory tiles and fragments (kernels/gemm_mma_core.cuh), in
 * plain C so that a CPU test (tests/test_gemm_mma_layout.c) walks the very
 * functions the kernels use: it simulates ldmatrix and the MMA fragment
 * tables of the PTX ISA over them, in fp16 and fp8, and checks every shared
 * address for 16-byte alignment, bounds and bank conflicts.
 *
 * Everything here counts in 16-byte chunks: a chunk is 8 fp16 / bf16
 * elements or 16 fp8 elements, and the one place that turns a chunk into an
 * element offset is gemm_mma_elem_offset, called by gemm_mma_at
 * (gemm_mma_core.cuh) with the element size of the pointer's type. (The fp8
 * path once faulted because an element offset of "chunk x 8" was applied to
 * 1-byte elements: half of its chunks began 8 bytes into a 16-byte unit.)
 *
 *  - gemm_mma_swz_chunk: the swizzled chunk of (row r, chunk column c) in a
 *    tile of rows of cpr chunks: the chunk column XORed with bits of the row
 *    so that the 8 rows one ldmatrix phase reads (one chunk column) fall in 8
 *    different 16-byte bank groups;
 *  - gemm_mma_elem_offset: that chunk's offset in elements of a given size;
 *  - gemm_mma_lane_a / gemm_mma_lane_b: the row and chunk column (from the
 *    fragment's origin) whose address lane `lane` gives ldmatrix.x4 for an A
 *    fragment (16 rows x 2 chunks) and for two K-major B fragments (16 n
 *    rows x 2 chunks): matrix q = lane / 8 is register q of every thread, in
 *    the order both mma.sync shapes (m16n8k16 f16 / bf16, m16n8k32 e4m3)
 *    number their A and B registers;
 *  - gemm_mma_lane_c: the row and column of accumulator pair h (registers
 *    2h, 2h + 1) of lane `lane` in a 16 x 8 C fragment (the same in both
 *    shapes). */
#ifndef KERNELS_GEMM_MMA_LAYOUT_CUH
#define KERNELS_GEMM_MMA_LAYOUT_CUH

#ifdef __CUDACC__
#define GEMM_MMA_HD __host__ __device__ __forceinline__
#else
#define GEMM_MMA_HD inline
#endif

/* chunk index (from the tile's start) of chunk column c of row r, rows of
 * cpr chunks (4, or 8 and more). With rows of 8+ chunks (128 bytes or more)
 * the chunk's low 3 bits XOR r & 7; with rows of 4 chunks (64 bytes, two
 * rows a 128-byte line) r & 1 already picks the line half and (r >> 1) & 3
 * spreads the 4 pairs. */
static GEMM_MMA_HD int gemm_mma_swz_chunk(int cpr, int r, int c)
{
    const int x = cpr >= 8 ? (r & 7) : ((r >> 1) & 3);
    return r * cpr + (c ^ x);
}

/* the element offset of that chunk for elements of esize bytes (1 or 2):
 * 16 / esize elements a chunk, so that every chunk starts on a 16-byte
 * boundary (the unit of cp.async 16, st.shared.v4 and ldmatrix's rows) */
static GEMM_MMA_HD int gemm_mma_elem_offset(int esize, int cpr, int r, int c)
{
    return gemm_mma_swz_chunk(cpr, r, c) * (16 / esize);
}

/* A fragment: lanes 0-15 give rows 0-15 at chunk 0 (k bytes 0-15), lanes
 * 16-31 the same rows at chunk 1 (k bytes 16-31): registers 0-3 = (rows
 * 0-7, chunk 0), (rows 8-15, chunk 0), (rows 0-7, chunk 1), (rows 8-15,
 * chunk 1) */
static GEMM_MMA_HD void gemm_mma_lane_a(int lane, int *row, int *chunk)
{
    *row = lane & 15;
    *chunk = lane >> 4;
}

/* Two B fragments (n 0-7 and n 8-15) of a K-major B (n x k rows): matrix
 * q = lane / 8 is (n 0-7, chunk 0), (n 0-7, chunk 1), (n 8-15, chunk 0),
 * (n 8-15, chunk 1): registers 0-1 the first fragment, 2-3 the second */
static GEMM_MMA_HD void gemm_mma_lane_b(int lane, int *row, int *chunk)
{
    const int q = lane >> 3;
    *row = (q >> 1) * 8 + (lane & 7);
    *chunk = q & 1;
}

/* accumulators 2h and 2h + 1 of lane `lane`: row lane / 4 + 8h, columns
 * 2 (lane % 4) and the next */
static GEMM_MMA_HD void gemm_mma_lane_c(int lane, int h, int *row, int *col)
{
    *row = (lane >> 2) + h * 8;
    *col = (lane & 3) * 2;
}

#endif
