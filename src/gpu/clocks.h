/* src/gpu/clocks.h: what the GPU's clocks really were while a variant ran,
 * observed through NVML. Never sets a clock or any other GPU setting.
 *
 * libnvidia-ml is loaded at run time (dlopen, $COMPARE_NVML_LIB overrides the
 * name), never linked: without a driver clocks_open says why and the caller
 * goes on with a NULL handle, which every call here accepts. No CUDA header:
 * the caller maps its CUDA device through cudaDeviceGetPCIBusId's string.
 *
 * A window is clocks_begin .. clocks_end: one sample at begin, one every
 * period (5 ms by default) from a sampler thread, one at end; the summary
 * covers all of them. A failed NVML call is counted and sampling goes on. */
#ifndef COMPARE_CLOCKS_H
#define COMPARE_CLOCKS_H

#include <stddef.h>

/* NVML's clock-event ("throttle") reason bits, nvmlClocksEventReason*. */
#define CLOCKS_REASON_GPU_IDLE 0x1ULL        /* nothing runs, clocks drop to idle */
#define CLOCKS_REASON_APP_CLOCKS 0x2ULL      /* limited by the application-clocks setting */
#define CLOCKS_REASON_SW_POWER_CAP 0x4ULL    /* held under the power limit */
#define CLOCKS_REASON_HW_SLOWDOWN 0x8ULL     /* hardware slowdown (temperature, power brake) */
#define CLOCKS_REASON_SYNC_BOOST 0x10ULL     /* held to the clock of a sync-boost group */
#define CLOCKS_REASON_SW_THERMAL 0x20ULL     /* software thermal slowdown */
#define CLOCKS_REASON_HW_THERMAL 0x40ULL     /* hardware thermal slowdown */
#define CLOCKS_REASON_HW_POWER_BRAKE 0x80ULL /* external power brake */
#define CLOCKS_REASON_DISPLAY_CLOCKS 0x100ULL /* limited by the display-clock setting */
/* the reasons that mean "slowed by power or heat": a row with any of them did
 * not run at the clock the device could sustain */
#define CLOCKS_REASONS_POWER_THERMAL                                                           \
    (CLOCKS_REASON_SW_POWER_CAP | CLOCKS_REASON_HW_SLOWDOWN | CLOCKS_REASON_SW_THERMAL |        \
     CLOCKS_REASON_HW_THERMAL | CLOCKS_REASON_HW_POWER_BRAKE)

#define CLOCKS_DEFAULT_PERIOD_US 5000
#define CLOCKS_TRACE_MAX 16384 /* samples a window keeps one by one (80 s at 5 ms) */

typedef struct clocks clocks; /* the loaded library, the device handle, the sampler */

/* What one window saw. A figure no sample could read is NAN. */
typedef struct clocks_summary {
    int valid;                 /* 1 when at least one SM clock reading succeeded */
    int samples;               /* sampling instants: begin, every period, end */
    int errors;                /* NVML calls that failed (a reading the GPU does not support is no error) */
    double sm_mhz_mean;        /* SM clock over the successful readings */
    double sm_mhz_min;
    double sm_mhz_max;
    double mem_mhz_mean;       /* memory clock */
    double temp_c_max;         /* GPU die temperature, hottest reading */
    double power_w_mean;       /* board power (on Ampere and later NVML averages it over 1 s) */
    int reasons_valid;         /* 1 when at least one reason reading succeeded */
    unsigned long long reasons; /* OR of every sample's reason bits, GPU idle included */
    int power_or_thermal;      /* any of CLOCKS_REASONS_POWER_THERMAL was seen */
    char reason_names[160];    /* clocks_reason_format of `reasons` without GPU idle, "" when none */
    int trace_dropped;         /* samples past CLOCKS_TRACE_MAX: in the figures, not in the trace */
} clocks_summary;

/* One sample as the trace keeps it. */
typedef struct clocks_sample {
    double t_s;                /* seconds since clocks_begin */
    unsigned sm_mhz, mem_mhz;  /* 0 when the reading failed */
    unsigned temp_c;
    unsigned power_mw;
    unsigned long long reasons;
} clocks_sample;

/* Loads libnvidia-ml, initialises NVML and finds the device with this PCI bus
 * id ("0000:19:00.0", as cudaDeviceGetPCIBusId writes it). Returns 0 and
 * *out; else -1, *out = NULL and one line in why ("no libnvidia-ml: ...",
 * "nvmlInit_v2 failed: ...", "no NVML device at PCI bus id ...: ..."). */
int clocks_open(clocks **out, const char *pci_bus_id, char *why, size_t why_len);
/* Stops a running window, shuts NVML down, unloads the library. NULL is fine. */
void clocks_close(clocks *c);

/* Sampling period in microseconds (>= 100); only between windows. 0 or -1. */
int clocks_set_period_us(clocks *c, long period_us);
/* The device's maximum SM and memory clocks in MHz, 0 where NVML has none. */
void clocks_max_mhz(const clocks *c, unsigned *sm_mhz, unsigned *mem_mhz);

/* The PCIe link the device is on now (generation, lanes), 0 where NVML has none. */
void clocks_pcie_link(const clocks *c, unsigned *gen, unsigned *width);

/* Opens a window: one sample now, then the sampler thread. Returns 0, or -1
 * (NULL handle, a window already open, no thread). */
int clocks_begin(clocks *c);
/* Closes the window: stops and joins the thread, one sample more, fills *out.
 * Returns 0, or -1 with out->valid = 0 (NULL handle, no window open). */
int clocks_end(clocks *c, clocks_summary *out);
/* The last window's samples in time order (at most CLOCKS_TRACE_MAX); valid
 * until the next clocks_begin or clocks_close. */
const clocks_sample *clocks_trace(const clocks *c, int *count);
/* A summary of some of a window's samples (those of one variant when a
 * window covers several, --interleave): a reading of 0 counts as failed (as
 * the trace stores it), errors 0, reasons_valid as given (the trace cannot
 * tell "no reason" from a failed reading). No sample: valid 0. */
void clocks_summarise_trace(const clocks_sample *s, int n, int reasons_valid, clocks_summary *out);

/* The readings of a window's trace (tr[0..nt), times t_s since its begin,
 * which was host time t_begin) that fell in one variant's samples, given as
 * n host-time spans span[2 k] .. span[2 k + 1] (seconds, in time order),
 * copied to out (room for nt). When none fell inside (samples shorter than
 * the sampling period, --interleave), the reading nearest each span's
 * middle instead, each reading once, and *nearest = 1: the clocks just
 * around its samples. Returns how many. */
int clocks_pick_spans(const clocks_sample *tr, int nt, double t_begin, const double *span, size_t n,
                      clocks_sample *out, int *nearest);

/* Writes the names of the bits in `reasons` joined by '|' ("sw_power_cap|hw_thermal";
 * bits without a name as one hex number; GPU idle only if include_idle), ""
 * for none. Returns the length the full text needs, as snprintf does. */
size_t clocks_reason_format(unsigned long long reasons, int include_idle, char *buf, size_t len);

#endif
