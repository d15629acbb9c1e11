/* src/gpu/op_softmax.c: the softmax op, y = exp(x - max) / sum exp(x - max)
 * per row (kernels/rowwise.h), and its variants: cuDNN and a CUB
 * composition as the libraries, then the hand ladder naive -> safe ->
 * online -> fused -> cluster (kernels/softmax.h; each rung's idea and memory
 * traffic in its .cu header). Inputs, reference, verification and rate:
 * src/gpu/op_rowwise.h. The `wide` distribution is where the naive rung,
 * which leaves the max out, overflows and FAILs.
 *
 * Adding a hand softmax = its launcher with rowwise.h's contract
 *     int f(const rowwise_args *a, cudaStream_t s)
 * + one row below. */
#include "op_rowwise.h"
#include "softmax.h"

static const variant softmax_variants[] = {
    ROWWISE_LIBRARY_ROWS("softmax",
                         "cuDNN cudnnSoftmaxForward, ACCURATE (max subtracted), INSTANCE mode over rows x cols x 1 x 1")
    ROWWISE_HAND_ROW("softmax", naive, softmax_naive, "exp(x) / sum exp(x), no max: overflows on wide inputs")
    ROWWISE_HAND_ROW("softmax", safe, softmax_safe, "three passes: max, sum of exp(x - max), normalise")
    ROWWISE_HAND_ROW("softmax", online, softmax_online,
                     "two passes: running max and rescaled sum in one (Milakov & Gimelshein), then normalise")
    ROWWISE_HAND_ROW("softmax", fused, softmax_fused,
                     "one read, one write: the row on chip (warp, block or, on sm_90, cluster per row by cols)")
    ROWWISE_CLUSTER_ROW("softmax", cluster, softmax_cluster,
                        "a thread-block cluster per row, the row in distributed shared memory (sm_90+)")
    ROWWISE_TEST_ROWS("softmax")
};

const op_desc op_softmax =
    ROWWISE_OP_DESC("softmax", softmax_variants,
                    "softmax of each row of x (rows x cols), FP32 arithmetic (GB/s of x read + y written)",
                    ROWWISE_AXIS_ROWS, ROWWISE_AXIS_COLS, ROWWISE_AXIS_TYPE, ROWWISE_AXIS_DIST);
