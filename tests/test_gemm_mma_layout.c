/* tests/test_gemm_mma_layout.c: the index arithmetic of the mma.sync GEMM
 * rungs (kernels/gemm_mma_layout.cuh, the very functions the kernels call),
 * checked on the CPU by simulating what the GPU does with it:
 *  - the swizzle maps a tile's (row, chunk) one to one onto its chunks, and
 *    every chunk starts on a 16-byte boundary in fp16 / bf16 (2-byte) and
 *    fp8 (1-byte) elements alike: the fp8 misaligned-address fault was an
 *    element offset of "chunk x 8" on 1-byte elements (planted below: it
 *    must fail the same check);
 *  - no bank conflicts: the 8 rows of each ldmatrix phase and the 8 chunks
 *    of each st.shared.v4 phase of a tile copy fall in 8 different 16-byte
 *    bank groups;
 *  - ldmatrix.x4 simulated over a swizzled tile (thread t of matrix q gets
 *    bytes 4 (t % 4).. of the row whose address lane 8 q + t / 4 gives), its
 *    registers read back through the PTX ISA's fragment tables of
 *    mma.sync m16n8k16 (f16 / bf16: A 4 registers of 2 elements, B 2) and
 *    m16n8k32 (e4m3: A 4 registers of 4 elements, B 2), written here
 *    independently of the kernel: every fragment element must be the matrix
 *    element the MMA expects, at every k step of a 64-byte slab and every
 *    fragment of the warp tiles of both rungs;
 *  - the accumulator positions the epilogue stores (gemm_mma_lane_c) are
 *    the C fragment's, with pairs at even columns;
 *  - end to end: A x B over the simulated fragments equals the direct
 *    product, for a 16 x 16 block with k of one slab. */
#include <string.h>

#include "../kernels/gemm_mma_layout.cuh"
#include "testlib.h"

#define SLAB_BYTES 64 /* the rungs' k slab */
#define TILE_ROWS 128 /* BM = BN of both rungs */

typedef int (*offset_fn)(int esize, int cpr, int r, int c);

/* the fault's formula: an element offset of 8 a chunk whatever the element size */
static int planted_offset(int esize, int cpr, int r, int c)
{
    (void)esize;
    return gemm_mma_swz_chunk(cpr, r, c) * 8;
}

static int byte_of(offset_fn off, int esize, int cpr, int r, int c) { return off(esize, cpr, r, c) * esize; }

/* failures of: one to one, inside the tile, 16-byte aligned, for rows x cpr */
static int layout_faults(offset_fn off, int esize, int rows, int cpr)
{
    static unsigned char seen[TILE_ROWS * 16];
    int faults = 0;
    memset(seen, 0, sizeof seen);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cpr; c++) {
            const int b = byte_of(off, esize, cpr, r, c);
            if (b % 16 != 0 || b < 0 || b >= rows * cpr * 16) {
                faults++;
                continue;
            }
            faults += seen[b / 16]++ != 0;
        }
    return faults;
}

static void check_layout(void)
{
    static const int cprs[] = {4, 8, 16};
    for (int esize = 1; esize <= 2; esize++)
        for (size_t i = 0; i < sizeof cprs / sizeof cprs[0]; i++) {
            const int faults = layout_faults(gemm_mma_elem_offset, esize, TILE_ROWS, cprs[i]);
            CHECK(faults == 0, "esize %d cpr %d: %d chunks misaligned, outside or shared", esize, cprs[i], faults);
        }
    /* the planted fault: right for 2-byte elements, wrong for fp8 */
    CHECK(layout_faults(planted_offset, 2, TILE_ROWS, 4) == 0, "planted offset in fp16: fine");
    CHECK(layout_faults(planted_offset, 1, TILE_ROWS, 4) > 0, "planted offset in fp8: caught");
}

/* 1 when the 8 chunks (byte addresses) fall in 8 different 16-byte bank groups */
static int conflict_free(const int bytes[8])
{
    int groups = 0;
    for (int i = 0; i < 8; i++) groups |= 1 << ((bytes[i] / 16) % 8);
    return groups == 0xff;
}

static void check_banks(void)
{
    static const int cprs[] = {4, 8, 16};
    for (int esize = 1; esize <= 2; esize++)
        for (size_t i = 0; i < sizeof cprs / sizeof cprs[0]; i++) {
            const int cpr = cprs[i];
            int bad_ld = 0, bad_st = 0;
            /* ldmatrix: a phase is 8 consecutive rows from a multiple of 8, one chunk column */
            for (int r0 = 0; r0 < TILE_ROWS; r0 += 8)
                for (int c = 0; c < cpr; c++) {
                    int b[8];
                    for (int j = 0; j < 8; j++) b[j] = byte_of(gemm_mma_elem_offset, esize, cpr, r0 + j, c);
                    bad_ld += !conflict_free(b);
                }
            /* tile copies: thread i stores chunk i (row i / cpr, column i % cpr), 8 threads a phase */
            for (int i0 = 0; i0 < TILE_ROWS * cpr; i0 += 8) {
                int b[8];
                for (int j = 0; j < 8; j++)
                    b[j] = byte_of(gemm_mma_elem_offset, esize, cpr, (i0 + j) / cpr, (i0 + j) % cpr);
                bad_st += !conflict_free(b);
            }
            CHECK(bad_ld == 0 && bad_st == 0, "esize %d cpr %d: %d ldmatrix and %d store phases conflict", esize,
                  cpr, bad_ld, bad_st);
        }
}

// ---- ldmatrix and the MMA fragment tables -------------------------------------

/* A swizzled tile of TILE_ROWS rows x SLAB_BYTES: each byte holds its tag
 * row * SLAB_BYTES + byte column (its logical position) */
static int tile[TILE_ROWS * SLAB_BYTES];

static void fill_tile(int esize)
{
    const int cpr = SLAB_BYTES / 16;
    for (int r = 0; r < TILE_ROWS; r++)
        for (int c = 0; c < cpr; c++) {
            const int b = byte_of(gemm_mma_elem_offset, esize, cpr, r, c);
            for (int j = 0; j < 16; j++) tile[b + j] = r * SLAB_BYTES + c * 16 + j;
        }
}

/* ldmatrix.x4 as the warp sees it: reg[t][q][j] = the tag of byte j of
 * register q of thread t; addr(lane) gives lane's row address (bytes) */
static void ldmatrix_x4(int reg[32][4][4], const int addr[32])
{
    for (int t = 0; t < 32; t++)
        for (int q = 0; q < 4; q++)
            for (int j = 0; j < 4; j++) reg[t][q][j] = tile[addr[8 * q + t / 4] + 4 * (t % 4) + j];
}

/* the PTX ISA's A fragment: element i of thread t (row, k in elements) */
static void frag_a(int esize, int t, int i, int *row, int *k)
{
    const int g = t / 4, tig = t % 4;
    if (esize == 2) { /* m16n8k16 .f16/.bf16: a0..a7, 2 a register */
        *row = g + ((i / 2) % 2) * 8;
        *k = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    } else { /* m16n8k32 .e4m3: a0..a15, 4 a register */
        *row = g + ((i / 4) % 2) * 8;
        *k = tig * 4 + (i & 3) + (i >= 8 ? 16 : 0);
    }
}

/* the PTX ISA's B fragment: element i of thread t (k in elements, n) */
static void frag_b(int esize, int t, int i, int *k, int *n)
{
    const int g = t / 4, tig = t % 4;
    *n = g;
    if (esize == 2) /* b0..b3 */
        *k = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);
    else /* b0..b7 */
        *k = tig * 4 + (i & 3) + (i >= 4 ? 16 : 0);
}

/* the PTX ISA's C fragment (both shapes): element i of thread t */
static void frag_c(int t, int i, int *row, int *col)
{
    *row = t / 4 + (i >= 2 ? 8 : 0);
    *col = (t % 4) * 2 + (i & 1);
}

/* the tag register q of thread t holds for element e (esize bytes from byte e esize) */
static int tag_of(int reg[32][4][4], int t, int q, int e, int esize)
{
    return reg[t][q][(e * esize) % 4];
}

/* 1 when element e of a register holds bytes tag, tag + 1, ... (a whole element) */
static int whole(int reg[32][4][4], int t, int q, int e, int esize)
{
    for (int j = 1; j < esize; j++)
        if (reg[t][q][(e * esize) % 4 + j] != reg[t][q][(e * esize) % 4] + j) return 0;
    return 1;
}

/* the A fragments of rows row0.. and the B fragment pairs of n rows n0.. at
 * k step kk, as the kernel addresses them: faults against the tables */
static int fragment_faults(int esize, int row0, int n0, int kk)
{
    const int cpr = SLAB_BYTES / 16, epr = 4 / esize; /* elements a register */
    int addr[32], reg[32][4][4], faults = 0;
    for (int lane = 0; lane < 32; lane++) {
        int r, c;
        gemm_mma_lane_a(lane, &r, &c);
        addr[lane] = byte_of(gemm_mma_elem_offset, esize, cpr, row0 + r, kk * 2 + c);
    }
    ldmatrix_x4(reg, addr);
    for (int t = 0; t < 32; t++)
        for (int i = 0; i < 4 * epr; i++) {
            int row, k;
            frag_a(esize, t, i, &row, &k);
            const int q = i / epr, want = (row0 + row) * SLAB_BYTES + kk * 32 + k * esize;
            faults += tag_of(reg, t, q, i % epr, esize) != want || !whole(reg, t, q, i % epr, esize);
        }
    for (int lane = 0; lane < 32; lane++) {
        int r, c;
        gemm_mma_lane_b(lane, &r, &c);
        addr[lane] = byte_of(gemm_mma_elem_offset, esize, cpr, n0 + r, kk * 2 + c);
    }
    ldmatrix_x4(reg, addr);
    for (int f = 0; f < 2; f++) /* registers 2f, 2f + 1: the fragment of n rows n0 + 8 f.. */
        for (int t = 0; t < 32; t++)
            for (int i = 0; i < 2 * epr; i++) {
                int k, n;
                frag_b(esize, t, i, &k, &n);
                const int q = 2 * f + i / epr, want = (n0 + 8 * f + n) * SLAB_BYTES + kk * 32 + k * esize;
                faults += tag_of(reg, t, q, i % epr, esize) != want || !whole(reg, t, q, i % epr, esize);
            }
    return faults;
}

static void check_fragments(void)
{
    for (int esize = 1; esize <= 2; esize++) {
        fill_tile(esize);
        int faults = 0;
        /* every 16-row fragment origin of a 128-row tile (both rungs' warp tiles start at multiples of 16) */
        for (int row0 = 0; row0 < TILE_ROWS; row0 += 16)
            for (int kk = 0; kk < SLAB_BYTES / 32; kk++) faults += fragment_faults(esize, row0, row0, kk);
        CHECK(faults == 0, "%s: %d fragment elements differ from the PTX ISA's tables", esize == 1 ? "fp8" : "fp16",
              faults);
    }
    int bad = 0;
    for (int lane = 0; lane < 32; lane++)
        for (int h = 0; h < 2; h++) {
            int r, c, rr, cc;
            gemm_mma_lane_c(lane, h, &r, &c);
            frag_c(lane, 2 * h, &rr, &cc);
            bad += r != rr || c != cc || c % 2 != 0;
            frag_c(lane, 2 * h + 1, &rr, &cc);
            bad += r != rr || c + 1 != cc;
        }
    CHECK(bad == 0, "the epilogue's accumulator positions: %d differ from the C fragment", bad);
}

/* A (16 x K) times B (16 n rows x K, K-major) through the simulated
 * fragments and the MMA's tables, stored through gemm_mma_lane_c, against
 * the direct product; K = one slab (2 k steps); values small integers */
static void check_product(int esize)
{
    const int K = SLAB_BYTES / esize, cpr = SLAB_BYTES / 16, epr = 4 / esize;
    double a[16][64], b[16][64], want[16][16], got[16][16];
    int addr[32], ra[32][4][4], rb[32][4][4];
    for (int r = 0; r < 16; r++)
        for (int k = 0; k < K; k++) {
            a[r][k] = (r * 7 + k * 3) % 11 - 5;
            b[r][k] = (r * 5 + k * 2) % 9 - 4;
        }
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 16; n++) {
            want[r][n] = 0;
            got[r][n] = 0;
            for (int k = 0; k < K; k++) want[r][n] += a[r][k] * b[n][k];
        }
    fill_tile(esize); /* tags: a tag names (row, byte): the value is looked up from it */
    for (int kk = 0; kk < SLAB_BYTES / 32; kk++) {
        for (int lane = 0; lane < 32; lane++) {
            int r, c;
            gemm_mma_lane_a(lane, &r, &c);
            addr[lane] = byte_of(gemm_mma_elem_offset, esize, cpr, r, kk * 2 + c);
        }
        ldmatrix_x4(ra, addr);
        for (int lane = 0; lane < 32; lane++) {
            int r, c;
            gemm_mma_lane_b(lane, &r, &c);
            addr[lane] = byte_of(gemm_mma_elem_offset, esize, cpr, r, kk * 2 + c);
        }
        ldmatrix_x4(rb, addr);
        /* the MMA: D[row][n] += sum over k of the A and B elements its tables place there */
        double acc[2][32][4];
        memset(acc, 0, sizeof acc);
        double fa[16][32], fb[2][16][32]; /* fragments gathered by the tables: [row][k], [f][n][k] */
        for (int t = 0; t < 32; t++) {
            for (int i = 0; i < 4 * epr; i++) {
                int row, k;
                frag_a(esize, t, i, &row, &k);
                const int tag = tag_of(ra, t, i / epr, i % epr, esize);
                fa[row][k] = a[tag / SLAB_BYTES][(tag % SLAB_BYTES) / esize];
            }
            for (int f = 0; f < 2; f++)
                for (int i = 0; i < 2 * epr; i++) {
                    int k, n;
                    frag_b(esize, t, i, &k, &n);
                    const int tag = tag_of(rb, t, 2 * f + i / epr, i % epr, esize);
                    fb[f][n][k] = b[tag / SLAB_BYTES][(tag % SLAB_BYTES) / esize];
                }
        }
        for (int f = 0; f < 2; f++)
            for (int t = 0; t < 32; t++)
                for (int i = 0; i < 4; i++) {
                    int row, col;
                    frag_c(t, i, &row, &col);
                    for (int k = 0; k < 32 / esize; k++) acc[f][t][i] += fa[row][k] * fb[f][col][k];
                }
        for (int f = 0; f < 2; f++)
            for (int t = 0; t < 32; t++)
                for (int h = 0; h < 2; h++) {
                    int r, c;
                    gemm_mma_lane_c(t, h, &r, &c);
                    got[r][8 * f + c] += acc[f][t][2 * h];
                    got[r][8 * f + c + 1] += acc[f][t][2 * h + 1];
                }
    }
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 16; n++) bad += got[r][n] != want[r][n];
    CHECK(bad == 0, "%s: %d of 256 elements of A B through the fragments differ", esize == 1 ? "fp8" : "fp16", bad);
}

int main(void)
{
    check_layout();
    check_banks();
    check_fragments();
    check_product(2);
    check_product(1);
    return test_finish("test_gemm_mma_layout");
}
