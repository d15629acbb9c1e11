/* tests/test_attention_tiles.c: the tile arithmetic of the flash-attention
 * rungs (kernels/attention_common.cuh, its plain-C part: the CUDA part is
 * compiled only under nvcc), checked on the CPU against a brute-force walk of
 * the mask (query i sees key j < seq_kv with j <= i + seq_kv - seq_q when
 * causal) over every q tile of many shapes, with the q tile and K/V tile
 * sizes of both rungs (64, 128; 32, 64) and awkward ones:
 *  - attn_kv_tiles: no tile at or past it holds a key that a valid row of the
 *    q tile sees (the loop may stop there), and the tile before it holds one
 *    (it does not stop later than needed); 0 exactly when no row sees a key;
 *  - attn_kv_tiles_unmasked: every tile before it is seen whole by every row
 *    of the q tile, padding rows past seq_q included (those tiles skip the
 *    mask), and the next tile (when it exists) is not;
 *  - attn_block_tile_order, in both orders (the head or the q tile fastest):
 *    the grid's blocks map one to one onto (q tile, head), the head of block
 *    b is the order's, and with the mask the q tile of block 0 is the last one.
 *  - attn_tail_split / attn_tail_chunk (fa3's tail split): the split's
 *    conditions and size over a range of grids, work tiles and K/V lengths,
 *    the chunks covering a work tile's K/V tiles in order, and by hand the
 *    shapes of shapes/attention.txt on 132 SMs.
 * Also a hand trace of one edge case (seq_q 333 > seq_kv 100, causal). */
#include <string.h>

#include "../kernels/attention_common.cuh"
#include "testlib.h"

/* 1 when query row i sees key j */
static int sees(long long i, long long j, long long sq, long long skv, int causal)
{
    return j < skv && (!causal || j <= i + skv - sq);
}

/* 1 when some valid row of [q0, q0 + bq) sees some key of [k0, k0 + bkv) */
static int tile_seen(long long q0, long long bq, long long k0, long long bkv, long long sq, long long skv,
                     int causal)
{
    for (long long i = q0; i < q0 + bq && i < sq; i++)
        for (long long j = k0; j < k0 + bkv; j++)
            if (sees(i, j, sq, skv, causal))
                return 1;
    return 0;
}

/* 1 when every row of [q0, q0 + bq), padding rows too, sees every key of the tile */
static int tile_whole(long long q0, long long bq, long long k0, long long bkv, long long sq, long long skv,
                      int causal)
{
    for (long long i = q0; i < q0 + bq; i++)
        for (long long j = k0; j < k0 + bkv; j++)
            if (!sees(i, j, sq, skv, causal))
                return 0;
    return 1;
}

static void check_shape(long long sq, long long skv, long long bq, long long bkv, int causal)
{
    const long long all = (skv + bkv - 1) / bkv;
    for (long long q0 = 0; q0 < sq; q0 += bq) {
        const long long n = attn_kv_tiles(q0, bq, sq, skv, bkv, causal);
        const long long u = attn_kv_tiles_unmasked(q0, sq, skv, bkv, causal);
        int ok_n = n >= 0 && n <= all;
        for (long long jt = n; jt < all && ok_n; jt++)
            ok_n = !tile_seen(q0, bq, jt * bkv, bkv, sq, skv, causal);
        if (n > 0 && ok_n)
            ok_n = tile_seen(q0, bq, (n - 1) * bkv, bkv, sq, skv, causal);
        CHECK(ok_n, "kv_tiles %lld: sq %lld skv %lld bq %lld bkv %lld causal %d q0 %lld", n, sq, skv, bq, bkv,
              causal, q0);
        int ok_u = u >= 0;
        for (long long jt = 0; jt < u && jt < n && ok_u; jt++)
            ok_u = tile_whole(q0, bq, jt * bkv, bkv, sq, skv, causal);
        if (ok_u && u < all)
            ok_u = !tile_whole(q0, bq, u * bkv, bkv, sq, skv, causal) || (u * bkv + bkv > skv);
        CHECK(ok_u, "kv_tiles_unmasked %lld: sq %lld skv %lld bq %lld bkv %lld causal %d q0 %lld", u, sq, skv,
              bq, bkv, causal, q0);
    }
}

static void check_blocks(long long qtiles, long long nbh, int causal, int head_major)
{
    char seen[64 * 8];
    memset(seen, 0, sizeof seen);
    int ok = qtiles * nbh <= (long long)sizeof seen;
    for (long long b = 0; b < qtiles * nbh && ok; b++) {
        long long qt = -1, bh = -1;
        attn_block_tile_order(b, qtiles, nbh, causal, head_major, &qt, &bh);
        ok = qt >= 0 && qt < qtiles && bh >= 0 && bh < nbh && !seen[qt * nbh + bh];
        if (ok)
            seen[qt * nbh + bh] = 1;
        if (ok && b == 0)
            ok = qt == (causal ? qtiles - 1 : 0) && bh == 0;
        if (ok && head_major) /* the q tile fastest: blocks of one head are adjacent */
            ok = bh == b / qtiles;
        else if (ok)
            ok = bh == b % nbh;
    }
    CHECK(ok, "block_tile: qtiles %lld nbh %lld causal %d head_major %d", qtiles, nbh, causal, head_major);
}

/* attn_tail_split's contract at one case: no split at one round or less,
 * at a last round over half the grid, or under 2 chunks; else the chunks
 * min(ts, grid / r, nkv) >= 2, r s <= grid, the tail the last round's
 * first block; and attn_tail_chunk's runs tile 0 .. nkv - 1 in order, each
 * at least one tile */
static void check_tail(long long total, long long grid, long long nkv, long long ts)
{
    long long t0 = -1;
    const long long s = attn_tail_split(total, grid, nkv, ts, &t0);
    const long long rounds = (total + grid - 1) / grid, r = total - (rounds - 1) * grid;
    long long want = grid / r < ts ? grid / r : ts;
    want = want < nkv ? want : nkv;
    if (rounds < 2 || 2 * r > grid || want < 2) {
        CHECK(s == 0 && t0 == 0, "no tail split: total %lld grid %lld nkv %lld ts %lld (%lld)", total, grid, nkv,
              ts, s);
        return;
    }
    CHECK(s == want && t0 == (rounds - 1) * grid && r * s <= grid,
          "tail split: total %lld grid %lld nkv %lld ts %lld: %lld chunks from %lld", total, grid, nkv, ts, s, t0);
    int next = 0;
    for (int c = 0; c < (int)s; c++) {
        int cnt = 0;
        const int j0 = attn_tail_chunk(c, (int)s, (int)nkv, &cnt);
        CHECK(j0 == next && cnt >= 1, "chunk %d of %lld of %lld tiles: %d + %d", c, s, nkv, j0, cnt);
        next = j0 + cnt;
    }
    CHECK(next == nkv, "the %lld chunks cover %lld tiles (%d)", s, nkv, next);
}

int main(void)
{
    static const long long seqs[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 333};
    static const long long tiles[][2] = {{64, 64}, {128, 64}, {64, 32}, {16, 48}};
    const int ns = (int)(sizeof seqs / sizeof seqs[0]);
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++)
            for (int t = 0; t < 4; t++)
                for (int causal = 0; causal < 2; causal++)
                    check_shape(seqs[a], seqs[b], tiles[t][0], tiles[t][1], causal);

    /* Hand trace: seq_q 333, seq_kv 100, causal, fa2's 128 x 64 tiles. off =
     * -233: row i sees keys j <= i - 233, so rows 0-232 see nothing. q tile 0
     * (rows 0-127): last key 127 - 233 < 0, no tile (zeros). q tile 1 (rows
     * 128-255): last key 255 - 233 = 22, tile 0 only, masked (row 128 sees
     * none: limit 128 - 233 + 1 = -104 keys). q tile 2 (rows 256-383, valid to
     * 332): last key 332 - 233 = 99, tiles 0 and 1; row 256 sees keys <= 23,
     * so no tile is whole. */
    CHECK(attn_kv_tiles(0, 128, 333, 100, 64, 1) == 0, "trace q tile 0");
    CHECK(attn_kv_tiles(128, 128, 333, 100, 64, 1) == 1, "trace q tile 1");
    CHECK(attn_kv_tiles(256, 128, 333, 100, 64, 1) == 2, "trace q tile 2");
    CHECK(attn_kv_tiles_unmasked(128, 333, 100, 64, 1) == 0, "trace q tile 1 unmasked");
    CHECK(attn_kv_tiles_unmasked(256, 333, 100, 64, 1) == 0, "trace q tile 2 unmasked");
    /* seq_q 100 < seq_kv 333, causal: off 233, q tile 0 (rows 0-99 of 128):
     * row 0 sees keys <= 233, whole tiles 0-2 (keys 0-191), tile 3 (192-255)
     * is cut at 233; row 99 sees keys <= 332: all 6 tiles. */
    CHECK(attn_kv_tiles(0, 128, 100, 333, 64, 1) == 6, "trace sq<skv tiles");
    CHECK(attn_kv_tiles_unmasked(0, 100, 333, 64, 1) == 3, "trace sq<skv unmasked");
    /* without the mask: all tiles, the edge tile (keys 320-383, valid to 332) masked */
    CHECK(attn_kv_tiles(0, 128, 100, 333, 64, 0) == 6 && attn_kv_tiles_unmasked(0, 100, 333, 64, 0) == 5,
          "trace non-causal");

    for (long long q = 1; q <= 7; q++)
        for (long long h = 1; h <= 5; h++)
            for (int causal = 0; causal < 2; causal++)
                for (int hm = 0; hm < 2; hm++) check_blocks(q, h, causal, hm);

    /* the tail split, every (total, grid, nkv, ts) of a range */
    for (long long grid = 1; grid <= 40; grid++)
        for (long long total = 1; total <= 4 * grid + 3; total++)
            for (long long nkv = 1; nkv <= 9; nkv++)
                for (long long ts = 0; ts <= 9; ts++) check_tail(total, grid, nkv, ts);
    /* by hand, on 132 SMs: 8 x 32 x 2K at 128 rows (4096 work tiles of 16 K/V tiles): 31
     * rounds and 4 tiles, 4 chunks (FA3_TAIL_SPLIT), 8 with ts 8; 33 heads (4224 = 32 x
     * 132): no partial round; 8 x 64 x 2K: 8192 tiles, a 63rd round of 8; 1 x 48 x 400 x
     * 400: 192 tiles, a last round of 60 <= 66, 2 chunks (132 / 60) */
    long long t0;
    CHECK(attn_tail_split(4096, 132, 16, 4, &t0) == 4 && t0 == 31 * 132, "2K: 4 chunks, tail at 4092");
    CHECK(attn_tail_split(4096, 132, 16, 8, &t0) == 8, "2K: 8 chunks at ts 8");
    CHECK(attn_tail_split(4224, 132, 16, 4, &t0) == 0, "33 heads: whole rounds");
    CHECK(attn_tail_split(8192, 132, 16, 4, &t0) == 4 && t0 == 62 * 132, "64 heads: 4 chunks");
    CHECK(attn_tail_split(192, 132, 4, 4, &t0) == 2 && t0 == 132, "192 tiles: 2 chunks");
    CHECK(attn_tail_split(200, 132, 4, 4, &t0) == 0, "a last round of 68 > 66: none");
    CHECK(attn_tail_split(4096, 132, 1, 4, &t0) == 0, "one K/V tile: none");
    return test_finish("test_attention_tiles");
}
