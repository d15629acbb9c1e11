/* tests/test_plugin.c (cpu): `compare --plugin`, all that needs no GPU.
 *  - the good test plugin's variants (ABI 2, a row for every op; the sort,
 *    histogram and scan rows of one name joined into one variant) join the
 *    catalog: --list shows them with their kind, math and source (the
 *    plugin's file name), --variants takes them; so does the example plugin's
 *    (examples/plugin: sgemm and reduce, both named mine);
 *  - a real ABI-1 plugin (tests/plugins/abi1_plugin.cu) is refused with exit 2
 *    and the steps to port it, before any GPU work;
 *  - every bad plugin is refused with exit 2 and a message naming the plugin
 *    and what is wrong, before any GPU work (CUDA_VISIBLE_DEVICES="" hides any
 *    GPU: the refusal still comes first, exit 2, not 77): a missing file, a
 *    missing symbol (with dlerror's text), an ABI mismatch, a built-in name, an
 *    invalid name, an op that takes no plugin, a type its op does not take, a
 *    name listed twice (for an op without types; for one type of an op with
 *    types), no launcher, no struct_size; and the same plugin given twice. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static test_proc proc;

/* A copy of text with each run of spaces made one space (malloc'ed). */
static char *squeeze(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    if (!out) return NULL;
    for (const char *p = text; *p; p++)
        if (*p != ' ' || o == out || o[-1] != ' ') *o++ = *p;
    *o = '\0';
    return out;
}

static void run(char *const *argv)
{
    char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    test_run(argv, env, 0, 0, 60.0, &proc);
}

static void bad(const char *plugin, const char *needle1, const char *needle2)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PLUGIN_DIR, plugin);
    char *argv[] = {COMPARE_BIN, "--plugin", path, "--n", "64", NULL};
    run(argv);
    CHECK(proc.status == 2, "--plugin %s: exit %d, expected 2 (stderr: %s)", plugin, proc.status, proc.err);
    CHECK(test_contains(proc.err, "--plugin '") && test_contains(proc.err, plugin), "%s: the message does not name it: %s",
          plugin, proc.err);
    CHECK(test_contains(proc.err, needle1), "%s: message lacks \"%s\": %s", plugin, needle1, proc.err);
    if (needle2) CHECK(test_contains(proc.err, needle2), "%s: message lacks \"%s\": %s", plugin, needle2, proc.err);
    CHECK(proc.out[0] == '\0', "%s: wrote to stdout: %s", plugin, proc.out);
}

int main(void)
{
    /* the good plugin: its rows in --list, whole columns */
    {
        char *argv[] = {COMPARE_BIN, "--plugin", GOOD_PLUGIN, "--list", NULL};
        static const char *const rows[][3] = {
            {"sgemm", "good_sgemm", "fp32"},         {"sgemm", "good_declines", "fp32"},
            {"sgemm", "good_error", "fp32"},         {"sgemm", "good_wrong", "fp32"},
            {"reduce", "good_reduce", "fp32"},       {"sort", "good_sort", "u32,f32"},
            {"sort", "good_u32only", "u32,f32"},     {"transpose", "good_transpose", "fp32"},
            {"histogram", "good_hist", "u8,f32"},    {"scan", "good_scan", "i32,f32"},
            {"transfer", "good_transfer", "fp32"}};
        run(argv);
        CHECK(proc.status == 0, "--plugin good --list: exit %d (%s)", proc.status, proc.err);
        /* the columns are as wide as their longest entry: compared with each run of spaces as one */
        char *out = squeeze(proc.out);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            char want[160];
            snprintf(want, sizeof want, "\n%s %s hand %s libgood_plugin.so ", rows[i][0], rows[i][1], rows[i][2]);
            CHECK(test_contains(out, want), "--list lacks [%s]:\n%s", want + 1, proc.out);
            /* rows of one name and op are one variant: listed once */
            snprintf(want, sizeof want, "\n%s %s ", rows[i][0], rows[i][1]);
            CHECK(test_count(out, want) == 1, "--list shows [%s] %d times:\n%s", want + 1, test_count(out, want),
                  proc.out);
        }
        CHECK(test_contains(out, "\nsgemm naive hand fp32 builtin "), "built-in rows gone:\n%s", proc.out);
        free(out);
    }
    {
        /* --variants takes a plugin's name (and only with the plugin loaded) */
        char *argv[] = {COMPARE_BIN, "--plugin", GOOD_PLUGIN, "--variants", "good_sgemm", "--list", NULL};
        char *argv2[] = {COMPARE_BIN, "--variants", "good_sgemm", "--list", NULL};
        run(argv);
        CHECK(proc.status == 0, "--variants good_sgemm with the plugin: exit %d (%s)", proc.status, proc.err);
        run(argv2);
        CHECK(proc.status == 2 && test_contains(proc.err, "unknown variant 'good_sgemm'"),
              "--variants good_sgemm without the plugin: exit %d (%s)", proc.status, proc.err);
    }
    {
        /* the example plugin (examples/plugin/mine.cu, built in this tree): two ops, one name */
        char *argv[] = {COMPARE_BIN, "--plugin", EXAMPLE_PLUGIN, "--list", NULL};
        run(argv);
        CHECK(proc.status == 0, "--plugin libmine.so --list: exit %d (%s)", proc.status, proc.err);
        char *out = squeeze(proc.out);
        CHECK(test_contains(out, "\nsgemm mine hand fp32 libmine.so ") &&
                  test_contains(out, "\nreduce mine hand fp32 libmine.so "),
              "--list lacks the example's sgemm and reduce rows:\n%s", proc.out);
        free(out);
    }
    {
        /* a real ABI-1 plugin: refused, exit 2 before any GPU work, with the way to port it */
        char *argv[] = {COMPARE_BIN, "--plugin", ABI1_PLUGIN, "--n", "64", NULL};
        run(argv);
        CHECK(proc.status == 2, "an ABI-1 plugin: exit %d, expected 2 (%s)", proc.status, proc.err);
        CHECK(test_contains(proc.err, "libabi1_plugin.so': ABI version 1") &&
                  test_contains(proc.err, "speaks ABI version 2") &&
                  test_contains(proc.err, "\"Porting from ABI 1\"") && test_contains(proc.err, ".struct_size") &&
                  test_contains(proc.err, ".launch(const compare_plugin_args *a, cudaStream_t s)"),
              "the ABI-1 refusal does not say how to port: %s", proc.err);
        CHECK(proc.out[0] == '\0', "an ABI-1 plugin: wrote to stdout: %s", proc.out);
    }
    {
        char *argv[] = {COMPARE_BIN, "--plugin", "/nonexistent/libnone.so", "--list", NULL};
        run(argv);
        CHECK(proc.status == 2 && test_contains(proc.err, "--plugin '/nonexistent/libnone.so': cannot load it") &&
                  test_contains(proc.err, "No such file"),
              "a missing plugin: exit %d (%s)", proc.status, proc.err);
    }
    {
        char *argv[] = {COMPARE_BIN, "--plugin", GOOD_PLUGIN, "--plugin", GOOD_PLUGIN, "--list", NULL};
        run(argv);
        CHECK(proc.status == 2 && test_contains(proc.err, "given twice"), "the same plugin twice: exit %d (%s)",
              proc.status, proc.err);
    }
    bad("libbad_plugin_1.so", "no symbol compare_plugin_get", "undefined symbol");
    bad("libbad_plugin_2.so", "ABI version 99", "speaks version 2");
    bad("libbad_plugin_3.so", "variant 'naive' of op sgemm already exists", NULL);
    bad("libbad_plugin_4.so", "invalid name 'Bad-Name'", NULL);
    bad("libbad_plugin_5.so", "op 'fft' takes no plugin", "transfer fp32");
    bad("libbad_plugin_6.so", "variant 'crossed' (op sgemm): type 'u32' is not one the op takes (fp32|tf32",
        "inputs A (m x k), B (k x n); output C (m x n)");
    bad("libbad_plugin_7.so", "variant 'twice' is listed twice (sgemm's cases carry no element type", NULL);
    bad("libbad_plugin_8.so", "variant 'twice_u32' is listed twice for type u32", NULL);
    bad("libbad_plugin_9.so", "variant 'nolaunch' (op reduce): no .launch", NULL);
    bad("libbad_plugin_10.so", "variant 0: struct_size 0", "sizeof(compare_plugin_variant)");
    return test_finish("test_plugin");
}
