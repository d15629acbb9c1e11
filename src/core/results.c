#include "results.h"

#include <stdlib.h>
#include <string.h>

void results_row_free(result_row *r)
{
    free(r->samples_ms);
    r->samples_ms = NULL;
}

void results_row_clear(result_row *r)
{
    memset(r, 0, sizeof *r);
    r->tflops = r->gbps = r->gkeys = -1;
    r->pct_ref = r->pct_best = r->pct_peak = r->peak_tflops = -1;
    r->rel_err = r->tolerance = -1;
    r->flops = r->bytes = -1;
    r->sm_clock_mhz = r->sm_clock_min_mhz = r->mem_clock_mhz = r->temp_c = r->power_w = -1;
    r->intensity = r->bound_pct = r->intensity_measured = -1;
    r->dram_read_bytes = r->dram_write_bytes = r->l2_bytes = r->flops_measured = r->tensor_inst = -1;
    r->occupancy_pct = r->sm_throughput_pct = r->smem_conflicts = r->smem_wavefronts = -1;
}
