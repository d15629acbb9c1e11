/* src/gpu/clocks.c: NVML clock sampling (see clocks.h).
 *
 * NVML is reached through dlopen so that a machine without the driver builds,
 * starts and runs the comparison: the few entry points used are declared
 * below from NVML's documentation, never from nvml.h. Only queries: nothing
 * here sets a clock, a limit or a mode.
 *
 * The sampler thread waits on a condition variable with an absolute
 * CLOCK_MONOTONIC deadline rather than sleeping: ticks stay on a fixed grid
 * (a late tick does not shift the next ones; missed ticks are skipped, not
 * caught up in a burst) and clocks_end wakes it at once instead of waiting
 * out the period. Each sample is folded into running totals as it is taken,
 * so the summary covers every sample however long the window; the first
 * CLOCKS_TRACE_MAX are also kept one by one. The thread alone touches the
 * totals while it runs; begin's and end's samples are taken before it starts
 * and after it is joined, so no lock guards them. */
#include "clocks.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ---------------------------------------------------------------------------
// the part of NVML's C API used here

typedef int nvml_return;                    /* nvmlReturn_t (an enum) */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t (opaque) */

enum { NVML_RET_SUCCESS = 0, NVML_RET_NOT_SUPPORTED = 3 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 }; /* nvmlClockType_t */
enum { NVML_TEMPERATURE_GPU = 0 };              /* nvmlTemperatureSensors_t */

typedef struct {
    void *lib;                                                    /* dlopen handle */
    nvml_return (*init)(void);                                    /* nvmlInit_v2 */
    nvml_return (*shutdown)(void);                                /* nvmlShutdown */
    nvml_return (*handle_by_bus)(const char *, nvml_device *);    /* nvmlDeviceGetHandleByPciBusId_v2 */
    nvml_return (*clock)(nvml_device, int, unsigned *);           /* nvmlDeviceGetClockInfo, MHz */
    /* optional: NULL when the library lacks them */
    const char *(*error_string)(nvml_return);                     /* nvmlErrorString */
    nvml_return (*max_clock)(nvml_device, int, unsigned *);       /* nvmlDeviceGetMaxClockInfo, MHz */
    nvml_return (*temperature)(nvml_device, int, unsigned *);     /* nvmlDeviceGetTemperature, C */
    nvml_return (*power)(nvml_device, unsigned *);                /* nvmlDeviceGetPowerUsage, mW */
    nvml_return (*reasons)(nvml_device, unsigned long long *);    /* ...ClocksEventReasons, else
                                                                     ...ClocksThrottleReasons */
    nvml_return (*pcie_gen)(nvml_device, unsigned *);             /* nvmlDeviceGetCurrPcieLinkGeneration */
    nvml_return (*pcie_width)(nvml_device, unsigned *);           /* nvmlDeviceGetCurrPcieLinkWidth */
} clocks_nvml;

// ---------------------------------------------------------------------------
// state

typedef struct {
    int samples, errors, dropped;
    int sm_n, mem_n, temp_n, power_n, reasons_n; /* successful readings of each */
    double sm_sum, sm_min, sm_max, mem_sum, temp_max, power_mw_sum;
    unsigned long long reasons;
} clocks_totals;

struct clocks {
    clocks_nvml api;
    nvml_device dev;
    unsigned max_sm_mhz, max_mem_mhz;
    long long period_ns;
    int running;             /* a window is open: the thread runs */
    pthread_t thread;
    pthread_mutex_t mu;      /* guards stop */
    pthread_cond_t wake;     /* on CLOCK_MONOTONIC: the tick deadline, or stop */
    int stop;
    struct timespec t0;      /* clocks_begin's time */
    clocks_totals tot;
    int ntrace;
    clocks_sample trace[CLOCKS_TRACE_MAX];
};

static const struct {
    unsigned long long bit;
    const char *name;
} clocks_reason_names[] = {
    {CLOCKS_REASON_GPU_IDLE, "gpu_idle"},
    {CLOCKS_REASON_APP_CLOCKS, "app_clocks"},
    {CLOCKS_REASON_SW_POWER_CAP, "sw_power_cap"},
    {CLOCKS_REASON_HW_SLOWDOWN, "hw_slowdown"},
    {CLOCKS_REASON_SYNC_BOOST, "sync_boost"},
    {CLOCKS_REASON_SW_THERMAL, "sw_thermal"},
    {CLOCKS_REASON_HW_THERMAL, "hw_thermal"},
    {CLOCKS_REASON_HW_POWER_BRAKE, "hw_power_brake"},
    {CLOCKS_REASON_DISPLAY_CLOCKS, "display_clocks"},
};

// ---------------------------------------------------------------------------
// reason names

/* Appends sep and text at buf[at] (as much as fits); returns their length. */
static size_t clocks_append(char *buf, size_t len, size_t at, const char *sep, const char *text)
{
    int k = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, "%s%s", sep, text);
    return k > 0 ? (size_t)k : 0;
}

size_t clocks_reason_format(unsigned long long reasons, int include_idle, char *buf, size_t len)
{
    size_t n = 0;
    if (!include_idle) reasons &= ~CLOCKS_REASON_GPU_IDLE;
    if (len > 0) buf[0] = '\0';
    for (size_t i = 0; i < sizeof clocks_reason_names / sizeof clocks_reason_names[0]; i++) {
        if (!(reasons & clocks_reason_names[i].bit)) continue;
        n += clocks_append(buf, len, n, n ? "|" : "", clocks_reason_names[i].name);
        reasons &= ~clocks_reason_names[i].bit;
    }
    if (reasons) { /* bits newer than this list */
        char hex[24];
        snprintf(hex, sizeof hex, "0x%llx", reasons);
        n += clocks_append(buf, len, n, n ? "|" : "", hex);
    }
    return n;
}

// ---------------------------------------------------------------------------
// sampling

static double clocks_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void clocks_ts_add(struct timespec *t, long long ns)
{
    long long s = ns / 1000000000LL, rem = ns % 1000000000LL;
    t->tv_sec += (time_t)s;
    t->tv_nsec += (long)rem;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static int clocks_ts_after(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* 1 when the reading succeeded. "Not supported" is no error: that figure
 * simply does not exist on this GPU. */
static int clocks_read_ok(clocks_totals *t, nvml_return r)
{
    if (r == NVML_RET_SUCCESS) return 1;
    if (r != NVML_RET_NOT_SUPPORTED) t->errors++;
    return 0;
}

static void clocks_take_sample(clocks *c)
{
    clocks_totals *t = &c->tot;
    clocks_sample s;
    unsigned v = 0;
    unsigned long long r = 0;
    memset(&s, 0, sizeof s);
    s.t_s = clocks_since(&c->t0);
    if (clocks_read_ok(t, c->api.clock(c->dev, NVML_CLOCK_SM, &v))) {
        s.sm_mhz = v;
        t->sm_sum += v;
        if (t->sm_n == 0 || v < t->sm_min) t->sm_min = v;
        if (t->sm_n == 0 || v > t->sm_max) t->sm_max = v;
        t->sm_n++;
    }
    if (clocks_read_ok(t, c->api.clock(c->dev, NVML_CLOCK_MEM, &v))) {
        s.mem_mhz = v;
        t->mem_sum += v;
        t->mem_n++;
    }
    if (c->api.temperature && clocks_read_ok(t, c->api.temperature(c->dev, NVML_TEMPERATURE_GPU, &v))) {
        s.temp_c = v;
        if (t->temp_n == 0 || v > t->temp_max) t->temp_max = v;
        t->temp_n++;
    }
    if (c->api.power && clocks_read_ok(t, c->api.power(c->dev, &v))) {
        s.power_mw = v;
        t->power_mw_sum += v;
        t->power_n++;
    }
    if (c->api.reasons && clocks_read_ok(t, c->api.reasons(c->dev, &r))) {
        s.reasons = r;
        t->reasons |= r;
        t->reasons_n++;
    }
    t->samples++;
    if (c->ntrace < CLOCKS_TRACE_MAX)
        c->trace[c->ntrace++] = s;
    else
        t->dropped++;
}

static void *clocks_thread(void *arg)
{
    clocks *c = arg;
    struct timespec next = c->t0, now;
    clocks_ts_add(&next, c->period_ns);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        int e = 0;
        while (!c->stop && e == 0) e = pthread_cond_timedwait(&c->wake, &c->mu, &next);
        if (c->stop) break;
        pthread_mutex_unlock(&c->mu);
        clocks_take_sample(c);
        /* the next tick on the grid still ahead (ticks already missed are skipped) */
        clock_gettime(CLOCK_MONOTONIC, &now);
        do
            clocks_ts_add(&next, c->period_ns);
        while (!clocks_ts_after(&next, &now));
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

static void clocks_summarise(const clocks_totals *t, clocks_summary *out)
{
    out->valid = t->sm_n > 0;
    out->samples = t->samples;
    out->errors = t->errors;
    out->sm_mhz_mean = t->sm_n ? t->sm_sum / t->sm_n : NAN;
    out->sm_mhz_min = t->sm_n ? t->sm_min : NAN;
    out->sm_mhz_max = t->sm_n ? t->sm_max : NAN;
    out->mem_mhz_mean = t->mem_n ? t->mem_sum / t->mem_n : NAN;
    out->temp_c_max = t->temp_n ? t->temp_max : NAN;
    out->power_w_mean = t->power_n ? t->power_mw_sum / t->power_n * 1e-3 : NAN;
    out->reasons_valid = t->reasons_n > 0;
    out->reasons = t->reasons;
    out->power_or_thermal = (t->reasons & CLOCKS_REASONS_POWER_THERMAL) != 0;
    clocks_reason_format(t->reasons, 0, out->reason_names, sizeof out->reason_names);
    out->trace_dropped = t->dropped;
}

void clocks_summarise_trace(const clocks_sample *s, int n, int reasons_valid, clocks_summary *out)
{
    clocks_totals t;
    memset(&t, 0, sizeof t);
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) {
        const clocks_sample *x = &s[i];
        if (x->sm_mhz) {
            t.sm_sum += x->sm_mhz;
            if (t.sm_n == 0 || x->sm_mhz < t.sm_min) t.sm_min = x->sm_mhz;
            if (t.sm_n == 0 || x->sm_mhz > t.sm_max) t.sm_max = x->sm_mhz;
            t.sm_n++;
        }
        if (x->mem_mhz) {
            t.mem_sum += x->mem_mhz;
            t.mem_n++;
        }
        if (x->temp_c) {
            if (t.temp_n == 0 || x->temp_c > t.temp_max) t.temp_max = x->temp_c;
            t.temp_n++;
        }
        if (x->power_mw) {
            t.power_mw_sum += x->power_mw;
            t.power_n++;
        }
        t.reasons |= x->reasons;
        t.reasons_n += reasons_valid != 0;
        t.samples++;
    }
    clocks_summarise(&t, out);
}

int clocks_pick_spans(const clocks_sample *tr, int nt, double t_begin, const double *span, size_t n,
                      clocks_sample *out, int *nearest)
{
    int m = 0;
    size_t k = 0;
    *nearest = 0;
    /* samples and readings are both in time order: one pass */
    for (int j = 0; j < nt; j++) {
        const double t = t_begin + tr[j].t_s;
        while (k < n && span[2 * k + 1] < t) k++;
        if (k < n && span[2 * k] <= t) out[m++] = tr[j];
    }
    if (m > 0 || nt == 0 || n == 0)
        return m;
    *nearest = 1;
    int j = 0, last = -1;
    for (k = 0; k < n; k++) {
        const double mid = 0.5 * (span[2 * k] + span[2 * k + 1]);
        while (j + 1 < nt && t_begin + tr[j + 1].t_s <= mid) j++;
        /* j: the last reading at or before mid, else the first (after it);
         * the one after j, if nearer */
        const double tj = t_begin + tr[j].t_s;
        int best = j;
        if (tj < mid && j + 1 < nt && t_begin + tr[j + 1].t_s - mid < mid - tj)
            best = j + 1;
        if (best != last) out[m++] = tr[best];
        last = best;
    }
    return m;
}

static void clocks_summary_empty(clocks_summary *out)
{
    clocks_totals none;
    memset(&none, 0, sizeof none);
    memset(out, 0, sizeof *out);
    clocks_summarise(&none, out);
}

// ---------------------------------------------------------------------------
// windows

int clocks_begin(clocks *c)
{
    if (!c || c->running) return -1;
    memset(&c->tot, 0, sizeof c->tot);
    c->ntrace = 0;
    c->stop = 0;
    clock_gettime(CLOCK_MONOTONIC, &c->t0);
    clocks_take_sample(c);
    if (pthread_create(&c->thread, NULL, clocks_thread, c) != 0) return -1;
    c->running = 1;
    return 0;
}

int clocks_end(clocks *c, clocks_summary *out)
{
    if (out) clocks_summary_empty(out);
    if (!c || !c->running) return -1;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    c->running = 0;
    clocks_take_sample(c);
    if (out) clocks_summarise(&c->tot, out);
    return 0;
}

const clocks_sample *clocks_trace(const clocks *c, int *count)
{
    *count = c ? c->ntrace : 0;
    return c ? c->trace : NULL;
}

int clocks_set_period_us(clocks *c, long period_us)
{
    if (!c || c->running || period_us < 100 || period_us > 1000000000L) return -1;
    c->period_ns = (long long)period_us * 1000;
    return 0;
}

void clocks_max_mhz(const clocks *c, unsigned *sm_mhz, unsigned *mem_mhz)
{
    if (sm_mhz) *sm_mhz = c ? c->max_sm_mhz : 0;
    if (mem_mhz) *mem_mhz = c ? c->max_mem_mhz : 0;
}

// ---------------------------------------------------------------------------
// open and close

/* dlsym into a function pointer of any type (ISO C has no cast between
 * object and function pointers; POSIX guarantees they have one size).
 * Returns 1 when the symbol exists. */
static int clocks_sym(void *lib, const char *name, void *fn_ptr)
{
    void *p = dlsym(lib, name);
    memcpy(fn_ptr, &p, sizeof p);
    return p != NULL;
}
_Static_assert(sizeof(void (*)(void)) == sizeof(void *), "dlsym results are stored into function pointers");

static const char *clocks_error(const clocks *c, nvml_return r)
{
    const char *s = c->api.error_string ? c->api.error_string(r) : NULL;
    return s ? s : "no nvmlErrorString";
}

int clocks_open(clocks **out, const char *pci_bus_id, char *why, size_t why_len)
{
    const char *path = getenv("COMPARE_NVML_LIB");
    clocks *c = calloc(1, sizeof *c);
    int inited = 0, bad;
    nvml_return r;
    pthread_condattr_t ca;
    *out = NULL;
    if (why_len > 0) why[0] = '\0';
    if (!path || !*path) path = "libnvidia-ml.so.1";
    if (!c) {
        snprintf(why, why_len, "clocks: out of host memory");
        return -1;
    }
    c->api.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!c->api.lib) {
        snprintf(why, why_len, "no libnvidia-ml: %s", dlerror());
        goto fail;
    }
    {
        const struct {
            const char *name;
            void *fn_ptr;
        } need[] = {{"nvmlInit_v2", &c->api.init},
                    {"nvmlShutdown", &c->api.shutdown},
                    {"nvmlDeviceGetHandleByPciBusId_v2", &c->api.handle_by_bus},
                    {"nvmlDeviceGetClockInfo", &c->api.clock}};
        for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
            if (!clocks_sym(c->api.lib, need[i].name, need[i].fn_ptr)) {
                snprintf(why, why_len, "%s lacks %s: not a usable libnvidia-ml", path, need[i].name);
                goto fail;
            }
    }
    clocks_sym(c->api.lib, "nvmlErrorString", &c->api.error_string);
    clocks_sym(c->api.lib, "nvmlDeviceGetMaxClockInfo", &c->api.max_clock);
    clocks_sym(c->api.lib, "nvmlDeviceGetTemperature", &c->api.temperature);
    clocks_sym(c->api.lib, "nvmlDeviceGetPowerUsage", &c->api.power);
    clocks_sym(c->api.lib, "nvmlDeviceGetCurrPcieLinkGeneration", &c->api.pcie_gen);
    clocks_sym(c->api.lib, "nvmlDeviceGetCurrPcieLinkWidth", &c->api.pcie_width);
    if (!clocks_sym(c->api.lib, "nvmlDeviceGetCurrentClocksEventReasons", &c->api.reasons))
        clocks_sym(c->api.lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &c->api.reasons); /* older drivers */

    if ((r = c->api.init()) != NVML_RET_SUCCESS) {
        snprintf(why, why_len, "nvmlInit_v2 failed: %s (%d)", clocks_error(c, r), r);
        goto fail;
    }
    inited = 1;
    if (!pci_bus_id || !*pci_bus_id) {
        snprintf(why, why_len, "no PCI bus id to find the NVML device by");
        goto fail;
    }
    if ((r = c->api.handle_by_bus(pci_bus_id, &c->dev)) != NVML_RET_SUCCESS) {
        snprintf(why, why_len, "no NVML device at PCI bus id %s: %s (%d)", pci_bus_id, clocks_error(c, r), r);
        goto fail;
    }
    if (c->api.max_clock) {
        if (c->api.max_clock(c->dev, NVML_CLOCK_SM, &c->max_sm_mhz) != NVML_RET_SUCCESS) c->max_sm_mhz = 0;
        if (c->api.max_clock(c->dev, NVML_CLOCK_MEM, &c->max_mem_mhz) != NVML_RET_SUCCESS) c->max_mem_mhz = 0;
    }

    bad = pthread_condattr_init(&ca) != 0;
    if (!bad) {
        bad = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 || pthread_cond_init(&c->wake, &ca) != 0;
        pthread_condattr_destroy(&ca);
    }
    if (!bad && pthread_mutex_init(&c->mu, NULL) != 0) {
        pthread_cond_destroy(&c->wake);
        bad = 1;
    }
    if (bad) {
        snprintf(why, why_len, "clocks: cannot create the sampler's mutex or condition variable");
        goto fail;
    }
    c->period_ns = CLOCKS_DEFAULT_PERIOD_US * 1000LL;
    *out = c;
    return 0;

fail:
    if (inited) c->api.shutdown();
    if (c->api.lib) dlclose(c->api.lib);
    free(c);
    return -1;
}

void clocks_pcie_link(const clocks *c, unsigned *gen, unsigned *width)
{
    *gen = *width = 0;
    if (!c) return;
    if (c->api.pcie_gen && c->api.pcie_gen(c->dev, gen) != NVML_RET_SUCCESS) *gen = 0;
    if (c->api.pcie_width && c->api.pcie_width(c->dev, width) != NVML_RET_SUCCESS) *width = 0;
}

void clocks_close(clocks *c)
{
    if (!c) return;
    if (c->running) clocks_end(c, NULL);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->wake);
    c->api.shutdown();
    dlclose(c->api.lib);
    free(c);
}
