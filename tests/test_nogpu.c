/* tests/test_nogpu.c: with no usable GPU, `compare` says so in one line,
 * says in a second what still works (the tests, --list, --help) and exits 77. Runs everywhere: on a machine with a GPU the GPU is hidden with
 * CUDA_VISIBLE_DEVICES="" (the driver then reports no devices). */
#include <string.h>

#include "testlib.h"

int main(void)
{
    test_proc p;
    char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char *argv[] = {COMPARE_BIN, "--n", "64", "--ops", "sgemm", NULL};
    char *argv_csv[] = {COMPARE_BIN, "--n", "64", "--csv", "/tmp/compare_nogpu_test.csv", NULL};
    FILE *f;

    test_run(argv, env, 0, 0, 60, &p);
    CHECK(p.status == 77, "exit %d, expected 77; stderr: %s", p.status, p.err);
    CHECK(test_contains(p.err, "no usable GPU"), "message: %s", p.err);
    CHECK(test_count(p.err, "\n") == 2, "not two lines on stderr: %s", p.err);
    CHECK(test_contains(p.err, "still work: the tests") && test_contains(p.err, "compare --list") &&
              test_contains(p.err, "compare --help"),
          "no line on what still works: %s", p.err);
    CHECK(p.out[0] == '\0', "stdout not empty: %s", p.out);

    /* no CSV is created when there is no GPU */
    remove("/tmp/compare_nogpu_test.csv");
    test_run(argv_csv, env, 0, 0, 60, &p);
    CHECK(p.status == 77, "with --csv: exit %d", p.status);
    f = fopen("/tmp/compare_nogpu_test.csv", "r");
    CHECK(f == NULL, "a CSV was created without a GPU");
    if (f) fclose(f);
    return test_finish("test_nogpu");
}
