/* tests/test_roofline.c: the roofline columns (src/core/roofline.c): the
 * analytic intensity, the bound (which roof limits a row and the % of it,
 * at the crossing and on either side of it, with a ceiling unknown), the
 * measured intensity, and the hint rules on fake metric rows: each fires
 * above its threshold, stays quiet below it, names its metric, and only
 * hand rows with counters get one. Ceilings are those of the fixed H200 of
 * test_h200_run_info: FP32 66.90816 TFLOP/s, TF32 535.26528 TFLOP/s,
 * memory 4814.304 GB/s. */
#include <math.h>
#include <string.h>

#include "metrics.h"
#include "plan.h"
#include "roofline.h"
#include "testlib.h"

#define FP32_TFLOPS 66.90816
#define TF32_TFLOPS 535.26528
#define MEM_GBPS 4814.304

static void timed_row(result_row *r, const char *variant, int library, const char *math, op_peak peak,
                      double flops, double bytes, double ms)
{
    static double samples[8][3];
    static int next;
    double *s = samples[next++ % 8];
    results_row_clear(r);
    r->op = "op";
    r->variant = variant;
    r->library = library;
    r->math = math;
    r->peak = peak;
    r->flops = flops;
    r->bytes = bytes;
    s[0] = s[1] = s[2] = ms;
    stats_summarize(s, 3, &r->time_ms);
    r->status = STATUS_OK;
}

static void test_intensity(void)
{
    CHECK(fabs(roofline_intensity(137438953472.0, 201326592.0) - 682.6666666666666) < 1e-9,
          "sgemm 4096: %.17g FLOP/B", roofline_intensity(137438953472.0, 201326592.0));
    CHECK(roofline_intensity(1000, 4000) == 0.25, "reduce: 0.25 FLOP/B");
    CHECK(roofline_intensity(0, 4000) < 0, "no FLOPs: no intensity");
    CHECK(roofline_intensity(1000, 0) < 0, "no bytes: no intensity");
    CHECK(roofline_intensity(-1, -1) < 0, "n/a: no intensity");
}

static void test_bound(void)
{
    char b[32];
    /* sgemm 4096 fp32 in 10 ms: 682 FLOP/B puts the memory roof far above FP32 */
    const double f = 137438953472.0, by = 201326592.0;
    double pct = roofline_bound(f, by, 10.0, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b);
    double want = f / 10e-3 / (FP32_TFLOPS * 1e12) * 100.0;
    CHECK(fabs(pct - want) < 1e-9 && strcmp(b, "fp32 21%") == 0, "sgemm fp32: %.17g '%s', expected %.17g", pct, b,
          want);
    /* the same work as TF32: its roof is higher, still below memory's at this intensity */
    pct = roofline_bound(f, by, 1.0, TF32_TFLOPS, "tensor", MEM_GBPS, b, sizeof b);
    want = f / 1e-3 / (TF32_TFLOPS * 1e12) * 100.0;
    CHECK(fabs(pct - want) < 1e-9 && strcmp(b, "tensor 26%") == 0, "sgemm tf32: %.17g '%s'", pct, b);
    /* reduce 2^26 floats in 0.06 ms: 0.25 FLOP/B, memory bound, % of bandwidth */
    pct = roofline_bound(67108864.0, 268435456.0, 0.06, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b);
    want = 268435456.0 / 0.06e-3 / 1e9 / MEM_GBPS * 100.0;
    CHECK(fabs(pct - want) < 1e-9 && strcmp(b, "memory 93%") == 0, "reduce: %.17g '%s', expected %.17g", pct, b, want);
    /* no FLOPs counted (transpose, softmax): the memory roof alone */
    pct = roofline_bound(0, 134217728.0, 0.05, 0, NULL, MEM_GBPS, b, sizeof b);
    want = 134217728.0 / 0.05e-3 / 1e9 / MEM_GBPS * 100.0;
    CHECK(fabs(pct - want) < 1e-9 && strncmp(b, "memory ", 7) == 0, "transpose: %.17g '%s'", pct, b);
    /* at the ridge point the two ceilings are equal: memory is named; just
     * above it, compute; just below, memory */
    const double ridge = FP32_TFLOPS * 1e12 / (MEM_GBPS * 1e9);
    pct = roofline_bound(ridge * 1e9, 1e9, 1.0, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b);
    CHECK(strncmp(b, "memory ", 7) == 0, "at the ridge: '%s'", b);
    pct = roofline_bound(ridge * 1.01e9, 1e9, 1.0, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b);
    CHECK(strncmp(b, "fp32 ", 5) == 0, "above the ridge: '%s'", b);
    pct = roofline_bound(ridge * 0.99e9, 1e9, 1.0, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b);
    CHECK(strncmp(b, "memory ", 7) == 0, "below the ridge: '%s'", b);
    /* the % is of the ceiling at this intensity: 1 GB moved at full bandwidth is 100% */
    pct = roofline_bound(0.5e9, 1e9, 1e3 / MEM_GBPS, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b);
    CHECK(fabs(pct - 100.0) < 1e-9 && strcmp(b, "memory 100%") == 0, "at the memory roof: %.17g '%s'", pct, b);
    /* a ceiling not known: no bound, never a guess */
    strcpy(b, "stale");
    CHECK(roofline_bound(f, by, 10.0, 0, "tensor", MEM_GBPS, b, sizeof b) < 0 && b[0] == '\0',
          "unknown compute ceiling gave '%s'", b);
    CHECK(roofline_bound(f, by, 10.0, FP32_TFLOPS, "fp32", 0, b, sizeof b) < 0 && b[0] == '\0',
          "unknown memory ceiling gave '%s'", b);
    CHECK(roofline_bound(f, by, 0, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b) < 0 && b[0] == '\0', "untimed: '%s'", b);
    CHECK(roofline_bound(f, -1, 1, FP32_TFLOPS, "fp32", MEM_GBPS, b, sizeof b) < 0, "no bytes: a bound");
    CHECK(strcmp(roofline_compute_name(TYPES_MATH_FP32), "fp32") == 0 &&
              strcmp(roofline_compute_name(TYPES_MATH_TF32), "tensor") == 0 &&
              strcmp(roofline_compute_name(TYPES_MATH_FP8), "tensor") == 0 && roofline_compute_name(TYPES_MATH_NONE) == NULL,
          "compute roof names");
}

static void test_fill(void)
{
    run_info info;
    result_row r;
    test_h200_run_info(&info, "NVIDIA H200");
    /* a tf32 GEMM row against the tensor roof, at the clock it ran at */
    timed_row(&r, "tf32_mma", 0, "tf32", OP_PEAK_COMPUTE, 137438953472.0, 201326592.0, 1.0);
    r.sm_clock_mhz = 1755;
    roofline_fill(&r, &info.dev, NULL);
    const double peak = 535.26528 * 1755.0 / 1980.0;
    CHECK(fabs(r.bound_pct - 137438953472.0 / 1e-3 / (peak * 1e12) * 100.0) < 1e-9 && strncmp(r.bound, "tensor ", 7) == 0,
          "tf32 at 1755 MHz: %.17g '%s'", r.bound_pct, r.bound);
    CHECK(fabs(r.intensity - 682.6666666666666) < 1e-9, "intensity %.17g", r.intensity);
    CHECK(r.intensity_measured < 0 && r.hint[0] == '\0', "nothing measured: no measured intensity, no hint");
    /* an op without a ceiling (sort, transfer): intensity if any, no bound */
    timed_row(&r, "cub", 1, "u32", OP_PEAK_NONE, -1, 8e6, 1.0);
    roofline_fill(&r, &info.dev, NULL);
    CHECK(r.bound[0] == '\0' && r.bound_pct < 0 && r.intensity < 0, "sort: bound '%s'", r.bound);
    /* a FAIL row: intensity (it is the op's), no bound */
    timed_row(&r, "naive", 0, "fp32", OP_PEAK_COMPUTE, 2e9, 1e8, 1.0);
    r.status = STATUS_FAIL;
    roofline_fill(&r, &info.dev, NULL);
    CHECK(r.intensity == 20.0 && r.bound[0] == '\0', "FAIL row: intensity %g, bound '%s'", r.intensity, r.bound);
    /* measured intensity: FP32 FLOPs over DRAM bytes read + written */
    timed_row(&r, "vec4", 0, "fp32", OP_PEAK_MEMORY, 67108864.0, 268435456.0, 0.06);
    r.flops_measured = 67108864.0;
    r.dram_read_bytes = 268435456.0;
    r.dram_write_bytes = 0;
    roofline_fill(&r, &info.dev, NULL);
    CHECK(r.intensity_measured == 0.25, "measured intensity %.17g", r.intensity_measured);
    CHECK(strcmp(r.bound, "memory 93%") == 0, "reduce bound '%s'", r.bound);
    /* plan_percents fills the columns too (every row it percents) */
    {
        static const op_info reduce_op = {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub",
                                          {NULL}, {NULL, NULL}, "", {OP_AXIS_ELEMS}};
        result_row rows[2];
        timed_row(&rows[0], "thrust", 1, "fp32", OP_PEAK_MEMORY, 67108864.0, 268435456.0, 0.07);
        timed_row(&rows[1], "vec4", 0, "fp32", OP_PEAK_MEMORY, 67108864.0, 268435456.0, 0.06);
        rows[1].ref_library = "thrust";
        rows[1].dram_read_bytes = 3.0 * 268435456.0; /* a fake re-reading kernel */
        rows[1].dram_write_bytes = 0;
        rows[0].dram_read_bytes = 268435456.0; /* the library reads the input once */
        rows[0].dram_write_bytes = 0;
        plan_percents(&reduce_op, &info.dev, rows, 2);
        CHECK(strncmp(rows[0].bound, "memory ", 7) == 0 && strcmp(rows[1].bound, "memory 93%") == 0,
              "plan_percents bounds '%s' '%s'", rows[0].bound, rows[1].bound);
        CHECK(rows[0].hint[0] == '\0', "a library row got a hint: %s", rows[0].hint);
        CHECK(test_contains(rows[1].hint, "dram__bytes_read.sum") && test_contains(rows[1].hint, "3.0x thrust's"),
              "the hand row's hint: '%s'", rows[1].hint);
        /* a library that moves as much (a GEMM re-reading its tiles): no hint */
        rows[0].dram_read_bytes = 2.5 * 268435456.0;
        plan_percents(&reduce_op, &info.dev, rows, 2);
        CHECK(rows[1].hint[0] == '\0', "3x the minimum, 1.2x the library's: hint '%s'", rows[1].hint);
    }
}

/* A hand row with counters: DRAM at `dram_x` the minimum, occupancy, its
 * roof's %, shared-memory conflicts over wavefronts. */
static void fake_metrics(result_row *r, double dram_x, double occupancy, double bound_pct, double conflicts,
                         double wavefronts)
{
    results_row_clear(r);
    r->variant = "hand";
    r->status = STATUS_OK;
    r->bytes = 1e8;
    r->dram_read_bytes = dram_x * 0.75e8;
    r->dram_write_bytes = dram_x * 0.25e8;
    r->occupancy_pct = occupancy;
    r->bound_pct = bound_pct;
    r->smem_conflicts = conflicts;
    r->smem_wavefronts = wavefronts;
}

static void test_hints(void)
{
    result_row r;
    char b[512];
    /* a clean kernel: no hint */
    fake_metrics(&r, 1.05, 60, 85, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0 && b[0] == '\0', "clean row: '%s'", b);
    /* DRAM: 3x the minimum fires, naming both counters; 1.4x does not */
    fake_metrics(&r, 3.0, 60, 85, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 1 && test_contains(b, "3.0x the minimum") &&
              test_contains(b, "dram__bytes_read.sum + dram__bytes_write.sum"),
          "3x DRAM: '%s'", b);
    fake_metrics(&r, 1.4, 60, 85, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0, "1.4x DRAM: '%s'", b);
    /* against the library row its %ref is of: more than 1.5x the library's fires, naming it; less does not;
     * a library row without counters leaves the minimum as the measure */
    {
        result_row lib;
        fake_metrics(&lib, 2.5, 60, 85, 0, 1000);
        lib.variant = "cublas_fp32";
        fake_metrics(&r, 3.0, 60, 85, 0, 1000);
        CHECK(roofline_hints(&r, &lib, b, sizeof b) == 0, "3x the minimum, 1.2x the library's: '%s'", b);
        fake_metrics(&r, 4.0, 60, 85, 0, 1000);
        CHECK(roofline_hints(&r, &lib, b, sizeof b) == 1 && test_contains(b, "4.0x the minimum bytes, 1.6x cublas_fp32's"),
              "4x the minimum, 1.6x the library's: '%s'", b);
        lib.dram_read_bytes = lib.dram_write_bytes = -1;
        fake_metrics(&r, 3.0, 60, 85, 0, 1000);
        CHECK(roofline_hints(&r, &lib, b, sizeof b) == 1 && !test_contains(b, "cublas_fp32"),
              "library unmeasured: '%s'", b);
    }
    /* occupancy: low and far from the roof fires; low near the roof (a
     * tuned GEMM's few big blocks) does not; not low does not */
    fake_metrics(&r, 1.0, 12, 30, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 1 && test_contains(b, "sm__warps_active.avg.pct_of_peak_sustained_active") &&
              test_contains(b, "occupancy 12%") && test_contains(b, "at 30% of its roof"),
          "low occupancy: '%s'", b);
    fake_metrics(&r, 1.0, 12.5, 80, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0, "low occupancy near the roof: '%s'", b);
    fake_metrics(&r, 1.0, 40, 30, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0, "occupancy 40%%: '%s'", b);
    fake_metrics(&r, 1.0, 12.5, -1, 0, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0, "occupancy with no bound: '%s'", b);
    /* bank conflicts: half the wavefronts extra fires; a tenth does not; none with no shared traffic */
    fake_metrics(&r, 1.0, 60, 85, 500, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 1 && test_contains(b, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum") &&
              test_contains(b, "50%"),
          "bank conflicts: '%s'", b);
    fake_metrics(&r, 1.0, 60, 85, 100, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0, "10%% conflicts: '%s'", b);
    fake_metrics(&r, 1.0, 60, 85, 0, 0);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0, "no shared memory: '%s'", b);
    /* all three, "; "-separated */
    fake_metrics(&r, 2.0, 10, 20, 900, 1000);
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 3 && test_count(b, "; ") == 2, "three hints: '%s'", b);
    /* nothing measured: nothing said */
    results_row_clear(&r);
    r.bytes = 1e8;
    CHECK(roofline_hints(&r, NULL, b, sizeof b) == 0 && b[0] == '\0', "unmeasured row: '%s'", b);
    /* a short buffer is cut, never overrun */
    fake_metrics(&r, 2.0, 10, 20, 900, 1000);
    {
        char small[24];
        memset(small, 'x', sizeof small);
        CHECK(roofline_hints(&r, NULL, small, 16) == 3 && strlen(small) == 15 && small[16] == 'x', "cut: '%s'", small);
    }
}

int main(void)
{
    test_intensity();
    test_bound();
    test_fill();
    test_hints();
    return test_finish("test_roofline");
}
