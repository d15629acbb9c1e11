/* tests/plugins/bad_plugin.c: plugins compare must refuse, with exit 2 and a
 * message naming the plugin, before any GPU work: built once per BAD_KIND
 * (tests/plugins.cmake). No launcher is ever called. */
#include <stddef.h>

#include "compare_plugin.h"

static int bad_sgemm(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s)
{
    (void)A, (void)B, (void)C, (void)m, (void)n, (void)k, (void)s;
    return 0;
}

static int bad_reduce(const float *x, long long n, float *out, void *ws, size_t wsb, cudaStream_t s)
{
    (void)x, (void)n, (void)out, (void)ws, (void)wsb, (void)s;
    return 0;
}

#if BAD_KIND == 1 /* no compare_plugin_get at all */
int bad_plugin_something_else(void);
int bad_plugin_something_else(void) { return 0; }
#else
static const compare_plugin_variant bad_variants[] = {
#if BAD_KIND == 3 /* the name of a built-in variant */
    {"naive", "sgemm", "fp32", NULL, bad_sgemm, NULL, NULL, NULL, NULL, NULL},
#elif BAD_KIND == 4 /* not a valid name */
    {"Bad-Name", "sgemm", "fp32", NULL, bad_sgemm, NULL, NULL, NULL, NULL, NULL},
#elif BAD_KIND == 5 /* an op that takes no plugin */
    {"myfft", "fft", "fp32", NULL, bad_sgemm, NULL, NULL, NULL, NULL, NULL},
#elif BAD_KIND == 6 /* an sgemm row with the reduce launcher */
    {"crossed", "sgemm", "fp32", NULL, NULL, bad_reduce, NULL, NULL, NULL, NULL},
#elif BAD_KIND == 7 /* the same name twice */
    {"twice", "sgemm", "fp32", NULL, bad_sgemm, NULL, NULL, NULL, NULL, NULL},
    {"twice", "sgemm", "fp32", NULL, bad_sgemm, NULL, NULL, NULL, NULL, NULL},
#else /* 2: fine rows, a wrong ABI version */
    {"fine", "sgemm", "fp32", NULL, bad_sgemm, NULL, NULL, NULL, NULL, NULL},
#endif
};
static const compare_plugin bad = {BAD_KIND == 2 ? 99 : COMPARE_PLUGIN_ABI_VERSION, "bad",
                                   (int)(sizeof bad_variants / sizeof bad_variants[0]), bad_variants};
const compare_plugin *compare_plugin_get(void) { return &bad; }
#endif
