/* tests/test_clocks.c (cpu): the NVML clock sampler (src/gpu/clocks.c) against
 * a fake libnvidia-ml (tests/fake_nvml.c) loaded through COMPARE_NVML_LIB, so
 * no GPU, driver or CUDA call is needed. The fake answers each reading from a
 * script in the environment and records what it returned; the test opens the
 * same library itself (dlopen gives back the one loaded copy) to read that
 * record through fake_nvml_stats. */
#include "clocks.h"
#include "fake_nvml.h"
#include "testlib.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#ifndef FAKE_NVML_LIB
#error "FAKE_NVML_LIB (the fake libnvidia-ml's path) is set by tests/clocks.cmake"
#endif

#define BUS "0000:19:00.0" /* the fake's default device */

static fake_nvml_stats_fn fake_stats, fake_old_stats;

// ---- helpers ----------------------------------------------------------------

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1.0);
}

#define NEAR(got, want) CHECK(near((got), (want)), "%s = %.17g, expected %.17g", #got, (double)(got), (double)(want))

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void sleep_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
    while (nanosleep(&t, &t) != 0) {}
}

/* The fake's script: every FAKE_NVML_* variable unset, then NAME, VALUE pairs
 * (NULL-terminated) set; the library is `lib`. */
static void script(const char *lib, ...)
{
    static const char *const vars[] = {"FAKE_NVML_INIT", "FAKE_NVML_BUS", "FAKE_NVML_SM", "FAKE_NVML_MEM",
                                       "FAKE_NVML_MAX_SM", "FAKE_NVML_MAX_MEM", "FAKE_NVML_TEMP",
                                       "FAKE_NVML_POWER_MW", "FAKE_NVML_EVENT", "FAKE_NVML_THROTTLE"};
    va_list ap;
    const char *name;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    setenv("COMPARE_NVML_LIB", lib, 1);
    va_start(ap, lib);
    while ((name = va_arg(ap, const char *)) != NULL) setenv(name, va_arg(ap, const char *), 1);
    va_end(ap);
}

/* Opens the fake's device; NULL (and a failed check) if it cannot. */
static clocks *open_fake(const char *what)
{
    clocks *c = NULL;
    char why[256] = "";
    int rc = clocks_open(&c, BUS, why, sizeof why);
    CHECK(rc == 0 && c != NULL, "%s: clocks_open failed: %s", what, why);
    return rc == 0 ? c : NULL;
}

/* One window with no thread sample (the period is far longer than the
 * window): exactly two samples, begin's and end's, so every figure is known. */
static int two_samples(clocks *c, clocks_summary *s)
{
    int rc;
    CHECK(clocks_set_period_us(c, 1000000000L) == 0, "a 1000 s period is accepted");
    CHECK(clocks_begin(c) == 0, "clocks_begin");
    rc = clocks_end(c, s);
    CHECK(rc == 0, "clocks_end");
    CHECK(s->samples == 2, "samples %d, expected 2 (begin and end)", s->samples);
    return rc;
}

// ---- reason names --------------------------------------------------------------

static void test_reason_format(void)
{
    char buf[160];
    size_t n;
    n = clocks_reason_format(0, 1, buf, sizeof buf);
    CHECK(n == 0 && strcmp(buf, "") == 0, "no reason: \"%s\"", buf);
    n = clocks_reason_format(CLOCKS_REASON_SW_POWER_CAP | CLOCKS_REASON_HW_THERMAL, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "sw_power_cap|hw_thermal") == 0 && n == strlen(buf), "power cap + hw thermal: \"%s\"", buf);
    clocks_reason_format(CLOCKS_REASON_GPU_IDLE, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "") == 0, "idle excluded: \"%s\"", buf);
    clocks_reason_format(CLOCKS_REASON_GPU_IDLE | CLOCKS_REASON_SYNC_BOOST, 1, buf, sizeof buf);
    CHECK(strcmp(buf, "gpu_idle|sync_boost") == 0, "idle included: \"%s\"", buf);
    clocks_reason_format(0x1ffULL, 1, buf, sizeof buf);
    CHECK(strcmp(buf, "gpu_idle|app_clocks|sw_power_cap|hw_slowdown|sync_boost|sw_thermal|hw_thermal|"
                      "hw_power_brake|display_clocks") == 0,
          "all nine: \"%s\"", buf);
    clocks_reason_format(CLOCKS_REASON_HW_SLOWDOWN | 0x600ULL, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "hw_slowdown|0x600") == 0, "unnamed bits in hex: \"%s\"", buf);
    clocks_reason_format(~0ULL, 1, buf, sizeof buf);
    CHECK(strlen(buf) < sizeof ((clocks_summary *)0)->reason_names,
          "every bit set fits a summary's reason_names: \"%s\"", buf);
    /* truncation: NUL-terminated, and the full length still returned */
    memset(buf, 'z', sizeof buf);
    n = clocks_reason_format(CLOCKS_REASON_SW_POWER_CAP | CLOCKS_REASON_HW_POWER_BRAKE, 0, buf, 8);
    CHECK(n == strlen("sw_power_cap|hw_power_brake") && strcmp(buf, "sw_powe") == 0 && buf[8] == 'z',
          "truncated to 8 bytes: n %zu, \"%s\"", n, buf);
    CHECK((CLOCKS_REASONS_POWER_THERMAL & (CLOCKS_REASON_GPU_IDLE | CLOCKS_REASON_APP_CLOCKS |
                                            CLOCKS_REASON_SYNC_BOOST | CLOCKS_REASON_DISPLAY_CLOCKS)) == 0 &&
              CLOCKS_REASONS_POWER_THERMAL == 0xecULL,
          "power/thermal mask 0x%llx", CLOCKS_REASONS_POWER_THERMAL);
}

// ---- no NVML ----------------------------------------------------------------------

static void test_null_handle(void)
{
    clocks_summary s;
    unsigned sm = 1, mem = 1;
    int n = 1;
    memset(&s, 0x5a, sizeof s);
    CHECK(clocks_begin(NULL) == -1, "begin on NULL");
    CHECK(clocks_end(NULL, &s) == -1 && s.valid == 0 && s.samples == 0 && isnan(s.sm_mhz_mean) &&
              s.reason_names[0] == '\0',
          "end on NULL: an invalid, empty summary");
    CHECK(clocks_set_period_us(NULL, 5000) == -1, "period on NULL");
    clocks_max_mhz(NULL, &sm, &mem);
    CHECK(sm == 0 && mem == 0, "max clocks of NULL: %u %u", sm, mem);
    CHECK(clocks_trace(NULL, &n) == NULL && n == 0, "trace of NULL");
    clocks_close(NULL);
}

/* clocks_open must fail, leave *out NULL and say why; returns the why text. */
static const char *open_fails(const char *what, const char *bus)
{
    static char why[256];
    static char not_null;
    clocks *c = (clocks *)(void *)&not_null;
    int rc = clocks_open(&c, bus, why, sizeof why);
    CHECK(rc == -1 && c == NULL, "%s: open returned %d, handle %p", what, rc, (void *)c);
    if (rc == 0 && c) clocks_close(c);
    return why;
}

static void test_open_failures(void)
{
    const char *why;
    char tiny[12];
    clocks *c = NULL;
    int inits, shutdowns;

    script("/nonexistent/libnvidia-ml.so.1", NULL);
    why = open_fails("missing library", BUS);
    CHECK(strncmp(why, "no libnvidia-ml: ", 17) == 0 && test_contains(why, "/nonexistent/libnvidia-ml.so.1"),
          "missing library: \"%s\"", why);
    memset(tiny, 'z', sizeof tiny);
    CHECK(clocks_open(&c, BUS, tiny, 8) == -1 && strcmp(tiny, "no libn") == 0 && tiny[8] == 'z',
          "a short why buffer is truncated in bounds: \"%s\"", tiny);

    script("libm.so.6", NULL); /* loads, but is no NVML */
    why = open_fails("library without NVML", BUS);
    CHECK(test_contains(why, "lacks nvmlInit_v2"), "library without NVML: \"%s\"", why);

    inits = fake_stats()->inits;
    shutdowns = fake_stats()->shutdowns;
    script(FAKE_NVML_LIB, "FAKE_NVML_INIT", "9", NULL);
    why = open_fails("init failure", BUS);
    CHECK(strcmp(why, "nvmlInit_v2 failed: Driver Not Loaded (9)") == 0, "init failure: \"%s\"", why);
    CHECK(fake_stats()->inits == inits && fake_stats()->shutdowns == shutdowns,
          "no shutdown after a failed init (%d/%d)", fake_stats()->inits, fake_stats()->shutdowns);

    script(FAKE_NVML_LIB, NULL);
    why = open_fails("unknown bus id", "0000:99:00.0");
    CHECK(strcmp(why, "no NVML device at PCI bus id 0000:99:00.0: Not Found (6)") == 0, "unknown bus id: \"%s\"",
          why);
    CHECK(fake_stats()->inits == inits + 1 && fake_stats()->shutdowns == shutdowns + 1,
          "NVML shut down after the device was not found (%d/%d)", fake_stats()->inits, fake_stats()->shutdowns);
    why = open_fails("no bus id", NULL);
    CHECK(test_contains(why, "PCI bus id"), "no bus id: \"%s\"", why);
    CHECK(fake_stats()->inits == fake_stats()->shutdowns, "every init shut down (%d/%d)", fake_stats()->inits,
          fake_stats()->shutdowns);
}

// ---- scripted windows ---------------------------------------------------------------

static void test_scripted_values(void)
{
    clocks *c;
    clocks_summary s;
    const clocks_sample *t;
    unsigned sm = 0, mem = 0;
    int n = 0;
    script(FAKE_NVML_LIB, "FAKE_NVML_SM", "1980,1410", "FAKE_NVML_MEM", "3201,2619", "FAKE_NVML_TEMP", "40,71",
           "FAKE_NVML_POWER_MW", "300000,500500", "FAKE_NVML_EVENT", "0x1,0x44", "FAKE_NVML_THROTTLE", "0x80",
           "FAKE_NVML_MAX_SM", "1755", "FAKE_NVML_MAX_MEM", "2619", NULL);
    if (!(c = open_fake("scripted values"))) return;
    clocks_max_mhz(c, &sm, &mem);
    CHECK(sm == 1755 && mem == 2619, "max clocks %u/%u, expected 1755/2619", sm, mem);
    if (two_samples(c, &s) == 0) {
        CHECK(s.valid == 1 && s.errors == 0, "valid %d, errors %d", s.valid, s.errors);
        NEAR(s.sm_mhz_mean, 1695.0);
        NEAR(s.sm_mhz_min, 1410.0);
        NEAR(s.sm_mhz_max, 1980.0);
        NEAR(s.mem_mhz_mean, 2910.0);
        NEAR(s.temp_c_max, 71.0);
        NEAR(s.power_w_mean, 400.25);
        CHECK(s.reasons_valid == 1 && s.reasons == 0x45ULL, "reasons 0x%llx, expected 0x45", s.reasons);
        CHECK(strcmp(s.reason_names, "sw_power_cap|hw_thermal") == 0, "names \"%s\"", s.reason_names);
        CHECK(s.power_or_thermal == 1, "power_or_thermal");
        CHECK(s.trace_dropped == 0, "nothing dropped");
        CHECK(fake_stats()->event_calls == 2 && fake_stats()->throttle_calls == 0,
              "the current driver's EventReasons is used (%d event, %d throttle calls)", fake_stats()->event_calls,
              fake_stats()->throttle_calls);
        t = clocks_trace(c, &n);
        CHECK(n == 2, "trace of %d samples, expected 2", n);
        if (n == 2) {
            CHECK(t[0].sm_mhz == 1980 && t[1].sm_mhz == 1410 && t[0].mem_mhz == 3201 && t[1].temp_c == 71 &&
                      t[1].power_mw == 500500 && t[0].reasons == 0x1 && t[1].reasons == 0x44,
                  "trace values");
            CHECK(t[0].t_s >= 0 && t[1].t_s >= t[0].t_s, "trace times %g %g", t[0].t_s, t[1].t_s);
        }
    }
    clocks_close(c);

    /* idle alone and application clocks are not power/thermal throttling */
    script(FAKE_NVML_LIB, "FAKE_NVML_EVENT", "0x1,0x3", NULL);
    if (!(c = open_fake("idle and app clocks"))) return;
    if (two_samples(c, &s) == 0) {
        CHECK(s.reasons == 0x3ULL && strcmp(s.reason_names, "app_clocks") == 0 && s.power_or_thermal == 0,
              "idle + app clocks: 0x%llx \"%s\" %d", s.reasons, s.reason_names, s.power_or_thermal);
        NEAR(s.sm_mhz_mean, 1980.0); /* the defaults */
        NEAR(s.mem_mhz_mean, 3201.0);
        NEAR(s.temp_c_max, 40.0);
        NEAR(s.power_w_mean, 300.0);
    }
    clocks_close(c);
}

static void test_failing_calls(void)
{
    clocks *c;
    clocks_summary s;
    /* one failed SM reading of two: counted, the other still makes the figures */
    script(FAKE_NVML_LIB, "FAKE_NVML_SM", "1500,x", "FAKE_NVML_POWER_MW", "n", NULL);
    if (!(c = open_fake("one failure"))) return;
    if (two_samples(c, &s) == 0) {
        CHECK(s.valid == 1 && s.errors == 1, "valid %d, errors %d (expected 1, 1)", s.valid, s.errors);
        NEAR(s.sm_mhz_mean, 1500.0);
        NEAR(s.sm_mhz_min, 1500.0);
        CHECK(isnan(s.power_w_mean), "power not supported: NAN, got %g", s.power_w_mean);
    }
    clocks_close(c);

    /* every call fails: an invalid summary, no figure */
    script(FAKE_NVML_LIB, "FAKE_NVML_SM", "x", "FAKE_NVML_MEM", "x", "FAKE_NVML_TEMP", "x", "FAKE_NVML_POWER_MW",
           "x", "FAKE_NVML_EVENT", "x", NULL);
    if (!(c = open_fake("all failing"))) return;
    if (two_samples(c, &s) == 0) {
        CHECK(s.valid == 0, "valid %d, expected 0", s.valid);
        CHECK(s.errors == 10, "errors %d, expected 10 (5 readings x 2 samples)", s.errors);
        CHECK(isnan(s.sm_mhz_mean) && isnan(s.sm_mhz_min) && isnan(s.mem_mhz_mean) && isnan(s.temp_c_max) &&
                  isnan(s.power_w_mean),
              "every figure NAN");
        CHECK(s.reasons_valid == 0 && s.reasons == 0 && s.reason_names[0] == '\0' && s.power_or_thermal == 0,
              "no reasons");
    }
    clocks_close(c);

    /* a GPU without some readings: not supported is no error */
    script(FAKE_NVML_LIB, "FAKE_NVML_MEM", "n", "FAKE_NVML_TEMP", "n", "FAKE_NVML_EVENT", "n", NULL);
    if (!(c = open_fake("not supported"))) return;
    if (two_samples(c, &s) == 0) {
        CHECK(s.valid == 1 && s.errors == 0, "valid %d, errors %d (expected 1, 0)", s.valid, s.errors);
        CHECK(isnan(s.mem_mhz_mean) && isnan(s.temp_c_max) && s.reasons_valid == 0, "unsupported readings absent");
        NEAR(s.power_w_mean, 300.0);
    }
    clocks_close(c);
}

static void test_throttle_fallback(void)
{
    clocks *c;
    clocks_summary s;
    int calls0;
    script(FAKE_NVML_OLD_LIB, "FAKE_NVML_EVENT", "0x4", "FAKE_NVML_THROTTLE", "0,0x40", NULL);
    if (!(c = open_fake("old driver"))) return;
    calls0 = fake_old_stats()->event_calls;
    if (two_samples(c, &s) == 0) {
        CHECK(s.reasons_valid == 1 && s.reasons == 0x40ULL && strcmp(s.reason_names, "hw_thermal") == 0 &&
                  s.power_or_thermal == 1,
              "reasons from ThrottleReasons: 0x%llx \"%s\"", s.reasons, s.reason_names);
        CHECK(fake_old_stats()->throttle_calls == 2 && fake_old_stats()->event_calls == calls0,
              "%d throttle calls, expected 2", fake_old_stats()->throttle_calls);
    }
    clocks_close(c);
    CHECK(fake_old_stats()->inits == fake_old_stats()->shutdowns, "old driver: every init shut down");
}

// ---- the sampler thread ----------------------------------------------------------------

static void test_sampler(void)
{
    const double period_s = CLOCKS_DEFAULT_PERIOD_US * 1e-6;
    clocks *c;
    clocks_summary s;
    const clocks_sample *t;
    double t0, elapsed;
    int n = 0;
    /* a dip at the 3rd reading, a power cap from the 4th on */
    script(FAKE_NVML_LIB, "FAKE_NVML_SM", "1980,1980,1755,1980", "FAKE_NVML_EVENT", "0,0,0,0x4", NULL);
    if (!(c = open_fake("sampler"))) return;
    t0 = now_s();
    CHECK(clocks_begin(c) == 0, "begin");
    CHECK(clocks_begin(c) == -1, "a second begin while a window is open");
    CHECK(clocks_set_period_us(c, 1000) == -1, "no period change while a window is open");
    sleep_ms(50);
    CHECK(clocks_end(c, &s) == 0, "end");
    elapsed = now_s() - t0;
    /* 50 ms at 5 ms: about 10 thread samples; at least 3 on a loaded machine */
    CHECK(s.samples >= 5, "%d samples in %.1f ms, expected at least 5", s.samples, elapsed * 1e3);
    CHECK(s.samples <= elapsed / period_s + 2 + 1e-9, "%d samples in %.1f ms: faster than the 5 ms period",
          s.samples, elapsed * 1e3);
    CHECK(fake_stats()->sm_calls == s.samples && fake_stats()->sm_ok == s.samples,
          "one SM reading per sample (%d calls, %d samples)", fake_stats()->sm_calls, s.samples);
    if (fake_stats()->sm_ok > 0) NEAR(s.sm_mhz_mean, fake_stats()->sm_sum / fake_stats()->sm_ok);
    NEAR(s.sm_mhz_min, 1755.0);
    NEAR(s.sm_mhz_max, 1980.0);
    CHECK(s.sm_mhz_mean > 1755.0 && s.sm_mhz_mean < 1980.0, "mean %g between the dip and the top", s.sm_mhz_mean);
    CHECK(strcmp(s.reason_names, "sw_power_cap") == 0 && s.power_or_thermal == 1,
          "the power cap from the 4th sample: \"%s\"", s.reason_names);
    t = clocks_trace(c, &n);
    CHECK(n == s.samples, "trace %d of %d samples", n, s.samples);
    for (int i = 1; i < n; i++) {
        /* the thread's j-th sample waits for the j-th tick at least; end's comes last */
        CHECK(t[i].t_s > t[i - 1].t_s, "trace times increase at %d", i);
        if (i < n - 1)
            CHECK(t[i].t_s >= i * period_s - 1e-6, "thread sample %d at %.3f ms, before its tick at %.3f ms", i,
                  t[i].t_s * 1e3, i * period_s * 1e3);
    }
    CHECK(n >= 3 && t[2].sm_mhz == 1755, "the dip is the 3rd sample");
    clocks_close(c);
    CHECK(clocks_set_period_us(NULL, 1000) == -1, "period on NULL");
}

static void test_repeated_windows(void)
{
    clocks *c, *c2;
    clocks_summary s;
    int total = 0, good = 0;
    const int rounds = 20;
    script(FAKE_NVML_LIB, NULL);
    if (!(c = open_fake("repeated"))) return;
    CHECK(clocks_end(c, &s) == -1 && s.valid == 0, "end without begin");
    CHECK(clocks_set_period_us(c, 99) == -1 && clocks_set_period_us(c, 1000) == 0, "period bounds");
    for (int i = 0; i < rounds; i++) {
        if (clocks_begin(c) != 0) continue;
        sleep_ms(i % 2 ? 3 : 0); /* some windows end before the thread's first tick */
        if (clocks_end(c, &s) == 0 && s.valid && s.samples >= 2) good++;
        total += s.samples;
    }
    CHECK(good == rounds, "%d of %d windows valid", good, rounds);
    CHECK(fake_stats()->sm_calls == total, "%d SM readings for %d samples", fake_stats()->sm_calls, total);
    /* a second handle on the same library, and closing with a window open */
    c2 = open_fake("second handle");
    CHECK(clocks_begin(c) == 0, "begin before close");
    sleep_ms(2);
    clocks_close(c); /* stops and joins the thread */
    clocks_close(c2);
    CHECK(fake_stats()->inits == fake_stats()->shutdowns, "every init shut down (%d/%d)", fake_stats()->inits,
          fake_stats()->shutdowns);
}

/* clocks_pick_spans: readings inside a variant's samples; else the nearest
 * to each sample, each once */
static void test_pick_spans(void)
{
    clocks_sample tr[5];
    clocks_sample out[5];
    int nearest = -1;
    memset(tr, 0, sizeof tr);
    for (int i = 0; i < 5; i++) {
        tr[i].t_s = 0.005 * i; /* readings at 0, 5, 10, 15, 20 ms after begin */
        tr[i].sm_mhz = 1000 + (unsigned)i;
    }
    const double t0 = 100.0;   /* the window's host begin */
    /* samples 4..6 ms and 14..16 ms: the readings at 5 and 15 ms fell inside */
    const double in[] = {t0 + 0.004, t0 + 0.006, t0 + 0.014, t0 + 0.016};
    int m = clocks_pick_spans(tr, 5, t0, in, 2, out, &nearest);
    CHECK(m == 2 && nearest == 0 && out[0].sm_mhz == 1001 && out[1].sm_mhz == 1003,
          "readings inside: m %d nearest %d (%u, %u)", m, nearest, m > 0 ? out[0].sm_mhz : 0,
          m > 1 ? out[1].sm_mhz : 0);
    /* short samples between readings: 6.0..6.2 ms (nearest 5 ms), 8.9..9.1 ms
     * (10 ms), 9.5..9.6 (10 ms again: once), before the first reading and past the last */
    const double sh[] = {t0 + 0.0060, t0 + 0.0062, t0 + 0.0089, t0 + 0.0091, t0 + 0.0095, t0 + 0.0096};
    m = clocks_pick_spans(tr, 5, t0, sh, 3, out, &nearest);
    CHECK(m == 2 && nearest == 1 && out[0].sm_mhz == 1001 && out[1].sm_mhz == 1002,
          "nearest: m %d nearest %d (%u, %u)", m, nearest, m > 0 ? out[0].sm_mhz : 0, m > 1 ? out[1].sm_mhz : 0);
    const double edge[] = {t0 - 0.002, t0 - 0.001, t0 + 0.030, t0 + 0.031};
    m = clocks_pick_spans(tr, 5, t0, edge, 2, out, &nearest);
    CHECK(m == 2 && nearest == 1 && out[0].sm_mhz == 1000 && out[1].sm_mhz == 1004,
          "edges: m %d (%u, %u)", m, m > 0 ? out[0].sm_mhz : 0, m > 1 ? out[1].sm_mhz : 0);
    /* no readings, or no samples: nothing */
    CHECK(clocks_pick_spans(tr, 0, t0, in, 2, out, &nearest) == 0 && nearest == 0, "no readings");
    CHECK(clocks_pick_spans(tr, 5, t0, in, 0, out, &nearest) == 0 && nearest == 0, "no samples");
}

int main(void)
{
    void *fake = dlopen(FAKE_NVML_LIB, RTLD_NOW | RTLD_LOCAL);
    void *fake_old = dlopen(FAKE_NVML_OLD_LIB, RTLD_NOW | RTLD_LOCAL);
    void *sym;
    if (!fake || !fake_old) {
        fprintf(stderr, "cannot load the fake libnvidia-ml: %s\n", dlerror());
        return 1;
    }
    sym = dlsym(fake, "fake_nvml_stats");
    memcpy(&fake_stats, &sym, sizeof sym);
    sym = dlsym(fake_old, "fake_nvml_stats");
    memcpy(&fake_old_stats, &sym, sizeof sym);
    if (!fake_stats || !fake_old_stats || dlsym(fake_old, "nvmlDeviceGetCurrentClocksEventReasons")) {
        fprintf(stderr, "the fake libnvidia-ml builds are not the expected ones\n");
        return 1;
    }
    test_reason_format();
    test_null_handle();
    test_open_failures();
    test_scripted_values();
    test_failing_calls();
    test_throttle_fallback();
    test_sampler();
    test_repeated_windows();
    test_pick_spans();
    dlclose(fake_old);
    dlclose(fake);
    return test_finish("test_clocks");
}
