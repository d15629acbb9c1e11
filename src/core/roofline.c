/* src/core/roofline.c: see roofline.h. */
#include "roofline.h"

#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "peaks.h"
#include "types.h"

double roofline_intensity(double flops, double bytes)
{
    return flops > 0 && bytes > 0 ? flops / bytes : -1.0;
}

const char *roofline_compute_name(int types_math_value)
{
    if (types_math_value == TYPES_MATH_FP32) return "fp32";
    if (types_math_value > TYPES_MATH_FP32 && types_math_value < TYPES_MATH_COUNT) return "tensor";
    return NULL;
}

double roofline_bound(double flops, double bytes, double ms, double compute_tflops, const char *compute_name,
                      double mem_gbps, char *buf, size_t len)
{
    double pct = -1.0;
    const char *roof = NULL;
    if (len) buf[0] = '\0';
    if (!(ms > 0) || !(bytes > 0) || !(mem_gbps > 0)) return -1.0;
    if (flops > 0) {
        /* both roofs in FLOP/s: the memory roof at this intensity is I x BW */
        const double mem_flops = flops / bytes * mem_gbps * 1e9;
        if (!(compute_tflops > 0) || !compute_name) return -1.0; /* which roof is lower is not known */
        const double compute_flops = compute_tflops * 1e12;
        const double achieved = flops / (ms * 1e-3);
        if (mem_flops <= compute_flops) {
            roof = "memory";
            pct = achieved / mem_flops * 100.0;
        } else {
            roof = compute_name;
            pct = achieved / compute_flops * 100.0;
        }
    } else {
        roof = "memory";
        pct = metrics_gbps(bytes, ms) / mem_gbps * 100.0;
    }
    if (len) snprintf(buf, len, "%s %.0f%%", roof, pct);
    return pct;
}

/* Appends "; "-separated text to buf (used bytes so far in *used). */
static void roofline_append(char *buf, size_t len, size_t *used, const char *text)
{
    if (*used >= len) return;
    int n = snprintf(buf + *used, len - *used, "%s%s", *used ? "; " : "", text);
    if (n > 0) *used += (size_t)n;
    if (*used >= len) *used = len - 1;
}

/* DRAM bytes read + written of a measured row, < 0 when not measured. */
static double roofline_dram(const result_row *r)
{
    return r && r->dram_read_bytes >= 0 && r->dram_write_bytes >= 0 ? r->dram_read_bytes + r->dram_write_bytes : -1.0;
}

int roofline_hints(const result_row *r, const result_row *ref, char *buf, size_t len)
{
    size_t used = 0;
    int count = 0;
    char line[256];
    if (len) buf[0] = '\0';
    const double dram = roofline_dram(r), ref_dram = roofline_dram(ref);
    if (dram >= 0 && r->bytes > 0) {
        const double ratio = dram / r->bytes;
        const double vs_ref = ref_dram > 0 ? dram / ref_dram : -1.0;
        if (ratio > ROOFLINE_DRAM_EXCESS && (vs_ref < 0 || vs_ref > ROOFLINE_DRAM_EXCESS)) {
            char lib[96] = "";
            if (vs_ref > 0) snprintf(lib, sizeof lib, ", %.1fx %.60s's", vs_ref, ref->variant ? ref->variant : "the library");
            snprintf(line, sizeof line,
                     "DRAM %.1fx the minimum bytes%s (dram__bytes_read.sum + dram__bytes_write.sum): "
                     "uncoalesced or re-read accesses",
                     ratio, lib);
            roofline_append(buf, len, &used, line);
            count++;
        }
    }
    if (r->occupancy_pct >= 0 && r->occupancy_pct < ROOFLINE_LOW_OCCUPANCY_PCT && r->bound_pct >= 0 &&
        r->bound_pct < ROOFLINE_FAR_FROM_ROOF_PCT) {
        snprintf(line, sizeof line,
                 "occupancy %.0f%% (sm__warps_active.avg.pct_of_peak_sustained_active) at %.0f%% of its roof: "
                 "too few warps to hide latency",
                 r->occupancy_pct, r->bound_pct);
        roofline_append(buf, len, &used, line);
        count++;
    }
    if (r->smem_conflicts >= 0 && r->smem_wavefronts > 0 &&
        r->smem_conflicts > ROOFLINE_BANK_CONFLICT_RATIO * r->smem_wavefronts) {
        snprintf(line, sizeof line,
                 "shared-memory bank conflicts: %.0f%% extra wavefronts "
                 "(l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum)",
                 r->smem_conflicts / r->smem_wavefronts * 100.0);
        roofline_append(buf, len, &used, line);
        count++;
    }
    return count;
}

void roofline_fill(result_row *r, const device_info *dev, const result_row *ref)
{
    r->intensity = roofline_intensity(r->flops, r->bytes);
    r->bound[0] = '\0';
    r->bound_pct = -1;
    if (r->status == STATUS_OK && r->time_ms.count > 0 && r->peak != OP_PEAK_NONE) {
        /* the ceilings at the clocks the samples ran at, as %peak takes them */
        const types_math m = types_math_of(r->math);
        const double sm_khz = r->sm_clock_mhz > 0 ? r->sm_clock_mhz * 1e3 : 0;
        const double mem_khz = r->mem_clock_mhz > 0 ? r->mem_clock_mhz * 1e3 : dev->mem_clock_khz;
        const double compute = m == TYPES_MATH_NONE ? 0 : peaks_tflops(dev, m, sm_khz);
        const double mem = metrics_peak_mem_gbps(mem_khz, dev->bus_width_bits);
        r->bound_pct = roofline_bound(r->flops, r->bytes, r->time_ms.median, compute, roofline_compute_name(m), mem,
                                      r->bound, sizeof r->bound);
    }
    r->intensity_measured = -1;
    if (r->flops_measured > 0 && r->dram_read_bytes >= 0 && r->dram_write_bytes >= 0 &&
        r->dram_read_bytes + r->dram_write_bytes > 0)
        r->intensity_measured = r->flops_measured / (r->dram_read_bytes + r->dram_write_bytes);
    r->hint[0] = '\0';
    if (!r->library && r->status == STATUS_OK) roofline_hints(r, ref, r->hint, sizeof r->hint);
}
