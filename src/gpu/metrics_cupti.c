/* src/gpu/metrics_cupti.c: see metrics_cupti.h. The CUPTI calls in the
 * order of NVIDIA's range_profiling sample (CUDA 13): profiler initialise,
 * device support, chip name, counter availability, host object and config
 * image (once per session), then per measurement: enable on the context,
 * counter-data image, set config (user range, user replay), the passes,
 * decode, evaluate, disable, profiler de-initialise. */
#include "metrics_cupti.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_cupti_lib.h" /* METRICS_HAVE_CUPTI where CUPTI's headers are */
#include "status.h"

/* The metrics, by index (metrics_table below names them). */
enum { MX_DRAM_READ, MX_DRAM_WRITE, MX_L2, MX_FFMA, MX_FADD, MX_FMUL, MX_TENSOR, MX_GMMA, MX_OCC, MX_SMTP, MX_CONF,
       MX_WAVE, MX_COUNT };

/* A value as the row keeps it: a finite non-negative figure, else -1. */
static double metrics_value(double v) { return isfinite(v) && v >= 0 ? v : -1.0; }

/* Fills out from the values of the metrics idx[0 .. n) (indices into metrics_table). */
static void metrics_fill(metrics_values *out, const int *idx, const double *vals, int n)
{
    double v[MX_COUNT];
    for (int i = 0; i < MX_COUNT; i++) v[i] = -1.0;
    for (int i = 0; i < n; i++) v[idx[i]] = metrics_value(vals[i]);
    out->dram_read_bytes = v[MX_DRAM_READ];
    out->dram_write_bytes = v[MX_DRAM_WRITE];
    out->l2_bytes = v[MX_L2];
    out->flops_fp32 = v[MX_FFMA] >= 0 && v[MX_FADD] >= 0 && v[MX_FMUL] >= 0 ? 2.0 * v[MX_FFMA] + v[MX_FADD] + v[MX_FMUL]
                                                                            : -1.0;
    out->tensor_inst = v[MX_TENSOR];
    out->gmma_inst = v[MX_GMMA];
    out->occupancy_pct = v[MX_OCC];
    out->sm_throughput_pct = v[MX_SMTP];
    out->smem_conflicts = v[MX_CONF];
    out->smem_wavefronts = v[MX_WAVE];
}

static void metrics_clear(metrics_values *out)
{
    metrics_fill(out, NULL, NULL, 0);
    out->passes = 0;
}

#ifndef METRICS_HAVE_CUPTI

struct metrics_cupti {
    int ordinal;
};

metrics_cupti *metrics_cupti_open(int ordinal)
{
    metrics_cupti *m = calloc(1, sizeof *m);
    if (m) m->ordinal = ordinal;
    return m;
}

int metrics_cupti_measure(metrics_cupti *m, const metrics_work *w, metrics_values *out, char *note, size_t note_len)
{
    (void)m;
    (void)w;
    metrics_clear(out);
    snprintf(note, note_len, "not measured: compare was built without CUPTI's headers (cupti_range_profiler.h)");
    return -1;
}

void metrics_cupti_close(metrics_cupti *m) { free(m); }

#else

static pthread_mutex_t metrics_lock = PTHREAD_MUTEX_INITIALIZER;
static const metrics_fns *metrics_lib; /* CUPTI's entry points, once loaded */

/* The metrics in one table: name, and 1 for the ones CUPTI collects by
 * patching the kernel's SASS (a config without them is the fallback). */
static const struct {
    const char *name;
    int sass;     /* collected by SASS patching */
    int optional; /* only some chips have it: not named when absent */
} metrics_table[MX_COUNT] = {
    [MX_DRAM_READ] = {METRICS_DRAM_READ, 0, 0},     [MX_DRAM_WRITE] = {METRICS_DRAM_WRITE, 0, 0},
    [MX_L2] = {METRICS_L2_BYTES, 0, 0},             [MX_FFMA] = {METRICS_FFMA, 1, 0},
    [MX_FADD] = {METRICS_FADD, 1, 0},               [MX_FMUL] = {METRICS_FMUL, 1, 0},
    [MX_TENSOR] = {METRICS_TENSOR_INST, 0, 0},      [MX_GMMA] = {METRICS_GMMA_INST, 0, 1},
    [MX_OCC] = {METRICS_OCCUPANCY, 0, 0},           [MX_SMTP] = {METRICS_SM_THROUGHPUT, 0, 0},
    [MX_CONF] = {METRICS_SMEM_CONFLICTS, 0, 0},     [MX_WAVE] = {METRICS_SMEM_WAVEFRONTS, 0, 0},
};

// ---------------------------------------------------------------------------
// the session

/* One config image: the metrics it collects (indices into metrics_table),
 * their names, and the host object that made it (it evaluates them). */
typedef struct {
    int idx[MX_COUNT];
    const char *names[MX_COUNT];
    int n;
    metrics_host_object *host;
    uint8_t *image;
    size_t image_size;
    size_t passes;
} metrics_config;

struct metrics_cupti {
    int ordinal;
    int state;                 /* 0 not set up yet, 1 ready, -1 never measures (why says) */
    char why[192];             /* the reason, state -1 */
    char lacks[160];           /* metrics this chip or CUPTI does not have ("" none) */
    char sass_why[160];        /* why the SASS (FLOP) metrics are out, "" when in */
    uint8_t *avail;            /* the counter availability image */
    metrics_config cfg[2];     /* [0] every metric the chip has; [1] without the SASS ones (when [0] has some) */
    int ncfg;
    int first;                 /* the config tried first (1 once the SASS one failed) */
};

metrics_cupti *metrics_cupti_open(int ordinal)
{
    metrics_cupti *m = calloc(1, sizeof *m);
    if (m) m->ordinal = ordinal;
    return m;
}

static void metrics_config_free(metrics_config *c)
{
    if (c->host) {
        metrics_host_deinit_params p = {METRICS_HOST_SIZE(metrics_host_deinit_params, host_object), NULL, c->host};
        (void)metrics_lib->host_deinitialize(&p);
    }
    free(c->image);
    memset(c, 0, sizeof *c);
}

/* A host object for the chip (CUPTI allocates it). */
static CUptiResult metrics_host_new(const char *chip, const uint8_t *avail, metrics_host_object **out)
{
    metrics_host_init_params p;
    memset(&p, 0, sizeof p);
    p.struct_size = METRICS_HOST_SIZE(metrics_host_init_params, host_object);
    p.profiler_type = METRICS_HOST_RANGE_PROFILER;
    p.chip_name = chip;
    p.counter_availability_image = avail;
    CUptiResult r = metrics_lib->host_initialize(&p);
    *out = r == CUPTI_SUCCESS ? p.host_object : NULL;
    return r;
}

/* Builds config c of the metrics idx[0 .. n): its host object, the metrics
 * added, the image and its pass count. CUPTI_SUCCESS or the failing call's status in *call. */
static CUptiResult metrics_config_make(metrics_config *c, const char *chip, const uint8_t *avail, const int *idx,
                                       int n, const char **call)
{
    CUptiResult r;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < n; i++) {
        c->idx[i] = idx[i];
        c->names[i] = metrics_table[idx[i]].name;
    }
    c->n = n;
    *call = "cuptiProfilerHostInitialize";
    if ((r = metrics_host_new(chip, avail, &c->host)) != CUPTI_SUCCESS) return r;
    metrics_host_add_params add = {METRICS_HOST_SIZE(metrics_host_add_params, num_metrics), NULL, c->host, c->names,
                                   (size_t)n};
    *call = "cuptiProfilerHostConfigAddMetrics";
    if ((r = metrics_lib->host_add_metrics(&add)) != CUPTI_SUCCESS) return r;
    metrics_host_config_size_params sz = {METRICS_HOST_SIZE(metrics_host_config_size_params, config_image_size), NULL,
                                          c->host, 0};
    *call = "cuptiProfilerHostGetConfigImageSize";
    if ((r = metrics_lib->host_config_size(&sz)) != CUPTI_SUCCESS) return r;
    c->image = calloc(sz.config_image_size ? sz.config_image_size : 1, 1);
    c->image_size = sz.config_image_size;
    if (!c->image) return CUPTI_ERROR_OUT_OF_MEMORY;
    metrics_host_config_params img = {METRICS_HOST_SIZE(metrics_host_config_params, config_image), NULL, c->host,
                                      c->image_size, c->image};
    *call = "cuptiProfilerHostGetConfigImage";
    if ((r = metrics_lib->host_config(&img)) != CUPTI_SUCCESS) return r;
    metrics_host_passes_params np = {METRICS_HOST_SIZE(metrics_host_passes_params, num_passes), NULL, c->image_size,
                                     c->image, 0};
    *call = "cuptiProfilerHostGetNumOfPasses";
    if ((r = metrics_lib->host_passes(&np)) != CUPTI_SUCCESS) return r;
    c->passes = np.num_passes;
    return CUPTI_SUCCESS;
}

/* Marks the session as never measuring, for reason `why`. */
static void metrics_give_up(metrics_cupti *m, const char *why)
{
    m->state = -1;
    snprintf(m->why, sizeof m->why, "%s", why);
}

/* The device's support for the range profiler; 0, or -1 with why set. */
static int metrics_check_device(metrics_cupti *m)
{
    CUdevice dev = 0;
    CUpti_Profiler_DeviceSupported_Params p;
    char why[192];
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    if (metrics_lib->cu_device_get(&dev, m->ordinal) != CUDA_SUCCESS) {
        metrics_give_up(m, "not measured: cuDeviceGet failed");
        return -1;
    }
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUptiResult r = metrics_lib->device_supported(&p);
    if (r != CUPTI_SUCCESS) {
        metrics_cupti_reason(why, sizeof why, r, "cuptiProfilerDeviceSupported");
        metrics_give_up(m, why);
        return -1;
    }
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return 0;
    const char *what = p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                           ? (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED
                                  ? "a virtualised GPU (vGPU) whose profiling is not enabled by its host"
                                  : "a virtualised GPU (vGPU) without profiling support")
                       : p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "confidential computing is on"
                       : p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED                 ? "a crypto-mining processor"
                       : p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED                 ? "WSL without profiling"
                       : p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED                 ? "SLI is on"
                       : p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                           ? "an architecture the range profiler does not support (before sm_70)"
                           : "unknown";
    snprintf(why, sizeof why, "counters not available on this device: %s (cuptiProfilerDeviceSupported)", what);
    metrics_give_up(m, why);
    return -1;
}

/* Appends name to the comma-separated list buf. */
static void metrics_list_add(char *buf, size_t len, const char *name)
{
    size_t used = strlen(buf);
    if (used < len) snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* The one-time set-up (profiler initialised): device support, chip, availability, configs. */
static int metrics_setup(metrics_cupti *m, CUcontext ctx)
{
    char why[192];
    const char *call = "";
    CUptiResult r;
    if (metrics_check_device(m)) return -1;
    CUpti_Device_GetChipName_Params cn;
    memset(&cn, 0, sizeof cn);
    cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cn.deviceIndex = (size_t)m->ordinal;
    if ((r = metrics_lib->chip_name(&cn)) != CUPTI_SUCCESS || !cn.pChipName) {
        metrics_cupti_reason(why, sizeof why, r, "cuptiDeviceGetChipName");
        metrics_give_up(m, why);
        return -1;
    }
    CUpti_Profiler_GetCounterAvailability_Params ca;
    memset(&ca, 0, sizeof ca);
    ca.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ca.ctx = ctx;
    if ((r = metrics_lib->counter_availability(&ca)) == CUPTI_SUCCESS) {
        m->avail = calloc(ca.counterAvailabilityImageSize ? ca.counterAvailabilityImageSize : 1, 1);
        ca.pCounterAvailabilityImage = m->avail;
        if (!m->avail) r = CUPTI_ERROR_OUT_OF_MEMORY;
        else r = metrics_lib->counter_availability(&ca);
    }
    if (r != CUPTI_SUCCESS) {
        metrics_cupti_reason(why, sizeof why, r, "cuptiProfilerGetCounterAvailability");
        metrics_give_up(m, why);
        return -1;
    }
    /* which metrics this chip has: asked of a host object, one by one */
    metrics_host_object *probe = NULL;
    if ((r = metrics_host_new(cn.pChipName, m->avail, &probe)) != CUPTI_SUCCESS) {
        metrics_cupti_reason(why, sizeof why, r, "cuptiProfilerHostInitialize");
        metrics_give_up(m, why);
        return -1;
    }
    int all[MX_COUNT], hw[MX_COUNT], nall = 0, nhw = 0;
    for (int i = 0; i < MX_COUNT; i++) {
        metrics_host_properties_params pp;
        memset(&pp, 0, sizeof pp);
        pp.struct_size = METRICS_HOST_SIZE(metrics_host_properties_params, metric_type);
        pp.host_object = probe;
        pp.metric_name = metrics_table[i].name;
        if (metrics_lib->host_properties(&pp) != CUPTI_SUCCESS) {
            if (!metrics_table[i].optional) metrics_list_add(m->lacks, sizeof m->lacks, metrics_table[i].name);
            continue;
        }
        all[nall++] = i;
        if (!metrics_table[i].sass) hw[nhw++] = i;
    }
    metrics_host_deinit_params dp = {METRICS_HOST_SIZE(metrics_host_deinit_params, host_object), NULL, probe};
    (void)metrics_lib->host_deinitialize(&dp);
    if (nhw == 0) {
        metrics_give_up(m, "not measured: CUPTI knows none of the metrics on this chip");
        return -1;
    }
    /* [0] everything; [1] the hardware counters alone, the fallback when the SASS ones fail */
    m->ncfg = 0;
    if (nall > nhw) {
        if ((r = metrics_config_make(&m->cfg[0], cn.pChipName, m->avail, all, nall, &call)) == CUPTI_SUCCESS)
            m->ncfg = 1;
        else {
            snprintf(m->sass_why, sizeof m->sass_why, "%s from %s", metrics_cupti_result_name(r), call);
            metrics_config_free(&m->cfg[0]);
        }
    }
    if ((r = metrics_config_make(&m->cfg[m->ncfg], cn.pChipName, m->avail, hw, nhw, &call)) != CUPTI_SUCCESS) {
        metrics_config_free(&m->cfg[m->ncfg]);
        metrics_cupti_reason(why, sizeof why, r, call);
        metrics_give_up(m, why);
        return -1;
    }
    m->ncfg++;
    m->state = 1;
    return 0;
}

/* When each pass's reset (the L2 flush and clean) runs, both outside the
 * range: bit 1, after cuptiRangeProfilerStart (the default); bit 0, before
 * it (COMPARE_METRICS_RESET=before; both: each). Start leaves lines of its
 * own in L2 dirty; reset before it, the call's reads evict them inside the
 * range and dram__bytes_write counts them as the call's (a reduction that
 * writes a few KB read as MB: docs/metrics.md). The reset after Start writes
 * them back first. "before" is kept to show that effect. */
static int metrics_reset_order(void)
{
    const char *s = getenv("COMPARE_METRICS_RESET");
    if (s && strcmp(s, "before") == 0) return 1;
    if (s && strcmp(s, "both") == 0) return 3;
    return 2;
}

/* One measurement with config c on context ctx: 0 (out filled), -1 a CUPTI
 * failure (note; *final when it will never work here), -2 the work failed. */
static int metrics_run_config(const metrics_config *c, CUcontext ctx, const metrics_work *w, metrics_values *out,
                              char *note, size_t note_len, int *final)
{
    CUptiResult r;
    const char *call = "cuptiRangeProfilerEnable";
    uint8_t *data = NULL;
    size_t data_size = 0;
    int rc = -1, started = 0, pushed = 0;
    double vals[MX_COUNT];
    CUpti_RangeProfiler_Enable_Params en;
    memset(&en, 0, sizeof en);
    en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    en.ctx = ctx;
    if ((r = metrics_lib->rp_enable(&en)) != CUPTI_SUCCESS) goto fail;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds;
    memset(&ds, 0, sizeof ds);
    ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    ds.pRangeProfilerObject = en.pRangeProfilerObject;
    ds.pMetricNames = (const char **)c->names;
    ds.numMetrics = (size_t)c->n;
    ds.maxNumOfRanges = 1;
    ds.maxNumRangeTreeNodes = 1;
    call = "cuptiRangeProfilerGetCounterDataSize";
    if ((r = metrics_lib->rp_data_size(&ds)) != CUPTI_SUCCESS) goto fail;
    data_size = ds.counterDataSize;
    data = calloc(data_size ? data_size : 1, 1);
    if (!data) {
        r = CUPTI_ERROR_OUT_OF_MEMORY;
        goto fail;
    }
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di;
    memset(&di, 0, sizeof di);
    di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    di.pRangeProfilerObject = en.pRangeProfilerObject;
    di.counterDataSize = data_size;
    di.pCounterData = data;
    call = "cuptiRangeProfilerCounterDataImageInitialize";
    if ((r = metrics_lib->rp_data_init(&di)) != CUPTI_SUCCESS) goto fail;
    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = en.pRangeProfilerObject;
    sc.configSize = c->image_size;
    sc.pConfig = c->image;
    sc.counterDataImageSize = data_size;
    sc.pCounterDataImage = data;
    sc.range = CUPTI_UserRange;
    sc.replayMode = CUPTI_UserReplay;
    sc.maxRangesPerPass = 1;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    call = "cuptiRangeProfilerSetConfig";
    if ((r = metrics_lib->rp_set_config(&sc)) != CUPTI_SUCCESS) goto fail;
    /* the passes: reset (outside the range: after Start, see above), then the call inside it */
    const int order = metrics_reset_order();
    for (int all = 0; !all;) {
        if (out->passes >= 256) {
            snprintf(note, note_len, "not measured: CUPTI asked for more than 256 passes");
            goto out;
        }
        if ((order & 1) && w->reset(w->ctx) != 0) {
            snprintf(note, note_len, "the counter launch's reset failed: %.150s", status_message());
            rc = -2;
            goto out;
        }
        CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL,
                                               en.pRangeProfilerObject};
        call = "cuptiRangeProfilerStart";
        if ((r = metrics_lib->rp_start(&st)) != CUPTI_SUCCESS) goto fail;
        started = 1;
        if ((order & 2) && w->reset(w->ctx) != 0) {
            snprintf(note, note_len, "the counter launch's reset failed: %.150s", status_message());
            rc = -2;
            goto out;
        }
        CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, NULL,
                                                   en.pRangeProfilerObject, "compare"};
        call = "cuptiRangeProfilerPushRange";
        if ((r = metrics_lib->rp_push(&pu)) != CUPTI_SUCCESS) goto fail;
        pushed = 1;
        const int wst = w->run(w->ctx);
        CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL,
                                                  en.pRangeProfilerObject};
        call = "cuptiRangeProfilerPopRange";
        r = metrics_lib->rp_pop(&po);
        pushed = 0;
        CUpti_RangeProfiler_Stop_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = en.pRangeProfilerObject;
        CUptiResult rs = metrics_lib->rp_stop(&sp);
        started = 0;
        out->passes++;
        if (wst != 0) {
            snprintf(note, note_len, "the counter launch failed: %.160s", status_message());
            rc = -2;
            goto out;
        }
        if (r != CUPTI_SUCCESS) goto fail;
        call = "cuptiRangeProfilerStop";
        if ((r = rs) != CUPTI_SUCCESS) goto fail;
        all = sp.isAllPassSubmitted;
    }
    CUpti_RangeProfiler_DecodeData_Params dd;
    memset(&dd, 0, sizeof dd);
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = en.pRangeProfilerObject;
    call = "cuptiRangeProfilerDecodeData";
    if ((r = metrics_lib->rp_decode(&dd)) != CUPTI_SUCCESS) goto fail;
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi;
    memset(&gi, 0, sizeof gi);
    gi.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    gi.pCounterDataImage = data;
    gi.counterDataImageSize = data_size;
    call = "cuptiRangeProfilerGetCounterDataInfo";
    if ((r = metrics_lib->rp_data_info(&gi)) != CUPTI_SUCCESS) goto fail;
    if (dd.numOfRangeDropped != 0 || gi.numTotalRanges != 1) {
        snprintf(note, note_len, "not measured: CUPTI kept %zu ranges of 1 (%zu dropped)", gi.numTotalRanges,
                 dd.numOfRangeDropped);
        goto out;
    }
    metrics_host_evaluate_params ev = {METRICS_HOST_SIZE(metrics_host_evaluate_params, metric_values),
                                       NULL,
                                       c->host,
                                       data,
                                       data_size,
                                       0,
                                       (const char **)c->names,
                                       (size_t)c->n,
                                       vals};
    call = "cuptiProfilerHostEvaluateToGpuValues";
    if ((r = metrics_lib->host_evaluate(&ev)) != CUPTI_SUCCESS) goto fail;
    metrics_fill(out, c->idx, vals, c->n);
    rc = 0;
    goto out;
fail:
    metrics_cupti_reason(note, note_len, r, call);
    *final = metrics_cupti_result_final(r);
out:
    if (en.pRangeProfilerObject) {
        if (pushed) {
            CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL,
                                                      en.pRangeProfilerObject};
            (void)metrics_lib->rp_pop(&po);
        }
        if (started) {
            CUpti_RangeProfiler_Stop_Params sp;
            memset(&sp, 0, sizeof sp);
            sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
            sp.pRangeProfilerObject = en.pRangeProfilerObject;
            (void)metrics_lib->rp_stop(&sp);
        }
        CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL,
                                                  en.pRangeProfilerObject};
        (void)metrics_lib->rp_disable(&dis);
    }
    free(data);
    return rc;
}

/* The note of a measured row: the metrics it could not have. */
static void metrics_note_lacks(const metrics_cupti *m, const metrics_config *c, char *note, size_t note_len)
{
    int has_sass = 0;
    for (int i = 0; i < c->n; i++) has_sass |= metrics_table[c->idx[i]].sass;
    note[0] = '\0';
    if (!has_sass && m->sass_why[0])
        snprintf(note, note_len, "flops_measured empty: the FP32 instruction counters (sm__sass_*) failed: %.100s",
                 m->sass_why);
    else if (m->lacks[0])
        snprintf(note, note_len, "not on this chip (empty): %.150s", m->lacks);
}

static int metrics_measure_locked(metrics_cupti *m, const metrics_work *w, metrics_values *out, char *note,
                                  size_t note_len)
{
    CUcontext ctx = NULL;
    int rc = -1;
    const char *fake = getenv("COMPARE_METRICS_FAKE");
    if (fake && strcmp(fake, "denied") == 0) {
        /* the test hook: what CUPTI answers where the driver keeps counters
         * to admins, given before any CUPTI call so every machine answers alike */
        metrics_cupti_reason(note, note_len, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable");
        metrics_give_up(m, note);
        return -1;
    }
    if (!(metrics_lib = metrics_cupti_lib(note, note_len))) return -1;
    if (m->state < 0) {
        snprintf(note, note_len, "%s", m->why);
        return -1;
    }
    if (metrics_lib->cu_ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx) {
        snprintf(note, note_len, "not measured: no current CUDA context");
        return -1;
    }
    /* the profiler is up only while measuring: the timed samples run without its hooks */
    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    CUptiResult r = metrics_lib->profiler_initialize(&ip);
    if (r != CUPTI_SUCCESS) {
        metrics_cupti_reason(note, note_len, r, "cuptiProfilerInitialize");
        if (metrics_cupti_result_final(r)) metrics_give_up(m, note);
        return -1;
    }
    if (m->state == 0 && metrics_setup(m, ctx) != 0) {
        snprintf(note, note_len, "%s", m->why);
    } else {
        /* the config with the SASS metrics first; a CUPTI failure that is
         * not final falls back to the hardware counters alone */
        for (int i = m->first; i < m->ncfg; i++) {
            int final = 0;
            metrics_clear(out);
            rc = metrics_run_config(&m->cfg[i], ctx, w, out, note, note_len, &final);
            if (rc == 0) {
                metrics_note_lacks(m, &m->cfg[i], note, note_len);
                break;
            }
            if (final) metrics_give_up(m, note);
            if (rc == -2 || final) break;
            if (i + 1 < m->ncfg) { /* the SASS metrics failed: the hardware counters alone, from now on */
                snprintf(m->sass_why, sizeof m->sass_why, "%.150s", note);
                m->first = i + 1;
            }
        }
    }
    CUpti_Profiler_DeInitialize_Params dp = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
    (void)metrics_lib->profiler_deinitialize(&dp);
    return rc;
}

int metrics_cupti_measure(metrics_cupti *m, const metrics_work *w, metrics_values *out, char *note, size_t note_len)
{
    metrics_clear(out);
    note[0] = '\0';
    pthread_mutex_lock(&metrics_lock);
    const int rc = metrics_measure_locked(m, w, out, note, note_len);
    pthread_mutex_unlock(&metrics_lock);
    if (rc != 0) metrics_clear(out); /* nothing half-measured reaches a row */
    return rc;
}

void metrics_cupti_close(metrics_cupti *m)
{
    if (!m) return;
    for (int i = 0; i < m->ncfg; i++) metrics_config_free(&m->cfg[i]);
    free(m->avail);
    free(m);
}

#endif
