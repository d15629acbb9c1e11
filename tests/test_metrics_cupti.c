/* tests/test_metrics_cupti.c: --metrics' CUPTI layer (src/gpu/metrics_cupti.c,
 * compiled alone: plain C over dlopen) where there are no counters, on any
 * machine: with COMPARE_METRICS_FAKE=absent (no libcupti) and =denied (the
 * answer of a driver that keeps counters to admins) a measurement returns
 * -1, fills nothing (every figure < 0), never calls the work, and says why
 * in the note; the session then keeps saying it for later rows. */
#include <stdlib.h>
#include <string.h>

#include "metrics_cupti.h"
#include "testlib.h"

static int calls;
static int fake_work(void *ctx)
{
    (void)ctx;
    calls++;
    return 0;
}

static int all_empty(const metrics_values *v)
{
    return v->dram_read_bytes < 0 && v->dram_write_bytes < 0 && v->l2_bytes < 0 && v->flops_fp32 < 0 &&
           v->tensor_inst < 0 && v->gmma_inst < 0 && v->occupancy_pct < 0 && v->sm_throughput_pct < 0 &&
           v->smem_conflicts < 0 && v->smem_wavefronts < 0 && v->passes == 0;
}

static void expect_refused(const char *fake, const char *reason)
{
    metrics_cupti *m = metrics_cupti_open(0);
    const metrics_work w = {fake_work, fake_work, NULL};
    metrics_values v;
    char note[192];
    CHECK(m != NULL, "open");
    if (!m) return;
    setenv("COMPARE_METRICS_FAKE", fake, 1);
    for (int row = 0; row < 2; row++) {
        memset(&v, 0x5a, sizeof v); /* stale bytes: must all be overwritten */
        strcpy(note, "stale");
        CHECK(metrics_cupti_measure(m, &w, &v, note, sizeof note) == -1, "%s: row %d measured", fake, row);
        CHECK(all_empty(&v), "%s: row %d has a figure", fake, row);
        CHECK(test_contains(note, reason), "%s: row %d note '%s', expected '%s'", fake, row, note, reason);
    }
    CHECK(calls == 0, "%s: the work ran %d times without counters", fake, calls);
    unsetenv("COMPARE_METRICS_FAKE");
    metrics_cupti_close(m);
}

int main(void)
{
    /* absent first: the library is looked for once per process */
    expect_refused("absent", "CUPTI not found");
    expect_refused("denied", "counters not permitted: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from cuptiRangeProfilerEnable");
    metrics_cupti_close(NULL); /* closing nothing is fine */
    return test_finish("test_metrics_cupti");
}
