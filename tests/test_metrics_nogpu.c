/* tests/test_metrics_nogpu.c: --metrics where there is no GPU (and so no
 * counters): `compare --metrics` exits 77 with the same two lines as any
 * other run that needs a GPU, writes no CSV and nothing on stdout; --help
 * documents the flag; a conflicting flag is a usage error (2) before any
 * GPU is looked for. Runs everywhere: a GPU present is hidden with
 * CUDA_VISIBLE_DEVICES="". */
#include <stdio.h>
#include <string.h>

#include "testlib.h"

int main(void)
{
    test_proc p;
    char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    const char *csv = "/tmp/compare_metrics_nogpu_test.csv";
    char *argv[] = {COMPARE_BIN, "--ops", "reduce,transpose", "--elems", "4096", "--n", "64", "--metrics",
                    "--csv", (char *)csv, NULL};
    char *help[] = {COMPARE_BIN, "--help", NULL};
    char *bad[] = {COMPARE_BIN, "--metrics", "--check-only", NULL};

    remove(csv);
    test_run(argv, env, 0, 0, 60, &p);
    CHECK(p.status == 77, "exit %d, expected 77; stderr: %s", p.status, p.err);
    CHECK(test_contains(p.err, "no usable GPU"), "message: %s", p.err);
    CHECK(test_count(p.err, "\n") == 2, "not two lines on stderr: %s", p.err);
    CHECK(p.out[0] == '\0', "stdout not empty: %s", p.out);
    CHECK(!test_file_exists(csv), "a CSV was created without a GPU");

    test_run(help, env, 0, 0, 60, &p);
    CHECK(p.status == 0 && test_contains(p.out, "--metrics") && test_contains(p.out, "CUPTI") &&
              test_contains(p.out, "metrics_note"),
          "--help does not document --metrics: exit %d\n%s", p.status, p.out);

    test_run(bad, env, 0, 0, 60, &p);
    CHECK(p.status == 2 && test_contains(p.err, "--metrics conflicts with --check-only"), "exit %d: %s", p.status, p.err);
    return test_finish("test_metrics_nogpu");
}
