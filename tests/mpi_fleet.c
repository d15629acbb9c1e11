/* tests/mpi_fleet.c (cpu, mpi; built with -DCOMPARE_MPI=ON): compare-mpi
 * under `mpirun -np 2 --oversubscribe`.
 * With no usable GPU (hidden with CUDA_VISIBLE_DEVICES="" where there is one):
 *  - both ranks exit 77 and rank 0 alone says so, in one line;
 *  - --version and a bad --device are answered once, not once per rank;
 *  - a rank that dies before it says hello (COMPARE_FLEET_TEST_DIE_RANK=1)
 *    is detected: no hang, and rank 0's summary names it missing.
 * On the fake GPU library (tests/fake_gpu.c):
 *  - two ranks on one GPU take turns (never at once), one CSV holds both;
 *  - two ranks on two GPUs run at once, unless --fleet-serial;
 *  - a planted bad device on rank 1: its ERROR rows, rank 0's rows, exit 1;
 *  - rank 1 killed after its first case: the CSV keeps the rows that
 *    arrived, the summary names rank 1 missing.
 * Each rank runs inside `sh -c` that prints its exit status, and mpirun is
 * told not to end the job at the first non-zero one (Open MPI 4's
 * orte_abort_on_non_zero_status), so the test sees every rank's status;
 * except where a rank dies: mpirun's SIGTERM must then reach rank 0 itself,
 * not a shell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleetlib.h"
#include "testlib.h"

static test_proc proc;
static char dir[] = "/tmp/compare_mpi_fleet_XXXXXX";
static char csv[256], logf[256], e_lib[512], e_log[300];

/* mpirun -np 2 ... sh -c 'compare-mpi ARGS; print the exit status' (the
 * shell left out when an environment entry plants a dying rank) */
static void run_mpi(const char *const *args, char **env_in)
{
    char *env[16];
    int wrap = 1, ne = 0;
    for (int i = 0; env_in[i] && ne < 14; i++) {
        wrap &= strncmp(env_in[i], "COMPARE_FLEET_TEST_DIE_RANK=", 28) != 0;
        env[ne++] = env_in[i];
    }
    if (wrap) env[ne++] = "OMPI_MCA_orte_abort_on_non_zero_status=0";
    env[ne] = NULL;
    char *argv[48];
    int n = 0;
    argv[n++] = MPIEXEC;
    argv[n++] = "-np";
    argv[n++] = "2";
    argv[n++] = "--oversubscribe";
    if (geteuid() == 0) argv[n++] = "--allow-run-as-root";
    if (wrap) {
        argv[n++] = "sh";
        argv[n++] = "-c";
        argv[n++] = "\"$0\" \"$@\"; rc=$?; echo \"rank $OMPI_COMM_WORLD_RANK exit $rc\" >&2; exit $rc";
    }
    argv[n++] = COMPARE_MPI_BIN;
    for (int i = 0; args[i] && n < 47; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    test_run(argv, env, 0, 0, 120, &proc);
}

/* 1 if both ranks said they exited with `code` (and none with another). */
static int ranks_exit(int code)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "rank 0 exit %d\n", code);
    snprintf(b, sizeof b, "rank 1 exit %d\n", code);
    return test_count(proc.err, a) == 1 && test_count(proc.err, b) == 1 && test_count(proc.err, " exit ") == 2;
}

/* mpirun on the fake GPU library with `extra` environment entries (NULL-ended). */
static char *fake(const char *const *args, const char *e1, const char *e2, const char *e3)
{
    char *env[] = {e_lib, e_log, (char *)e1, (char *)e2, (char *)e3, NULL};
    remove(csv);
    remove(logf);
    run_mpi(args, env);
    return test_read_file(csv);
}

static void test_fake(void)
{
    char *text;
    char ok0[96], ok1[96];
    {
        /* one GPU, two ranks: turns */
        const char *const a[] = {"--n", "64", "--elems", "1000", "--csv", csv, NULL};
        text = fake(a, "FAKE_GPU_COUNT=1", "FAKE_GPU_CASE_MS=100", NULL);
        CHECK(ranks_exit(0), "shared GPU:\n%s\n%s", proc.out, proc.err);
        CHECK(strstr(proc.out, "ranks on one GPU (or all, with --fleet-serial) run one after another"),
              "no word on the turns:\n%s", proc.out);
        CHECK(fleet_log_overlap(logf) == 0, "two ranks ran on one GPU at once");
        /* rank, device_index, device_uuid, pci_bus_id */
        snprintf(ok0, sizeof ok0, ",0,0,GPU-fake-0000,00000000:19:00.0,");
        snprintf(ok1, sizeof ok1, ",1,0,GPU-fake-0000,00000000:19:00.0,");
        CHECK(text && test_count(text, "\n") == 13 && test_count(text, ok0) == 6 && test_count(text, ok1) == 6 &&
                  test_count(text, ",ok,") == 12,
              "shared GPU CSV:\n%s", text ? text : "(none)");
        CHECK(strstr(proc.out, "FLEET SUMMARY: 2 ranks on 1 GPU on 1 host: 2 ran, 0 failed, 0 missing") &&
                  strstr(proc.out, "== rank 1 on "),
              "shared GPU report:\n%s", proc.out);
        free(text);
    }
    {
        /* two GPUs: at once; with --fleet-serial, not */
        const char *const a[] = {"--n", "64,128", "--ops", "sgemm", "--csv", csv, NULL};
        const char *const b[] = {"--n", "64,128", "--ops", "sgemm", "--fleet-serial", NULL};
        text = fake(a, "FAKE_GPU_COUNT=2", "FAKE_GPU_CASE_MS=300", "FAKE_GPU_SLOW=1");
        CHECK(ranks_exit(0) && fleet_log_overlap(logf) == 1, "two GPUs: overlap %d\n%s", fleet_log_overlap(logf),
              proc.err);
        CHECK(text && test_count(text, ",1,1,GPU-fake-0001,00000000:1A:00.0,") == 6, "two GPUs CSV:\n%s",
              text ? text : "(none)");
        CHECK(strstr(proc.out, "SLOW sgemm m=n=k=128 cublas_fp32: rank 1 on "), "slow rank 1 not flagged:\n%s",
              proc.out);
        free(text);
        text = fake(b, "FAKE_GPU_COUNT=2", "FAKE_GPU_CASE_MS=100", NULL);
        CHECK(ranks_exit(0) && fleet_log_overlap(logf) == 0, "--fleet-serial: overlap %d\n%s",
              fleet_log_overlap(logf), proc.err);
        free(text);
    }
    {
        /* the planted failure: rank 1 asks for a GPU that is not there */
        const char *const a[] = {"--n", "64", "--elems", "1000", "--csv", csv, NULL};
        text = fake(a, "FAKE_GPU_COUNT=1", "FAKE_GPU_CASE_MS=20", "COMPARE_FLEET_TEST_BAD_RANK=1");
        CHECK(ranks_exit(1), "bad rank: rank 0 must exit 1:\n%s", proc.err);
        CHECK(strstr(proc.out, "FAILED rank 1 on ") &&
                  strstr(proc.out, "device 1023: --device 1023: only 1 CUDA device"),
              "bad rank report:\n%s", proc.out);
        CHECK(text && test_count(text, ",ERROR,") == 6 && test_count(text, ",1,1023,,,") == 6 &&
                  test_count(text, ",0,0,GPU-fake-0000,") == 6 && test_count(text, ",ok,") == 6,
              "bad rank CSV:\n%s", text ? text : "(none)");
        free(text);
    }
    {
        /* rank 1 dies after its first case: what arrived is kept */
        const char *const a[] = {"--n", "64,128,256,512", "--ops", "sgemm", "--csv", csv, NULL};
        text = fake(a, "FAKE_GPU_COUNT=2", "FAKE_GPU_CASE_MS=300", "COMPARE_FLEET_TEST_DIE_RANK=1:2");
        CHECK(proc.status != 0, "dead rank: exit 0");
        CHECK(strstr(proc.out, "MISSING rank 1 on ") && strstr(proc.out, "(3 rows arrived)"),
              "dead rank not reported:\n%s\n%s", proc.out, proc.err);
        CHECK(text && test_count(text, ",1,1,GPU-fake-0001,") == 3 &&
                  test_count(text, ",0,0,GPU-fake-0000,") % 3 == 0 &&
                  text[strlen(text) - 1] == '\n',
              "dead rank CSV:\n%s", text ? text : "(none)");
        free(text);
    }
}

int main(void)
{
    char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char *env_die[] = {"CUDA_VISIBLE_DEVICES=", "COMPARE_FLEET_TEST_DIE_RANK=1", NULL};
    {
        const char *const a[] = {"--n", "64", "--ops", "sgemm", NULL};
        run_mpi(a, env);
        CHECK(ranks_exit(77), "no GPU: every rank exits 77:\n%s", proc.err);
        CHECK(test_count(proc.err, "compare: no usable GPU on any of the 2 ranks (rank 0: no usable GPU") == 1,
              "rank 0 says it once:\n%s", proc.err);
        CHECK(test_count(proc.err, "compare:") == 1, "one line from compare:\n%s", proc.err);
        CHECK(!strstr(proc.out, "device:") && !strstr(proc.out, "FLEET SUMMARY"), "a report without a GPU:\n%s",
              proc.out);
    }
    {
        const char *const a[] = {"--version", NULL};
        run_mpi(a, env);
        CHECK(ranks_exit(0) && test_count(proc.out, "compare ") == 1, "--version: stdout:\n%s", proc.out);
    }
    {
        const char *const a[] = {"--device", "0,0", NULL};
        run_mpi(a, env);
        CHECK(ranks_exit(2) && test_count(proc.err, "compare: --device '0,0': device 0 is listed twice") == 1,
              "--device 0,0:\n%s", proc.err);
    }
    {
        /* rank 1 is killed before its HELLO; rank 0 (no GPU: ERROR rows) must
         * not wait for it for ever: mpirun stops the job, or the timeout */
        const char *const a[] = {"--n", "64", "--ops", "sgemm", "--fleet-timeout", "30", NULL};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        run_mpi(a, env_die);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK(t1.tv_sec - t0.tv_sec < 100, "dead rank: rank 0 hung (killed after %lds)", (long)(t1.tv_sec - t0.tv_sec));
        CHECK(proc.status != 0 && proc.status != 77, "dead rank: exit %d:\n%s", proc.status, proc.err);
        CHECK(strstr(proc.out, "FLEET SUMMARY: 2 GPUs on 1 host: 0 ran, 1 failed, 1 missing") &&
                  strstr(proc.out, "MISSING rank 1 (host unknown): its HELLO did not arrive (0 rows arrived)") &&
                  strstr(proc.out, "FAILED rank 0 on "),
              "dead rank: the summary does not name it:\n%s\n%s", proc.out, proc.err);
    }
    if (!mkdtemp(dir)) return 1;
    snprintf(csv, sizeof csv, "%s/fleet.csv", dir);
    snprintf(logf, sizeof logf, "%s/fake.log", dir);
    snprintf(e_lib, sizeof e_lib, "COMPARE_GPU_LIB=%s", FAKE_GPU_LIB);
    snprintf(e_log, sizeof e_log, "FAKE_GPU_LOG=%s", logf);
    test_fake();
    remove(csv);
    remove(logf);
    rmdir(dir);
    return test_finish("test_mpi_fleet");
}
