/* src/gpu/op_rmsnorm.c: the RMSNorm op, y = x / sqrt(mean(x^2) + eps) *
 * weight per row (kernels/rowwise.h), and its variants: cuDNN's graph-API
 * norm forward and a CUB composition as the libraries, then the hand ladder
 * naive -> warp -> block -> fused -> cluster (kernels/norms.h; each rung's
 * idea and memory traffic in its .cu header). Inputs, reference,
 * verification and rate: src/gpu/op_rowwise.h.
 *
 * Adding a hand RMSNorm = its launcher with rowwise.h's contract + one row. */
#include "norms.h"
#include "op_rowwise.h"

ROWWISE_NORM_OP(rmsnorm, "CUDNN_RMS_NORM", "a block per row",
                "RMSNorm of each row of x (rows x cols), FP32 weight, eps 1e-5 (GB/s of x + y + weight)");
