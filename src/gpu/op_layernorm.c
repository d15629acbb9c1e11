/* src/gpu/op_layernorm.c: the LayerNorm op, y = (x - mean) / sqrt(var + eps)
 * * weight + bias per row (population variance; kernels/rowwise.h), and its
 * variants: cuDNN's graph-API norm forward and a CUB composition as the
 * libraries, then the hand ladder naive -> warp -> block -> fused ->
 * cluster (kernels/norms.h; the block rung's header says whether it uses
 * Welford or two passes, and why). Inputs, reference, verification and
 * rate: src/gpu/op_rowwise.h.
 *
 * Adding a hand LayerNorm = its launcher with rowwise.h's contract + one row. */
#include "norms.h"
#include "op_rowwise.h"

ROWWISE_NORM_OP(layernorm, "CUDNN_LAYER_NORM", "a block per row (Welford or two-pass: see its header)",
                "LayerNorm of each row of x (rows x cols), FP32 weight and bias, eps 1e-5 (GB/s of x + y + both)");
