/* tests/mpi_nogpu.c (cpu; built with -DCOMPARE_MPI=ON): compare-mpi under
 * `mpirun -np 2 --oversubscribe` with no usable GPU (hidden with
 * CUDA_VISIBLE_DEVICES="" where there is one):
 *  - both ranks exit 77 and rank 0 alone says so, in one line;
 *  - --version and a bad --device are answered once, not once per rank;
 *  - a rank that dies before it says hello (COMPARE_FLEET_TEST_DIE_RANK=1)
 *    is detected: no hang, and rank 0's summary names it missing.
 * Each rank runs inside `sh -c` that prints its exit status, so the test
 * sees every rank's, not only the one mpirun reports. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

static test_proc proc;

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* mpirun -np 2 ... sh -c 'compare-mpi ARGS; print the exit status' */
static void run_mpi(const char *const *args, char **env)
{
    char *argv[48];
    int n = 0;
    argv[n++] = MPIEXEC;
    argv[n++] = "-np";
    argv[n++] = "2";
    argv[n++] = "--oversubscribe";
    if (geteuid() == 0) argv[n++] = "--allow-run-as-root";
    argv[n++] = "sh";
    argv[n++] = "-c";
    argv[n++] = "\"$0\" \"$@\"; rc=$?; echo \"rank $OMPI_COMM_WORLD_RANK exit $rc\" >&2; exit $rc";
    argv[n++] = COMPARE_MPI_BIN;
    for (int i = 0; args[i] && n < 47; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    test_run(argv, env, 0, 0, 120, &proc);
}

int main(void)
{
    char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char *env_die[] = {"CUDA_VISIBLE_DEVICES=", "COMPARE_FLEET_TEST_DIE_RANK=1", NULL};
    {
        const char *const a[] = {"--n", "64", "--ops", "sgemm", NULL};
        run_mpi(a, env);
        CHECK(proc.status == 77, "no GPU: mpirun exit %d, expected 77; stderr:\n%s", proc.status, proc.err);
        CHECK(count(proc.err, "rank 0 exit 77") == 1 && count(proc.err, "rank 1 exit 77") == 1,
              "every rank exits 77:\n%s", proc.err);
        CHECK(count(proc.err, "compare: no usable GPU on any of the 2 ranks (rank 0: no usable GPU") == 1,
              "rank 0 says it once:\n%s", proc.err);
        CHECK(count(proc.err, "compare:") == 1, "one line from compare:\n%s", proc.err);
        CHECK(!strstr(proc.out, "device:") && !strstr(proc.out, "FLEET SUMMARY"), "a report without a GPU:\n%s",
              proc.out);
    }
    {
        const char *const a[] = {"--version", NULL};
        run_mpi(a, env);
        CHECK(proc.status == 0 && count(proc.out, "compare ") == 1, "--version: exit %d, stdout:\n%s", proc.status,
              proc.out);
    }
    {
        const char *const a[] = {"--device", "0,0", NULL};
        run_mpi(a, env);
        CHECK(proc.status == 2, "--device 0,0: exit %d", proc.status);
        CHECK(count(proc.err, "compare: --device '0,0': device 0 is listed twice") == 1 &&
                  count(proc.err, "rank 1 exit 2") == 1,
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
    return test_finish("test_mpi_nogpu");
}
