/* tests/fake_nvml.h: what the fake libnvidia-ml (tests/fake_nvml.c) records,
 * read by tests/test_clocks.c through dlsym("fake_nvml_stats"). */
#ifndef TESTS_FAKE_NVML_H
#define TESTS_FAKE_NVML_H

typedef struct {
    int inits, shutdowns;     /* successful nvmlInit_v2 / nvmlShutdown calls, ever */
    int sm_calls;             /* nvmlDeviceGetClockInfo(SM) calls since the last init */
    int sm_ok;                /* of which returned a clock */
    double sm_sum;            /* sum of the SM clocks returned */
    int event_calls;          /* nvmlDeviceGetCurrentClocksEventReasons calls since init */
    int throttle_calls;       /* nvmlDeviceGetCurrentClocksThrottleReasons calls since init */
} fake_nvml_record;

typedef const fake_nvml_record *(*fake_nvml_stats_fn)(void);

#endif
