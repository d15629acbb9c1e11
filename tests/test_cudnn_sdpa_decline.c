/* tests/test_cudnn_sdpa_decline.c (cpu): the attention op's cudnn_sdpa row
 * (baselines/cudnn_sdpa.c, compiled into this test with cuDNN's loader alone:
 * the CUDA runtime is linked for its symbols, nothing of it is called, no GPU
 * needed) declines when cuDNN is missing. With COMPARE_CUDNN_LIB pointing at
 * a missing file, supports says 0 with the loader's SKIP text ("cuDNN not
 * found (dlopen: ...)" naming the file; "cuDNN not found at build time" in a
 * build without cuDNN's headers), plan_make returns STATUS_ERROR with the
 * same text in status.h's buffer and no plan, and freeing no plan is
 * harmless. */
#include "cudnn_sdpa.h"
#include "status.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    const attention_args a = {.batch = 1, .heads = 2, .seq_q = 128, .seq_kv = 128, .head_dim = 64, .causal = 1,
                              .scale = 0.125f, .type = ELEM_BF16};
    char why[1024] = "";
    cudnn_sdpa_plan *p = (cudnn_sdpa_plan *)&a; /* must come back NULL */
    CHECK(setenv("COMPARE_CUDNN_LIB", "/nonexistent/compare-test/libcudnn.so.9", 1) == 0, "setenv");
    CHECK(cudnn_sdpa_supports(&a, why, sizeof why) == 0, "taken without cuDNN");
#ifdef COMPARE_HAVE_CUDNN
    CHECK(strncmp(why, "cuDNN not found (dlopen: ", 25) == 0, "SKIP text: %s", why);
    CHECK(test_contains(why, "/nonexistent/compare-test/libcudnn.so.9"), "the text does not name the file: %s", why);
#else
    CHECK(strncmp(why, "cuDNN not found at build time", 29) == 0, "SKIP text: %s", why);
#endif
    status_clear();
    CHECK(cudnn_sdpa_plan_make(&p, &a, NULL) == STATUS_ERROR, "a plan without cuDNN");
    CHECK(p == NULL, "plan_make left a plan");
    CHECK(strcmp(status_message(), why) == 0, "plan_make's message %s, supports' %s", status_message(), why);
    cudnn_sdpa_plan_free(NULL);
    printf("SKIP text: %s\n", why);
    return test_finish("test_cudnn_sdpa_decline");
}
