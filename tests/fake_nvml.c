/* tests/fake_nvml.c: a stand-in libnvidia-ml for tests/test_clocks.c, so the
 * clocks module (src/gpu/clocks.c) is tested with no GPU and no driver.
 * Loaded through COMPARE_NVML_LIB. Built twice: fake_nvml (a current driver)
 * and, with FAKE_NVML_OLD, fake_nvml_old, which lacks
 * nvmlDeviceGetCurrentClocksEventReasons as drivers before its introduction do.
 *
 * Every reading is scripted by an environment variable read at nvmlInit_v2:
 * a comma-separated list whose i-th entry answers the i-th call, the last
 * entry repeating for ever. An entry is a number (strtoull, so 0x.. works),
 * "x" (the call fails: NVML_ERROR_UNKNOWN) or "n" (NVML_ERROR_NOT_SUPPORTED).
 *
 *   FAKE_NVML_INIT          nvmlInit_v2's return code (default 0)
 *   FAKE_NVML_BUS           the one PCI bus id it knows (default 0000:19:00.0)
 *   FAKE_NVML_SM, _MEM      nvmlDeviceGetClockInfo, MHz (defaults 1980, 3201)
 *   FAKE_NVML_MAX_SM, _MAX_MEM   nvmlDeviceGetMaxClockInfo (defaults 1980, 3201)
 *   FAKE_NVML_TEMP          nvmlDeviceGetTemperature, C (default 40)
 *   FAKE_NVML_POWER_MW      nvmlDeviceGetPowerUsage, mW (default 300000)
 *   FAKE_NVML_EVENT         nvmlDeviceGetCurrentClocksEventReasons (default 0)
 *   FAKE_NVML_THROTTLE      nvmlDeviceGetCurrentClocksThrottleReasons (default 0)
 *
 * Calls may come from the sampler thread; clocks.c never makes two at once. */
#include <stdlib.h>
#include <string.h>

#include "fake_nvml.h"

#define FAKE_MAX_ENTRIES 64
#define FAKE_FAIL (-1LL)
#define FAKE_NOT_SUPPORTED (-2LL)

enum { FAKE_SUCCESS = 0, FAKE_ERR_INVALID_ARGUMENT = 2, FAKE_ERR_NOT_SUPPORTED = 3, FAKE_ERR_NOT_FOUND = 6,
       FAKE_ERR_DRIVER_NOT_LOADED = 9, FAKE_ERR_UNKNOWN = 999 };

typedef struct {
    int n;                            /* entries */
    long long v[FAKE_MAX_ENTRIES];    /* values, FAKE_FAIL or FAKE_NOT_SUPPORTED */
    int calls;                        /* calls so far */
} fake_script;

enum { FAKE_SM, FAKE_MEM, FAKE_MAX_SM, FAKE_MAX_MEM, FAKE_TEMP, FAKE_POWER, FAKE_EVENT, FAKE_THROTTLE, FAKE_N };
static const struct {
    const char *env, *dflt;
} fake_vars[FAKE_N] = {
    {"FAKE_NVML_SM", "1980"},   {"FAKE_NVML_MEM", "3201"},       {"FAKE_NVML_MAX_SM", "1980"},
    {"FAKE_NVML_MAX_MEM", "3201"}, {"FAKE_NVML_TEMP", "40"},     {"FAKE_NVML_POWER_MW", "300000"},
    {"FAKE_NVML_EVENT", "0"},   {"FAKE_NVML_THROTTLE", "0"},
};

static fake_script fake_scripts[FAKE_N];
static fake_nvml_record fake_rec;
static char fake_bus[64];
/* the address handed out as the device handle */
static int fake_device_tag;

static void fake_parse(fake_script *s, const char *text)
{
    memset(s, 0, sizeof *s);
    while (*text && s->n < FAKE_MAX_ENTRIES) {
        char *end = NULL;
        if (*text == 'x') {
            s->v[s->n++] = FAKE_FAIL;
            end = (char *)text + 1;
        } else if (*text == 'n') {
            s->v[s->n++] = FAKE_NOT_SUPPORTED;
            end = (char *)text + 1;
        } else {
            s->v[s->n++] = (long long)strtoull(text, &end, 0);
            if (end == text) break; /* not a number: stop at what was read */
        }
        text = *end == ',' ? end + 1 : end;
    }
    if (s->n == 0) s->v[s->n++] = FAKE_FAIL;
}

/* The next scripted answer of s: its return code, the value in *out. */
static int fake_next(fake_script *s, unsigned long long *out)
{
    long long v = s->v[s->calls < s->n ? s->calls : s->n - 1];
    s->calls++;
    if (v == FAKE_FAIL) return FAKE_ERR_UNKNOWN;
    if (v == FAKE_NOT_SUPPORTED) return FAKE_ERR_NOT_SUPPORTED;
    *out = (unsigned long long)v;
    return FAKE_SUCCESS;
}

static int fake_next_uint(int which, unsigned *out)
{
    unsigned long long v = 0;
    int r;
    if (!out) return FAKE_ERR_INVALID_ARGUMENT;
    r = fake_next(&fake_scripts[which], &v);
    if (r == FAKE_SUCCESS) *out = (unsigned)v;
    return r;
}

static int fake_is_device(void *device)
{
    return device == (void *)&fake_device_tag;
}

const fake_nvml_record *fake_nvml_stats(void)
{
    return &fake_rec;
}

int nvmlInit_v2(void)
{
    const char *rc = getenv("FAKE_NVML_INIT"), *bus = getenv("FAKE_NVML_BUS");
    if (rc && atoi(rc) != 0) return atoi(rc);
    for (int i = 0; i < FAKE_N; i++) {
        const char *e = getenv(fake_vars[i].env);
        fake_parse(&fake_scripts[i], e ? e : fake_vars[i].dflt);
    }
    strncpy(fake_bus, bus ? bus : "0000:19:00.0", sizeof fake_bus - 1);
    fake_rec.inits++;
    fake_rec.sm_calls = fake_rec.sm_ok = 0;
    fake_rec.sm_sum = 0;
    fake_rec.event_calls = fake_rec.throttle_calls = 0;
    return FAKE_SUCCESS;
}

int nvmlShutdown(void)
{
    fake_rec.shutdowns++;
    return FAKE_SUCCESS;
}

const char *nvmlErrorString(int r)
{
    switch (r) {
    case FAKE_SUCCESS: return "Success";
    case FAKE_ERR_INVALID_ARGUMENT: return "Invalid Argument";
    case FAKE_ERR_NOT_SUPPORTED: return "Not Supported";
    case FAKE_ERR_NOT_FOUND: return "Not Found";
    case FAKE_ERR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device)
{
    if (!bus || !device) return FAKE_ERR_INVALID_ARGUMENT;
    if (strcmp(bus, fake_bus) != 0) return FAKE_ERR_NOT_FOUND;
    *device = &fake_device_tag;
    return FAKE_SUCCESS;
}

int nvmlDeviceGetClockInfo(void *device, int type, unsigned *mhz)
{
    int r;
    if (!fake_is_device(device)) return FAKE_ERR_INVALID_ARGUMENT;
    if (type == 2) return fake_next_uint(FAKE_MEM, mhz); /* NVML_CLOCK_MEM */
    if (type != 1) return FAKE_ERR_INVALID_ARGUMENT;    /* NVML_CLOCK_SM */
    r = fake_next_uint(FAKE_SM, mhz);
    fake_rec.sm_calls++;
    if (r == FAKE_SUCCESS) {
        fake_rec.sm_ok++;
        fake_rec.sm_sum += *mhz;
    }
    return r;
}

int nvmlDeviceGetMaxClockInfo(void *device, int type, unsigned *mhz)
{
    if (!fake_is_device(device) || (type != 1 && type != 2)) return FAKE_ERR_INVALID_ARGUMENT;
    return fake_next_uint(type == 1 ? FAKE_MAX_SM : FAKE_MAX_MEM, mhz);
}

int nvmlDeviceGetTemperature(void *device, int sensor, unsigned *c)
{
    if (!fake_is_device(device) || sensor != 0) return FAKE_ERR_INVALID_ARGUMENT; /* NVML_TEMPERATURE_GPU */
    return fake_next_uint(FAKE_TEMP, c);
}

int nvmlDeviceGetPowerUsage(void *device, unsigned *mw)
{
    if (!fake_is_device(device)) return FAKE_ERR_INVALID_ARGUMENT;
    return fake_next_uint(FAKE_POWER, mw);
}

#ifndef FAKE_NVML_OLD
int nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *reasons)
{
    if (!fake_is_device(device) || !reasons) return FAKE_ERR_INVALID_ARGUMENT;
    fake_rec.event_calls++;
    return fake_next(&fake_scripts[FAKE_EVENT], reasons);
}
#endif

int nvmlDeviceGetCurrentClocksThrottleReasons(void *device, unsigned long long *reasons)
{
    if (!fake_is_device(device) || !reasons) return FAKE_ERR_INVALID_ARGUMENT;
    fake_rec.throttle_calls++;
    return fake_next(&fake_scripts[FAKE_THROTTLE], reasons);
}
