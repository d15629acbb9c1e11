/* tests/test_fleet_cli.c (cpu): `compare --device all|N,M` end to end on
 * the fake GPU library (tests/fake_gpu.c, COMPARE_GPU_LIB): the device
 * blocks, one CSV whose rows carry each GPU's device columns, the fleet
 * summary flagging the slow GPU, one GPU after another by default and all
 * at once with --parallel-devices (the caveat printed), bad lists refused
 * before anything runs, SIGINT mid-run (complete rows only), and the one-
 * device run on the same library. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "fleetlib.h"
#include "testlib.h"

static test_proc proc;
static char dir[] = "/tmp/compare_fleet_cli_XXXXXX";
static char csv[256], logf[256];

static void run(const char *const *args, const char *count, const char *case_ms, double sig_after, int sig)
{
    char *argv[40];
    char e_lib[512], e_count[64], e_ms[64], e_log[300];
    char *env[] = {e_lib, e_count, e_ms, e_log, "FAKE_GPU_SLOW=2", NULL};
    int n = 0;
    snprintf(e_lib, sizeof e_lib, "COMPARE_GPU_LIB=%s", FAKE_GPU_LIB);
    snprintf(e_count, sizeof e_count, "FAKE_GPU_COUNT=%s", count);
    snprintf(e_ms, sizeof e_ms, "FAKE_GPU_CASE_MS=%s", case_ms);
    snprintf(e_log, sizeof e_log, "FAKE_GPU_LOG=%s", logf);
    remove(logf);
    remove(csv);
    argv[n++] = COMPARE_BIN;
    for (int i = 0; args[i] && n < 39; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    test_run(argv, env, sig_after, sig, 120, &proc);
}

static void test_sequential(void)
{
    const char *const a[] = {"--device", "all", "--n", "64", "--elems", "1000", "--csv", csv, NULL};
    char *text;
    run(a, "3", "40", 0, 0);
    CHECK(proc.status == 0, "--device all: exit %d\n%s", proc.status, proc.err);
    CHECK(strstr(proc.out, "== GPU 0 (00000000:19:00.0, GPU-fake-0000)") &&
              strstr(proc.out, "== GPU 2 (00000000:1B:00.0, GPU-fake-0002)") &&
              test_count(proc.out, "device: Fake GPU") == 3,
          "a device block per GPU:\n%s", proc.out);
    CHECK(!strstr(proc.out, "--parallel-devices"), "the parallel caveat in a sequential run");
    CHECK(strstr(proc.out, "FLEET SUMMARY: 3 GPUs on 1 host: 3 ran, 0 failed, 0 missing"), "summary:\n%s", proc.out);
    CHECK(strstr(proc.out, "SLOW sgemm m=n=k=64 cublas_fp32: GPU 2 (00000000:1B:00.0): 40.00 TFLOP/s, 20.0% below "
                           "the fleet median 50.00 (SM clock 1500 MHz mean, 1410 min; throttle: sw_power_cap)"),
          "the slow GPU:\n%s", proc.out);
    CHECK(test_count(proc.out, "SLOW ") == 4, "library rows of GPU 2 flagged: %d", test_count(proc.out, "SLOW "));
    /* hand rows: 50% of the library on every GPU, the slow one included */
    CHECK(strstr(proc.out, "naive            3/3     50.00     50.00     50.00     20.00     25.00     25.00  TFLOP/s"),
          "hand row line:\n%s", proc.out);
    CHECK(fleet_log_overlap(logf) == 0, "GPUs overlapped without --parallel-devices");
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV");
    if (!text) return;
    CHECK(strncmp(text, csv_header, strlen(csv_header)) == 0, "header");
    CHECK(test_count(text, "\n") == 1 + 3 * 6, "%d CSV lines, expected 19", test_count(text, "\n"));
    for (int d = 0; d < 3; d++) {
        char cell[96];
        /* hostname,rank(empty),device_index,device_uuid,pci_bus_id */
        snprintf(cell, sizeof cell, ",,%d,GPU-fake-%04d,00000000:%02X:00.0,", d, d, 0x19 + d);
        CHECK(test_count(text, cell) == 6, "GPU %d: %d rows with '%s'", d, test_count(text, cell), cell);
    }
    CHECK(test_count(text, ",ok,") == 18, "ok rows: %d", test_count(text, ",ok,"));
    free(text);
}

static void test_parallel(void)
{
    const char *const a[] = {"--device", "0,2", "--parallel-devices", "--n", "64,128", "--csv", csv, "--ops",
                             "sgemm", NULL};
    char *text;
    run(a, "3", "200", 0, 0);
    CHECK(proc.status == 0, "--parallel-devices: exit %d\n%s", proc.status, proc.err);
    CHECK(strstr(proc.out, "--parallel-devices: 2 GPUs run at the same time. They share this host's CPU cores"),
          "the caveat:\n%s", proc.out);
    CHECK(fleet_log_overlap(logf) == 1, "the GPUs did not run at once (log %d)", fleet_log_overlap(logf));
    CHECK(strstr(proc.out, "FLEET SUMMARY: 2 GPUs on 1 host: 2 ran") && test_count(proc.out, "SLOW ") == 4,
          "summary:\n%s", proc.out);
    text = test_read_file(csv);
    CHECK(text && test_count(text, "\n") == 1 + 2 * 2 * 3 && test_count(text, ",,2,GPU-fake-0002,") == 6 &&
              test_count(text, ",,1,GPU-fake-0001,") == 0,
          "parallel CSV:\n%s", text ? text : "(none)");
    free(text);
}

static void test_refused(void)
{
    const char *const a[] = {"--device", "0,5", "--csv", csv, NULL};
    const char *const b[] = {"--device", "all", NULL};
    const char *const c[] = {"--device", "9", NULL};
    run(a, "3", "10", 0, 0);
    CHECK(proc.status == 2 && strstr(proc.err, "compare: --device 5: only 3 CUDA devices present (0..2)"),
          "--device 0,5 of 3: exit %d %s", proc.status, proc.err);
    CHECK(!test_file_exists(csv) && fleet_log_overlap(logf) == -1, "a device ran, or a CSV was made");
    run(b, "0", "10", 0, 0);
    CHECK(proc.status == 77 && test_count(proc.err, "\n") == 1 && strstr(proc.err, "no usable GPU"),
          "--device all without GPUs: exit %d %s", proc.status, proc.err);
    run(c, "3", "10", 0, 0);
    CHECK(proc.status == 2 && strstr(proc.err, "--device 9: only 3 CUDA devices present"), "--device 9: %d %s",
          proc.status, proc.err);
}

static void test_interrupt(void)
{
    const char *const a[] = {"--device", "all", "--parallel-devices", "--n", "64,128,256", "--ops", "sgemm", "--csv",
                             csv, NULL};
    char *text;
    char ls[400];
    /* each GPU runs its 3 cases one after another (1.2 s): at 1.0 s at least one
     * case is done even when start-up is slow (ASan on a loaded machine took
     * more than the 0.2 s that a SIGINT at 0.6 s left), and never all six */
    run(a, "2", "400", 1.0, SIGINT);
    CHECK(proc.status == 130, "SIGINT: exit %d\n%s", proc.status, proc.err);
    CHECK(strstr(proc.out, "MISSING GPU 0: interrupted before it finished"), "summary after SIGINT:\n%s", proc.out);
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV after SIGINT");
    if (text) {
        int lines = test_count(text, "\n");
        /* whole cases only (3 rows each), and not all six (400 ms each, SIGINT at 1000 ms) */
        CHECK((lines - 1) % 3 == 0 && lines - 1 >= 3 && lines - 1 < 18 && text[strlen(text) - 1] == '\n',
              "%d lines after SIGINT:\n%s", lines, text);
    }
    free(text);
    snprintf(ls, sizeof ls, "ls %s | grep -q tmp", dir);
    CHECK(system(ls) != 0, "a temporary CSV was left in %s", dir);
}

static void test_one_device(void)
{
    const char *const a[] = {"--device", "1", "--n", "64", "--ops", "sgemm", "--csv", csv, NULL};
    char *text;
    run(a, "2", "10", 0, 0);
    CHECK(proc.status == 0 && !strstr(proc.out, "FLEET SUMMARY") && strstr(proc.out, "device: Fake GPU"),
          "--device 1: exit %d\n%s\n%s", proc.status, proc.out, proc.err);
    text = test_read_file(csv);
    CHECK(text && test_count(text, ",,1,GPU-fake-0001,") == 3, "--device 1 CSV:\n%s", text ? text : "(none)");
    free(text);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    snprintf(csv, sizeof csv, "%s/fleet.csv", dir);
    snprintf(logf, sizeof logf, "%s/fake.log", dir);
    test_sequential();
    test_parallel();
    test_refused();
    test_interrupt();
    test_one_device();
    remove(csv);
    remove(logf);
    rmdir(dir);
    return test_finish("test_fleet_cli");
}
