#include "report.h"

#include <math.h>
#include <string.h>

#include "csv.h"
#include "plan.h"

static void report_version(char *buf, size_t len, int v)
{
    /* CUDA versions are 1000*major + 10*minor */
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void report_cublas_version(char *buf, size_t len, int v)
{
    /* cuBLAS: major*10000 + minor*100 + patch */
    snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

/* The tensor ceilings the peak table knows for this GPU (dense, FP32
 * accumulate, at the maximum clock), and the note of those it does not. */
static void report_tensor_ceilings(FILE *f, const char *lead, const char *tail, const device_info *d)
{
    int known = 0;
    for (int m = TYPES_MATH_TF32; m < TYPES_MATH_COUNT; m++) {
        if (d->peak_tflops[m] <= 0) continue;
        fprintf(f, "%s%s %s %.1f", known ? "" : lead, known ? "," : "tensor ceilings (dense, FP32 accumulate):",
                types_math_name((types_math)m), d->peak_tflops[m]);
        known++;
    }
    if (known)
        fprintf(f, " TFLOP/s (%d SMs x FLOP per clock per SM x %.3f GHz); %%peak of a row is of its own math%s\n",
                d->sms, d->sm_clock_khz / 1e6, tail);
    if (d->peaks_note[0]) fprintf(f, "%speaks: %s%s\n", lead, d->peaks_note, tail);
}

static void report_device_block(report *rp, const char *lead, const char *tail)
{
    const run_info *in = rp->info;
    const device_info *d = &in->dev;
    char drv[16], rt[16], cb[24];
    FILE *f = rp->out;
    report_version(drv, sizeof drv, d->driver_version);
    report_version(rt, sizeof rt, d->runtime_version);
    report_cublas_version(cb, sizeof cb, d->cublas_version);
    fprintf(f, "%scompare %s (commit %s), %s, seed %llu, L2 flush %s%s\n", lead, COMPARE_VERSION, in->git_commit,
            in->timestamp, in->seed, in->l2_flush ? "on" : "off", tail);
    if (in->l2_flush) fprintf(f, "%s  (a %.0f MiB memset before every sample)%s\n", lead, rp->flush_bytes / 1048576.0, tail);
    if (in->interleave)
        fprintf(f, "%stiming: interleaved (each case's variants checked first, then timed in rounds of one sample "
                   "each; --sequential times them one after another)%s\n", lead, tail);
    else
        fprintf(f, "%stiming: sequential (each variant's samples together, one variant after another: under a power "
                   "cap the ones timed later pay for the heat of those before)%s\n", lead, tail);
    fprintf(f, "%sdevice: %s, cc %d.%d, %d SMs, SM clock max %.0f MHz, memory %.0f MHz x %d-bit, L2 %.1f MiB, %.1f GiB%s\n",
            lead, d->name, d->cc_major, d->cc_minor, d->sms, d->sm_clock_khz / 1e3, d->mem_clock_khz / 1e3,
            d->bus_width_bits, d->l2_bytes / 1048576.0, d->total_mem_bytes / 1073741824.0, tail);
    fprintf(f, "%sdriver %s, CUDA runtime %s, cuBLAS %s", lead, drv, rt, cb);
    if (d->pcie_gen > 0) fprintf(f, ", PCIe gen %d x%d", d->pcie_gen, d->pcie_width);
    if (d->copy_engines > 0) fprintf(f, ", %d copy engine%s", d->copy_engines, d->copy_engines == 1 ? "" : "s");
    fprintf(f, "%s\n", tail);
    if (d->clocks_note[0])
        fprintf(f, "%sclocks: not observed (%s): rows carry no clocks, %%peak uses the maximum%s\n", lead,
                d->clocks_note, tail);
    else
        fprintf(f, "%sclocks: observed through NVML while each variant is timed (never set); %%peak uses the "
                   "measured SM clock%s\n", lead, tail);
    fprintf(f, "%sceilings: FP32 %.1f TFLOP/s (%d SMs x %d lanes x 2 x %.3f GHz), memory %.0f GB/s (%.0f MHz x 2 x %d bit / 8)%s\n",
            lead, d->peak_fp32_tflops, d->sms, d->fp32_lanes_per_sm, d->sm_clock_khz / 1e6, d->peak_mem_gbps,
            d->mem_clock_khz / 1e3, d->bus_width_bits, tail);
    report_tensor_ceilings(f, lead, tail, d);
}

void report_begin(report *rp, FILE *out, cli_format format, const run_info *info, long long flush_bytes)
{
    memset(rp, 0, sizeof *rp);
    rp->out = out;
    rp->format = format;
    rp->info = info;
    rp->flush_bytes = info->l2_flush ? flush_bytes : 0;
    if (format == CLI_FORMAT_JSON) {
        const device_info *d = &info->dev;
        FILE *f = out;
        fprintf(f, "{\n  \"tool\": \"compare\",\n  \"version\": ");
        report_json_string(f, COMPARE_VERSION);
        fprintf(f, ",\n  \"timestamp\": ");
        report_json_string(f, info->timestamp);
        fprintf(f, ",\n  \"git_commit\": ");
        report_json_string(f, info->git_commit);
        fprintf(f, ",\n  \"seed\": %llu,\n  \"l2_flush\": %d,\n  \"interleave\": %d,\n  \"flush_bytes\": %lld,\n", info->seed,
                info->l2_flush, info->interleave, rp->flush_bytes);
        fprintf(f, "  \"device\": {\"name\": ");
        report_json_string(f, d->name);
        fprintf(f,
                ", \"cc\": \"%d.%d\", \"sms\": %d, \"sm_clock_khz\": %.0f, \"mem_clock_khz\": %.0f, "
                "\"bus_width_bits\": %d, \"l2_bytes\": %lld, \"total_mem_bytes\": %lld, \"driver\": %d, "
                "\"cuda_runtime\": %d, \"cublas_version\": %d, \"fp32_lanes_per_sm\": %d, "
                "\"peak_fp32_tflops\": %.9g, \"peak_mem_gbps\": %.9g, \"peak_tflops\": {",
                d->cc_major, d->cc_minor, d->sms, d->sm_clock_khz, d->mem_clock_khz, d->bus_width_bits, d->l2_bytes,
                d->total_mem_bytes, d->driver_version, d->runtime_version, d->cublas_version, d->fp32_lanes_per_sm,
                d->peak_fp32_tflops, d->peak_mem_gbps);
        for (int m = 0; m < TYPES_MATH_COUNT; m++) {
            fprintf(f, "%s\"%s\": ", m ? ", " : "", types_math_name((types_math)m));
            if (d->peak_tflops[m] > 0) fprintf(f, "%.9g", d->peak_tflops[m]);
            else fputs("null", f);
        }
        fprintf(f, "}, \"peaks_note\": ");
        report_json_string(f, d->peaks_note);
        fprintf(f, "},\n  \"rows\": [");
        fflush(f);
        return;
    }
    report_device_block(rp, "", format == CLI_FORMAT_MD ? "  " : ""); /* md: hard line breaks */
    fflush(out);
}

/* A number cell: "-" (table) or "" (md) when not applicable. */
static void report_num(char *buf, size_t len, double v, int decimals, const char *na)
{
    if (!(v >= 0)) snprintf(buf, len, "%s", na);
    else if (isinf(v)) snprintf(buf, len, "inf");
    else if (decimals < 0) snprintf(buf, len, "%.2e", v); /* scientific */
    else snprintf(buf, len, "%.*f", decimals, v);
}

static void report_json_num(FILE *f, const char *key, double v)
{
    char b[64];
    if (!(v >= 0) || isinf(v)) {
        fprintf(f, ", \"%s\": null", key);
        return;
    }
    csv_format_number(b, sizeof b, v); /* the same digits as the CSV cell */
    fprintf(f, ", \"%s\": %s", key, b);
}

static void report_json_row(report *rp, const result_row *r)
{
    FILE *f = rp->out;
    int timed = r->status == STATUS_OK && r->time_ms.count > 0;
    fprintf(f, "%s\n    {\"op\": ", rp->rows_written ? "," : "");
    report_json_string(f, r->op);
    fprintf(f, ", \"variant\": ");
    report_json_string(f, r->variant);
    fprintf(f, ", \"library\": %d, \"math\": ", r->library);
    report_json_string(f, r->math);
    fprintf(f, ", \"source\": ");
    report_json_string(f, r->source);
    fprintf(f, ", \"kernel\": ");
    report_json_string(f, r->kernel);
    fprintf(f, ", \"kernel_note\": ");
    report_json_string(f, r->kernel_note);
    fprintf(f, ", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"elems\": %lld, \"dist\": ", r->m, r->n, r->k, r->elems);
    report_json_string(f, r->dist);
    fprintf(f, ", \"shape\": ");
    report_json_string(f, r->shape);
    fprintf(f, ", \"samples\": %zu", timed ? r->time_ms.count : 0);
    report_json_num(f, "time_ms_median", timed ? r->time_ms.median : -1);
    report_json_num(f, "time_ms_min", timed ? r->time_ms.min : -1);
    report_json_num(f, "time_ms_q1", timed ? r->time_ms.q1 : -1);
    report_json_num(f, "time_ms_q3", timed ? r->time_ms.q3 : -1);
    report_json_num(f, "spread_pct", timed ? r->time_ms.spread_pct : -1);
    report_json_num(f, "tflops", timed ? r->tflops : -1);
    report_json_num(f, "gbps", timed ? r->gbps : -1);
    report_json_num(f, "gkeys_per_s", timed ? r->gkeys : -1);
    fprintf(f, ", \"ref_library\": ");
    report_json_string(f, r->library ? NULL : r->ref_library);
    report_json_num(f, "pct_of_ref_library", timed ? r->pct_ref : -1);
    fprintf(f, ", \"best_library\": ");
    report_json_string(f, r->library ? NULL : r->best_library);
    report_json_num(f, "pct_of_best_library", timed ? r->pct_best : -1);
    report_json_num(f, "pct_of_peak", timed ? r->pct_peak : -1);
    fprintf(f, ", \"peak_math\": ");
    report_json_string(f, r->peak_math);
    report_json_num(f, "peak_tflops", timed ? r->peak_tflops : -1);
    report_json_num(f, "rel_err", r->rel_err);
    report_json_num(f, "tolerance", r->rel_err >= 0 ? r->tolerance : -1);
    fprintf(f, ", \"status\": \"%s\"", status_name(r->status));
    report_json_num(f, "flops", r->flops);
    report_json_num(f, "bytes", r->bytes);
    report_json_num(f, "sm_clock_mhz", r->sm_clock_mhz);
    report_json_num(f, "sm_clock_min_mhz", r->sm_clock_min_mhz);
    report_json_num(f, "mem_clock_mhz", r->mem_clock_mhz);
    report_json_num(f, "temp_c", r->temp_c);
    report_json_num(f, "power_w", r->power_w);
    fprintf(f, ", \"throttle\": ");
    report_json_string(f, r->throttle);
    fprintf(f, ", \"timing\": ");
    report_json_string(f, r->timing);
    fprintf(f, ", \"interleaved\": %d, \"message\": ", r->interleaved);
    report_json_string(f, r->message);
    fprintf(f, ", \"note\": ");
    report_json_string(f, r->note);
    /* the roofline and --metrics columns, named as in the CSV */
    report_json_num(f, "intensity", r->intensity);
    fprintf(f, ", \"bound\": ");
    report_json_string(f, r->bound);
    report_json_num(f, "dram_read_bytes", r->dram_read_bytes);
    report_json_num(f, "dram_write_bytes", r->dram_write_bytes);
    report_json_num(f, "l2_bytes", r->l2_bytes);
    report_json_num(f, "flops_measured", r->flops_measured);
    report_json_num(f, "occupancy_pct", r->occupancy_pct);
    report_json_num(f, "sm_throughput_pct", r->sm_throughput_pct);
    report_json_num(f, "intensity_measured", r->intensity_measured);
    fprintf(f, ", \"metrics_note\": ");
    report_json_string(f, r->metrics_note);
    fprintf(f, ", \"hint\": ");
    report_json_string(f, r->hint);
    fprintf(f, ", \"samples_ms\": [");
    for (size_t i = 0; timed && r->samples_ms && i < r->time_ms.count; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", r->samples_ms[i]);
    fprintf(f, "]}");
    rp->rows_written++;
}

/* The timed row of `variant` among rows[0 .. count), or NULL. */
static const result_row *report_timed_row(const result_row *rows, int count, const char *variant)
{
    for (int j = 0; variant && j < count; j++)
        if (strcmp(rows[j].variant, variant) == 0 && rows[j].status == STATUS_OK && rows[j].time_ms.count > 0)
            return &rows[j];
    return NULL;
}

/* A hand row whose mean SM clock differs from that of the library row it is
 * a percent of by more than REPORT_CLOCK_GAP_PCT: one line each, since the
 * percent then compares the two kernels at different clocks (one timed after
 * the GPU had slowed down for power or heat, typically), not only as kernels. */
#define REPORT_CLOCK_GAP_PCT 5.0
static void report_clock_gap(FILE *f, int md, const result_row *r, const result_row *rows, int count)
{
    if (r->library || r->status != STATUS_OK || r->time_ms.count == 0 || r->sm_clock_mhz <= 0) return;
    const result_row *lib[2] = {report_timed_row(rows, count, r->ref_library),
                                report_timed_row(rows, count, r->best_library)};
    for (int i = 0; i < 2; i++) {
        const result_row *l = lib[i];
        if (!l || l->sm_clock_mhz <= 0 || (i == 1 && l == lib[0])) continue;
        if (fabs(r->sm_clock_mhz - l->sm_clock_mhz) * 100.0 <= REPORT_CLOCK_GAP_PCT * l->sm_clock_mhz) continue;
        fprintf(f, "%s  ~ %s ran at %.0f MHz (mean SM clock), %s at %.0f MHz: the percent against it compares the "
                   "two at different clocks (interleaved timing, the default, times a case's variants alike)\n",
                md ? ">" : "", r->variant, r->sm_clock_mhz, l->variant, l->sm_clock_mhz);
    }
}

/* A timed row of a compute op whose math has no ceiling on this GPU: its
 * %peak is empty; one line per such math says why. */
static int report_lacks_peak(const result_row *r)
{
    return r->peak == OP_PEAK_COMPUTE && r->status == STATUS_OK && r->time_ms.count > 0 && r->flops > 0 &&
           r->pct_peak < 0;
}

static void report_missing_peaks(FILE *f, int md, const result_row *rows, int count)
{
    for (int i = 0; i < count; i++) {
        int seen = 0;
        if (!report_lacks_peak(&rows[i])) continue;
        for (int j = 0; j < i && !seen; j++)
            seen = report_lacks_peak(&rows[j]) && strcmp(rows[j].math ? rows[j].math : "", rows[i].math ? rows[i].math : "") == 0;
        if (seen) continue;
        fprintf(f, "%s  %%peak of %s rows left empty: the peak table has no ceiling for %s on this GPU (device block)\n",
                md ? ">" : "", rows[i].math ? rows[i].math : "?", rows[i].math ? rows[i].math : "their math");
    }
}

/* --metrics: per row its counters in one line (or why there are none, once
 * for a run of rows with the same reason), then its hints. */
static void report_measured(FILE *f, int md, const result_row *rows, int count)
{
    const char *said = NULL;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        if (r->dram_read_bytes >= 0) {
            fprintf(f, "%s  %s: DRAM %.1f MB read, %.1f MB written", md ? ">" : "", r->variant, r->dram_read_bytes / 1e6,
                    r->dram_write_bytes >= 0 ? r->dram_write_bytes / 1e6 : -1.0);
            if (r->bytes > 0)
                fprintf(f, " (%.2fx the minimum)", (r->dram_read_bytes + (r->dram_write_bytes > 0 ? r->dram_write_bytes : 0)) / r->bytes);
            if (r->l2_bytes >= 0) fprintf(f, ", L2 %.1f MB", r->l2_bytes / 1e6);
            if (r->occupancy_pct >= 0) fprintf(f, ", occupancy %.0f%%", r->occupancy_pct);
            if (r->sm_throughput_pct >= 0) fprintf(f, ", SM throughput %.0f%%", r->sm_throughput_pct);
            if (r->intensity_measured >= 0)
                fprintf(f, ", %.2f FLOP/B measured (%.2f analytic)", r->intensity_measured, r->intensity);
            fputc('\n', f);
        }
        if (r->metrics_note[0] && (!said || strcmp(said, r->metrics_note) != 0)) {
            fprintf(f, "%s  metrics%s%s: %s\n", md ? ">" : "", r->dram_read_bytes >= 0 ? " of " : "",
                    r->dram_read_bytes >= 0 ? r->variant : "", r->metrics_note);
            said = r->metrics_note;
        }
        if (r->hint[0]) fprintf(f, "%s  ? %s: %s\n", md ? ">" : "", r->variant, r->hint);
    }
}

void report_case(report *rp, const result_row *rows, int count)
{
    FILE *f = rp->out;
    char title[128];
    int md = rp->format == CLI_FORMAT_MD;
    const char *ref = NULL, *best = NULL, *unit;
    if (count <= 0) return;
    if (rp->format == CLI_FORMAT_JSON) {
        for (int i = 0; i < count; i++) report_json_row(rp, &rows[i]);
        fflush(f);
        return;
    }
    for (int i = 0; i < count && !ref; i++)
        if (!rows[i].library) {
            ref = rows[i].ref_library;
            best = rows[i].best_library;
        }
    unit = catalog_rate_unit(rows[0].rate);
    int width = 13; /* the variant column: the longest name of the case */
    for (int i = 0; i < count; i++)
        if ((int)strlen(rows[i].variant) > width) width = (int)strlen(rows[i].variant);
    snprintf(title, sizeof title, "%s", rows[0].case_label);
    fprintf(f, "\n%s%s", md ? "#### " : "", title);
    if (ref) fprintf(f, "  (%%ref = %% of %s, %%best = %% of %s%s)", ref, best,
                     rows[0].peak == OP_PEAK_COMPUTE  ? ", %peak = % of the dense peak of the row's math"
                     : rows[0].peak == OP_PEAK_MEMORY ? ", %peak = % of memory bandwidth"
                                                       : "");
    fprintf(f, "\n");
    /* --metrics: a `bound` column before the status (the CSV has it always) */
    const int bound_col = rp->info->metrics;
    if (md) {
        fprintf(f, "\n| variant | math | median ms | spread %% | %s | %% ref | %% best | %% peak | rel err | %sstatus |\n", unit,
                bound_col ? "bound | " : "");
        fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|%s---|\n", bound_col ? "---|" : "");
    } else {
        fprintf(f, "%-*s %-5s %11s %8s %9s %7s %7s %7s %9s  %s%s\n", width, "variant", "math", "median ms", "spread%", unit,
                "%ref", "%best", "%peak", "rel err", bound_col ? "bound        " : "", "status");
    }
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        const char *na = md ? "" : "-";
        int timed = r->status == STATUS_OK && r->time_ms.count > 0;
        char med[32], spr[32], thr[32], pr[32], pb[32], pk[32], err[32];
        double tp = plan_row_throughput(r);
        report_num(med, sizeof med, timed ? r->time_ms.median : -1, 4, na);
        report_num(spr, sizeof spr, timed ? r->time_ms.spread_pct : -1, 1, na);
        report_num(thr, sizeof thr, timed ? tp : -1, tp >= 100 ? 0 : 2, na);
        report_num(pr, sizeof pr, timed ? r->pct_ref : -1, 1, na);
        report_num(pb, sizeof pb, timed ? r->pct_best : -1, 1, na);
        report_num(pk, sizeof pk, timed ? r->pct_peak : -1, 1, na);
        report_num(err, sizeof err, r->rel_err, -1, na);
        /* a mark after the status: the row ran another kernel (a fallback, note
         * below) or was measured while the GPU slowed down for power or heat */
        const char *mark = r->kernel_note[0] && r->throttled ? " *!" : r->kernel_note[0] ? " *" : r->throttled ? " !" : "";
        char bnd[40] = "";
        if (bound_col && md) snprintf(bnd, sizeof bnd, "%s | ", r->bound);
        else if (bound_col) snprintf(bnd, sizeof bnd, "%-12s ", r->bound[0] ? r->bound : na);
        if (md)
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", r->variant, r->math, med, spr, thr, pr,
                    pb, pk, err, bnd, status_name(r->status), mark);
        else
            fprintf(f, "%-*s %-5s %11s %8s %9s %7s %7s %7s %9s  %s%s%s\n", width, r->variant, r->math, med, spr, thr, pr, pb,
                    pk, err, bnd, status_name(r->status), mark);
    }
    {
        /* the clocks the case's rows ran at: the range of their means */
        double lo = 1e30, hi = -1, mlo = 1e30, mhi = -1, t = -1, plo = 1e30, phi = -1;
        for (int i = 0; i < count; i++) {
            const result_row *r = &rows[i];
            if (r->sm_clock_mhz <= 0) continue;
            lo = r->sm_clock_mhz < lo ? r->sm_clock_mhz : lo;
            hi = r->sm_clock_mhz > hi ? r->sm_clock_mhz : hi;
            if (r->mem_clock_mhz > 0) {
                mlo = r->mem_clock_mhz < mlo ? r->mem_clock_mhz : mlo;
                mhi = r->mem_clock_mhz > mhi ? r->mem_clock_mhz : mhi;
            }
            t = r->temp_c > t ? r->temp_c : t;
            if (r->power_w > 0) {
                plo = r->power_w < plo ? r->power_w : plo;
                phi = r->power_w > phi ? r->power_w : phi;
            }
        }
        if (hi > 0) {
            fprintf(f, "%s  clocks while timed: SM %.0f-%.0f MHz (max %.0f)", md ? ">" : "", lo, hi,
                    rp->info->dev.max_sm_clock_mhz > 0 ? rp->info->dev.max_sm_clock_mhz
                                                       : rp->info->dev.sm_clock_khz / 1e3);
            if (mhi > 0) fprintf(f, ", memory %.0f-%.0f MHz", mlo, mhi);
            if (t >= 0) fprintf(f, ", up to %.0f C", t);
            if (phi > 0) fprintf(f, ", %.0f-%.0f W", plo, phi);
            fputc('\n', f);
        }
    }
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        if (!r->speedup_vs || r->status != STATUS_OK || r->time_ms.count == 0) continue;
        for (int j = 0; j < count; j++)
            if (strcmp(rows[j].variant, r->speedup_vs) == 0 && rows[j].status == STATUS_OK && rows[j].time_ms.count)
                fprintf(f, "%s  %s: %.2fx the speed of %s\n", md ? ">" : "", r->variant,
                        rows[j].time_ms.median / r->time_ms.median, rows[j].variant);
    }
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        if (r->kernel_note[0])
            fprintf(f, "%s  * %s ran %s: %s\n", md ? ">" : "", r->variant, r->kernel[0] ? r->kernel : "another kernel",
                    r->kernel_note);
        if (r->throttled)
            fprintf(f, "%s  ! %s: measured while the GPU slowed its clocks (%s; SM clock %.0f MHz mean, %.0f min%s)\n",
                    md ? ">" : "", r->variant, r->throttle, r->sm_clock_mhz, r->sm_clock_min_mhz,
                    r->resampled ? ", after timing it again" : "");
        report_clock_gap(f, md, r, rows, count);
        if (r->note[0]) fprintf(f, "%s  %s: %s\n", md ? ">" : "", r->variant, r->note);
        if (strcmp(r->timing, "ungated") == 0)
            fprintf(f, "%s  %s: timed without the timing gate (its call waits on its stream, or the gate had no "
                       "mapped memory): launch latency and host time may be in its samples\n",
                    md ? ">" : "", r->variant);
    }
    report_missing_peaks(f, md, rows, count);
    if (rp->info->metrics) report_measured(f, md, rows, count);
    for (int i = 0; i < count; i++) {
        if (!rows[i].message[0]) continue;
        fprintf(f, "%s  %s %s: ", md ? ">" : "", rows[i].variant, status_name(rows[i].status));
        for (const char *p = rows[i].message; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f); /* one line */
        fputc('\n', f);
    }
    fflush(f);
}

void report_end(report *rp, int exit_status)
{
    if (rp->format == CLI_FORMAT_JSON) {
        fprintf(rp->out, "\n  ],\n  \"exit_status\": %d\n}\n", exit_status);
    }
    fflush(rp->out);
}

void report_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}
