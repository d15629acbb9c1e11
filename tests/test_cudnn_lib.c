/* tests/test_cudnn_lib.c (cpu): cuDNN's run-time loading (baselines/cudnn_lib.c,
 * compiled into this test alone: no CUDA library is linked, no GPU needed).
 * With COMPARE_CUDNN_LIB pointing at a missing file the loader gives the
 * SKIP text of the cudnn rows, "cuDNN not found (dlopen: ...)" naming the
 * file; in a build without cuDNN's headers, "cuDNN not found at build
 * time". Either way nothing crashes and the answer is stable. */
#include "cudnn_lib.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    char why[1024] = "", again[1024] = "";
    CHECK(setenv("COMPARE_CUDNN_LIB", "/nonexistent/compare-test/libcudnn.so.9", 1) == 0, "setenv");
    CHECK(cudnn_lib_available(why, sizeof why) == 0, "a missing library counts as available");
#ifdef COMPARE_HAVE_CUDNN
    CHECK(strncmp(why, "cuDNN not found (dlopen: ", 25) == 0, "SKIP text: %s", why);
    CHECK(test_contains(why, "/nonexistent/compare-test/libcudnn.so.9"), "the text does not name the file: %s", why);
    CHECK(cudnn_lib_fns(again, sizeof again) == NULL, "a table without a library");
#else
    CHECK(strncmp(why, "cuDNN not found at build time", 29) == 0, "SKIP text: %s", why);
#endif
    CHECK(cudnn_lib_available(again, sizeof again) == 0 && strcmp(why, again) == 0, "a second call differs: %s",
          again);
    printf("SKIP text: %s\n", why);
    return test_finish("test_cudnn_lib");
}
