/* tests/test_gpu_fleet.c: `compare --device all` on the real GPUs. With one
 * GPU it is the one-device run (rows of device 0, no summary); with several,
 * every GPU runs every variant ok, one after another and then at once
 * (--parallel-devices), one CSV holds each GPU's rows, and the FLEET SUMMARY
 * counts them all. Every variant on every GPU: a kernel that sets a
 * per-device attribute once per process (the shared-memory opt-in) fails on
 * the second GPU and shows here as ERROR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib_gpu.h"

static test_proc proc;

static void run_all(const char *csv, int parallel, int gpus)
{
    char *argv[] = {COMPARE_BIN, "--device", "all", "--n", "256", "--elems", "4099", "--reps", "3", "--max-time",
                    "0.2", "--quiet", "--csv", (char *)csv, parallel ? "--parallel-devices" : NULL, NULL};
    char *text;
    char want[64];
    test_run(argv, NULL, 0, 0, 900, &proc);
    CHECK(proc.status == 0, "--device all%s: exit %d\n%s\n%s", parallel ? " --parallel-devices" : "", proc.status,
          proc.out, proc.err);
    CHECK(!strstr(proc.out, " ERROR") && !strstr(proc.out, " FAIL"), "an ERROR or FAIL row:\n%s", proc.out);
    if (gpus > 1) {
        snprintf(want, sizeof want, "FLEET SUMMARY: %d GPUs on 1 host: %d ran, 0 failed, 0 missing", gpus, gpus);
        CHECK(strstr(proc.out, want), "no '%s':\n%s", want, proc.out);
    } else {
        CHECK(!strstr(proc.out, "FLEET SUMMARY"), "a summary for one GPU");
    }
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV");
    if (!text) return;
    {
        /* the same number of rows for each GPU, each with its own uuid */
        int rows0 = -1;
        for (int d = 0; d < gpus; d++) {
            int rows = 0;
            snprintf(want, sizeof want, ",,%d,GPU-", d); /* rank (empty), device_index, device_uuid */
            rows = test_count(text, want);
            if (d == 0) rows0 = rows;
            CHECK(rows > 0 && rows == rows0, "GPU %d: %d rows, GPU 0: %d", d, rows, rows0);
        }
        CHECK(test_count(text, ",ERROR,") == 0 && test_count(text, ",FAIL,") == 0, "ERROR or FAIL rows in the CSV");
    }
    free(text);
}

int main(void)
{
    char dir[] = "/tmp/compare_gpu_fleet_XXXXXX", csv[128];
    int gpus = 0;
    test_require_gpu();
    CK(cudaGetDeviceCount(&gpus));
    if (!mkdtemp(dir)) return 1;
    snprintf(csv, sizeof csv, "%s/fleet.csv", dir);
    printf("%d GPU%s\n", gpus, gpus == 1 ? "" : "s");
    run_all(csv, 0, gpus);
    if (gpus > 1) run_all(csv, 1, gpus);
    remove(csv);
    rmdir(dir);
    return test_finish("test_gpu_fleet");
}
