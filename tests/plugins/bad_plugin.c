/* tests/plugins/bad_plugin.c: ABI-2 plugins compare must refuse, with exit 2
 * and a message naming the plugin, before any GPU work: built once per
 * BAD_KIND (tests/plugins.cmake). No launcher is ever called. (The ABI-1
 * refusal is checked on a real ABI-1 plugin, tests/plugins/abi1_plugin.cu.) */
#include <stddef.h>

#include "compare_plugin.h"

static int bad_launch(const compare_plugin_args *a, cudaStream_t s)
{
    (void)a, (void)s;
    return 0;
}

#define BAD_ROW(name, op, type, launch) {sizeof(compare_plugin_variant), name, op, type, NULL, launch, NULL, NULL}

#if BAD_KIND == 1 /* no compare_plugin_get at all */
int bad_plugin_something_else(void);
int bad_plugin_something_else(void) { return 0; }
#else
static const compare_plugin_variant bad_variants[] = {
#if BAD_KIND == 3 /* the name of a built-in variant */
    BAD_ROW("naive", "sgemm", "fp32", bad_launch),
#elif BAD_KIND == 4 /* not a valid name */
    BAD_ROW("Bad-Name", "sgemm", "fp32", bad_launch),
#elif BAD_KIND == 5 /* an op compare does not have */
    BAD_ROW("myfft", "fft", "fp32", bad_launch),
#elif BAD_KIND == 6 /* a type its op does not take */
    BAD_ROW("crossed", "sgemm", "u32", bad_launch),
#elif BAD_KIND == 7 /* the same name twice, for an op whose cases carry no type */
    BAD_ROW("twice", "sgemm", "fp32", bad_launch),
    BAD_ROW("twice", "sgemm", "tf32", bad_launch),
#elif BAD_KIND == 8 /* the same name and type twice, for an op whose cases do carry one */
    BAD_ROW("twice_u32", "sort", "u32", bad_launch),
    BAD_ROW("twice_u32", "sort", "u32", bad_launch),
#elif BAD_KIND == 9 /* no launcher */
    BAD_ROW("nolaunch", "reduce", "fp32", NULL),
#elif BAD_KIND == 10 /* a row without struct_size (as if the table were ABI 1's) */
    {0, "nosize", "sgemm", "fp32", NULL, bad_launch, NULL, NULL},
#else /* 2: fine rows, a wrong ABI version */
    BAD_ROW("fine", "sgemm", "fp32", bad_launch),
#endif
};
static const compare_plugin bad = {BAD_KIND == 2 ? 99 : COMPARE_PLUGIN_ABI_VERSION, sizeof(compare_plugin), "bad",
                                   (int)(sizeof bad_variants / sizeof bad_variants[0]), bad_variants};
const compare_plugin *compare_plugin_get(void) { return &bad; }
#endif
