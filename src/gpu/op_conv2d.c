/* src/gpu/op_conv2d.c: the conv2d op, a forward 2-D convolution (stride 1,
 * zero padding r / 2: "same" output size; kernels/conv2d.h is the contract),
 * in fp32, fp16 or bf16 with FP32 sums, and its variants: cuDNN's
 * cudnnConvolutionForward with the algorithm cudnnFind picked, in FMA /
 * default math (cudnn, the reference library) and in tensor-op math
 * (cudnn_tensor_op), then the course's ladder naive -> const_mask ->
 * tiled_halo -> tiled_cached -> fast (kernels/conv2d_*.cu, each rung's idea
 * in its header), and fast_tf32 (fp32 in TF32 math: fast's tap form on
 * tensor cores, kernels/conv2d_fast_tf32.cu).
 *
 * Axes: batch (N), c_in (C), c_out (K), h, w (the image), r (the mask's
 * side, odd), type. The names are not DESIGN.md's n, c, k: axes named m, n
 * and k are fed by the GEMM shape options (--n would set the batch), so the
 * channels are c_in / c_out and the batch is batch. The defaults are the
 * course's case: one 8192 x 8192 single-channel image (N = C = K = 1), a
 * 3 x 3 mask, fp32. Multi-channel cases through --axis, e.g. a ResNet layer:
 *     --axis batch=32 --axis c_in=64 --axis c_out=64 --axis h=56 --axis w=56
 * (shapes/conv.txt lists the benchmark's cases).
 *
 * Inputs (cuRAND, seeded): x and w uniform in (-1, 1], made in FP32 and
 * rounded once on the device to the type, so the reference reads what the
 * kernels read. Verification: y poisoned (NaN) before each checked run;
 * every element checked against the FP64 reference recomputed on the GPU
 * (src/gpu/conv_ref.h) under src/core/verify_conv.h's rule, whose tolerance
 * grows with c_in r r and the row's math (tf32 for cudnn_tensor_op and
 * fast_tf32 on fp32).
 *
 * Rate: TFLOP/s of 2 N K C H W r r; %peak against the row's math (FP32 SIMT
 * for the hand rows, TF32 for fast_tf32 in fp32). Bytes: x and w read, y
 * written once (the roofline columns: the single-channel cases are
 * memory-bound at small r).
 *
 * Adding a hand kernel = its .cu exporting the launcher and supports query
 * of kernels/conv2d.h + one CONV2D_HAND_ROW below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conv2d.h"
#include "conv_ref.h"
#include "conv_wrong.h"
#include "cudnn_conv.h"
#include "inputs.h"
#include "kernel_ran.h"
#include "op.h"
#include "verify_conv.h"

typedef struct {
    conv2d_args a;            /* sizes and buffers x, w, y */
    conv_check_sums *sums;    /* the check's results (device) */
    double *at;               /* conv_ref_at's y, r, s (device) */
    cudnn_conv_plan *plan[2]; /* the cudnn rows' plans (FMA / default, tensor op),
                                 made by their prepare */
} conv2d_data;

/* The case's sizes as launcher arguments, without buffers. */
static conv2d_args conv2d_args_of(const plan_case *pc)
{
    conv2d_args a;
    memset(&a, 0, sizeof a);
    a.batch = plan_case_axis(pc, "batch");
    a.c_in = plan_case_axis(pc, "c_in");
    a.c_out = plan_case_axis(pc, "c_out");
    a.height = plan_case_axis(pc, "h");
    a.width = plan_case_axis(pc, "w");
    a.r = (int)plan_case_axis(pc, "r");
    a.type = elem_type_from_name(pc->type);
    return a;
}

static double conv2d_elems_x(const conv2d_args *a) { return (double)a->batch * a->c_in * a->height * a->width; }
static double conv2d_elems_w(const conv2d_args *a) { return (double)a->c_out * a->c_in * a->r * a->r; }
static double conv2d_elems_y(const conv2d_args *a) { return (double)a->batch * a->c_out * a->height * a->width; }

static size_t conv2d_case_bytes(const plan_case *pc)
{
    const conv2d_args a = conv2d_args_of(pc);
    const double b = elem_type_bytes(a.type), nx = conv2d_elems_x(&a), nw = conv2d_elems_w(&a);
    /* x, w, y in the type; the FP32 staging of the larger input for a 16-bit type
     * (set-up only) */
    return (size_t)((nx + nw + conv2d_elems_y(&a)) * b + (b < 4 ? (nx > nw ? nx : nw) * 4 : 0)) + 4096;
}

static void conv2d_teardown(op_case *c)
{
    conv2d_data *d = c->data;
    if (!d) return;
    cudnn_conv_plan_free(d->plan[0]);
    cudnn_conv_plan_free(d->plan[1]);
    cudaFree((void *)d->a.x);
    cudaFree((void *)d->a.w);
    cudaFree(d->a.y);
    cudaFree(d->sums);
    cudaFree(d->at);
    free(d);
    c->data = NULL;
}

static int conv2d_setup(op_case *c)
{
    const plan_case *pc = c->pc;
    cudaStream_t s = c->dev->stream;
    conv2d_data *d = calloc(1, sizeof *d);
    float *stage = NULL;
    char why[256];
    int st = STATUS_ERROR;
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->a = conv2d_args_of(pc);
    conv2d_args *a = &d->a;
    /* a case no row takes (an even r, a plane over 2^31 elements): no buffers;
     * every row's supports query calls conv2d_case_ok, so each is SKIP with
     * the reason instead of ERROR (nothing failed) */
    if (!conv2d_case_ok(a, why, sizeof why)) return STATUS_OK;
    const size_t nx = (size_t)conv2d_elems_x(a), nw = (size_t)conv2d_elems_w(a), ny = (size_t)conv2d_elems_y(a);
    const size_t b = (size_t)elem_type_bytes(a->type);
    if (check_cuda_status(cudaMalloc((void **)&a->x, nx * b), "cudaMalloc(x)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&a->w, nw * b), "cudaMalloc(w)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc(&a->y, ny * b), "cudaMalloc(y)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->sums, sizeof *d->sums), "cudaMalloc(sums)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->at, 3 * sizeof(double)), "cudaMalloc(at)", __FILE__, __LINE__) ||
        (a->type != ELEM_FP32 && check_cuda_status(cudaMalloc((void **)&stage, (nx > nw ? nx : nw) * sizeof(float)),
                                                   "cudaMalloc(staging)", __FILE__, __LINE__)))
        goto done;
    if (inputs_reset(c->dev->rng, c->seed) ||
        inputs_uniform_pm1_as(c->dev->rng, pc->type, (void *)a->x, stage ? stage : (float *)a->x, nx, s) ||
        inputs_uniform_pm1_as(c->dev->rng, pc->type, (void *)a->w, stage ? stage : (float *)a->w, nw, s) ||
        check_cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize", __FILE__, __LINE__))
        goto done;
    st = STATUS_OK;
done:
    cudaFree(stage); /* after the synchronisation (or an error that ends the case) */
    return st;
}

static int conv2d_poison(op_case *c)
{
    conv2d_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->a.y, 0xff, (size_t)conv2d_elems_y(&d->a) * (size_t)elem_type_bytes(d->a.type),
                            c->dev->stream)); /* NaN in every type */
    return STATUS_OK;
}

static int v_cudnn(const op_case *c, const variant *v, cudaStream_t s);

/* The row's math: the type, or tf32 on fp32 for cudnn_tensor_op (the cudnn
 * row with fn_index 1) and fast_tf32 (its launcher). */
static const char *conv2d_math(const plan_case *pc, const variant *v)
{
    const int tf32_row = (v->run == v_cudnn && v->fn_index == 1) || v->fn == (variant_fn)conv2d_fast_tf32;
    return tf32_row && strcmp(pc->type, "fp32") == 0 ? "tf32" : pc->type;
}

static int conv2d_verify(op_case *c, const variant *v, result_row *r)
{
    conv2d_data *d = c->data;
    const conv2d_args *a = &d->a;
    cudaStream_t s = c->dev->stream;
    /* a cudnn row whose algorithm works in a transformed domain: judged as a
     * whole (verify_conv.h's transform rule); every other row per element */
    const int transform = v->run == v_cudnn && cudnn_conv_plan_transform(d->plan[v->fn_index]);
    const double tol = verify_conv_tolerance(c->pc->type, conv2d_math(c->pc, v), a->c_in, a->r);
    const double ftol = verify_conv_transform_tolerance(c->pc->type, conv2d_math(c->pc, v), a->c_in, a->r);
    const double out_floor = verify_conv_floor(c->pc->type);
    conv_check_sums h;
    verify_verdict vd;
    double worst, at[3] = {0, 0, 0};
    if (tol <= 0 || ftol <= 0 || out_floor < 0) {
        status_set_message("conv2d: no tolerance rule for type %s", c->pc->type);
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMemsetAsync(d->sums, 0, sizeof *d->sums, s));
    CK_CUDA(cudaMemsetAsync(&d->sums->first_bad, 0xff, sizeof d->sums->first_bad, s));
    CK_LAUNCH(conv_ref_check(a, tol, out_floor, d->sums, s));
    CK_CUDA(cudaMemcpyAsync(&h, d->sums, sizeof h, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    memcpy(&worst, &h.worst, sizeof worst);
    if (transform)
        verify_conv_judge_transform(h.sum_sq_err, h.sum_sq_ref, (long long)h.nonfinite, ftol, &vd);
    else
        verify_conv_judge(worst, (long long)h.nonfinite, (long long)h.bad, tol, &vd);
    r->rel_err = vd.rel_err;
    r->tolerance = vd.tolerance;
    if (vd.pass) return STATUS_OK;
    if (h.first_bad != ~0ULL) { /* the first element off: its value, the reference, the scale */
        CK_LAUNCH(conv_ref_at(a, (long long)h.first_bad, d->at, s));
        CK_CUDA(cudaMemcpyAsync(at, d->at, sizeof at, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
    }
    const long long hw = a->height * a->width, f = h.first_bad != ~0ULL ? (long long)h.first_bad : -1;
    snprintf(r->message, sizeof r->message,
             "%llu of %.0f outputs off (%llu NaN/Inf); first at (n, k, i, j) = (%lld, %lld, %lld, %lld): %.6g, "
             "reference %.6g (scale %.3g); %s %.3g (tolerance %.3g)",
             h.bad, conv2d_elems_y(a), h.nonfinite, f >= 0 ? f / hw / a->c_out : -1, f >= 0 ? f / hw % a->c_out : -1,
             f >= 0 ? f % hw / a->width : -1, f >= 0 ? f % a->width : -1, at[0], at[1], at[2],
             transform ? "a transform algorithm, judged as a whole: ||y - r|| / ||r||" : "worst |y - r| / s",
             vd.rel_err, vd.tolerance);
    return STATUS_FAIL;
}

static void conv2d_fill_row(const op_case *c, const variant *v, result_row *r)
{
    const conv2d_args a = conv2d_args_of(c->pc);
    r->math = conv2d_math(c->pc, v);
    r->flops = verify_conv_flops(a.batch, a.c_in, a.c_out, a.height, a.width, a.r);
    r->bytes = verify_conv_bytes(a.batch, a.c_in, a.c_out, a.height, a.width, a.r, elem_type_bytes(a.type));
}

// ---------------------------------------------------------------------------
// adapters

/* hand rows: v->fn the launcher, v->aux its supports query */
static int v_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const conv2d_data *d = c->data;
    CK_LAUNCH(((conv2d_launcher)v->fn)(&d->a, s));
    return STATUS_OK;
}

static int v_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    const conv2d_args a = conv2d_args_of(pc);
    (void)dev;
    return v->aux ? ((conv2d_supports_fn)v->aux)(&a, why, len) : 1;
}

/* const_mask: the mask copied to __constant__ memory before each call, untimed */
static int v_const_mask_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    const conv2d_data *d = c->data;
    (void)v;
    CK_LAUNCH(conv2d_const_mask_load(&d->a, s));
    return STATUS_OK;
}

/* cudnn rows (fn_index: 0 FMA / default math, 1 tensor op): Find and the
 * descriptors in the untimed queries and prepare; only the call is timed */
static int v_cudnn_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    const conv2d_args a = conv2d_args_of(pc);
    (void)dev;
    return conv2d_case_ok(&a, why, len) && cudnn_conv_supports(&a, v->fn_index, why, len);
}

static size_t v_cudnn_workspace(const plan_case *pc, const variant *v)
{
    const conv2d_args a = conv2d_args_of(pc);
    char why[256];
    return conv2d_case_ok(&a, why, sizeof why) ? cudnn_conv_workspace(&a, v->fn_index) : 0;
}

static int v_cudnn_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    conv2d_data *d = c->data;
    (void)s;
    if (d->plan[v->fn_index]) return STATUS_OK;
    return cudnn_conv_plan_make(&d->plan[v->fn_index], &d->a, v->fn_index);
}

static int v_cudnn(const op_case *c, const variant *v, cudaStream_t s)
{
    const conv2d_data *d = c->data;
    kernel_ran_note(cudnn_conv_plan_name(d->plan[v->fn_index]), NULL);
    return cudnn_conv_plan_run(d->plan[v->fn_index], &d->a, c->workspace, c->workspace_bytes, s);
}

/* test only: the halo dropped (src/gpu/conv_wrong.h) */
static int v_test_nohalo_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    const conv2d_args a = conv2d_args_of(pc);
    (void)dev;
    (void)v;
    if (!conv2d_case_ok(&a, why, len)) return 0;
    if (a.r > 1 && a.height > 1 && a.width > 1) return 1;
    snprintf(why, len, "test_nohalo plants its error in the halo: r > 1 and images wider and taller than 1 only");
    return 0;
}

// ---------------------------------------------------------------------------
// the variant table

#define CONV2D_HAND_ROW(name, launcher, query, about)                                                      \
    {.info = {"conv2d", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_hand,                     \
     .fn = (variant_fn)launcher, .aux = (variant_fn)query, .supports = v_supports},

static const variant conv2d_variants[] = {
    {.info = {"conv2d", "cudnn", 1, "types", NULL, 0, "builtin",
              "cudnnConvolutionForward, the algorithm cudnnFindConvolutionForwardAlgorithm timed fastest (untimed "
              "setup), its workspace; fp32: FMA math (no TF32), fp16/bf16: default math; FP32 compute"},
     .run = v_cudnn, .prepare = v_cudnn_prepare, .supports = v_cudnn_supports, .workspace = v_cudnn_workspace,
     .fn_index = 0, .kernel = "cudnnConvolutionForward"},
    {.info = {"conv2d", "cudnn_tensor_op", 1, "types", NULL, 0, "builtin",
              "cudnnConvolutionForward in CUDNN_TENSOR_OP_MATH (TF32 for fp32), the fastest algorithm cudnnFind "
              "timed in that math (untimed setup), its workspace"},
     .run = v_cudnn, .prepare = v_cudnn_prepare, .supports = v_cudnn_supports, .workspace = v_cudnn_workspace,
     .fn_index = 1, .kernel = "cudnnConvolutionForward"},
    CONV2D_HAND_ROW(naive, conv2d_naive, conv2d_naive_supports,
                    "one thread per output, the mask read from global memory")
    {.info = {"conv2d", "const_mask", 0, "types", NULL, 0, "builtin",
              "one thread per output, the mask in __constant__ memory (copied in by an untimed prepare step; "
              "masks up to 60 KiB)"},
     .run = v_hand, .prepare = v_const_mask_prepare, .fn = (variant_fn)conv2d_const_mask,
     .aux = (variant_fn)conv2d_const_mask_supports, .supports = v_supports},
    CONV2D_HAND_ROW(tiled_halo, conv2d_tiled_halo, conv2d_tiled_halo_supports,
                    "a 32 x 8 output tile a block, its input tile plus halo staged in shared memory")
    CONV2D_HAND_ROW(tiled_cached, conv2d_tiled_cached, conv2d_tiled_cached_supports,
                    "a 32 x 8 output tile a block, only the tile in shared memory, the halo read through L1")
    CONV2D_HAND_ROW(fast, conv2d_fast, conv2d_fast_supports,
                    "single channel: 4 x 4 outputs a thread, 16-byte loads into a shared tile with halo, the mask "
                    "in registers; multi-channel: an implicit GEMM, mma.sync fp16/bf16 on tensor cores, FP32 "
                    "SIMT for fp32")
    CONV2D_HAND_ROW(fast_tf32, conv2d_fast_tf32, conv2d_fast_tf32_supports,
                    "fp32 in TF32 math: fast's tap form (64 output channels x a 28 x 8 pixel tile a block, the tile "
                    "and halo staged once a chunk of 8 channels, every tap a GEMM against it) on mma.sync m16n8k8 "
                    "tf32, inputs rounded to TF32; r = 3, 5, c_in % 8 == 0")
    {.info = {"conv2d", "test_nohalo", 0, "types", NULL, 1, "builtin",
              "test only: each 16 x 16 tile of outputs takes the taps outside its tile as zero (halo dropped)"},
     .run = v_hand, .fn = (variant_fn)conv2d_test_nohalo, .supports = v_test_nohalo_supports},
};

const op_desc op_conv2d = {
    {.name = "conv2d",
     .size_kind = OP_SIZE_MATRIX,
     .rate = OP_RATE_TFLOPS,
     .peak = OP_PEAK_COMPUTE,
     .ref_library = "cudnn",
     .best_library = "cudnn_tensor_op",
     .types = {"fp32", "fp16", "bf16"},
     .about = "forward 2-D convolution, stride 1, zero padding (same size), NCHW x KCRS, fp32/fp16/bf16, FP32 sums "
              "(TFLOP/s of 2 N K C H W r r)",
     .axes = {{"batch", OP_AXIS_INT, "1", 1, 65536, {NULL}, 0, "images in the batch (N)"},
              {"c_in", OP_AXIS_INT, "1", 1, 4096, {NULL}, 0, "input channels (C)"},
              {"c_out", OP_AXIS_INT, "1", 1, 4096, {NULL}, 0, "output channels, the masks (K)"},
              {"h", OP_AXIS_INT, "8192", 1, CATALOG_MAX_DIM, {NULL}, 0, "image height (H, the output's too)"},
              {"w", OP_AXIS_INT, "8192", 1, CATALOG_MAX_DIM, {NULL}, 0, "image width (W, the output's too)"},
              {"r", OP_AXIS_INT, "3", 1, CONV2D_MAX_R, {NULL}, 0, "mask side, odd (r x r; padding r / 2)"},
              {"type", OP_AXIS_ENUM, "fp32", 0, 0, {NULL}, 0,
               "element type of x, w, y (fp32, fp16, bf16: --axis type=fp16), FP32 sums"}}},
    conv2d_variants,
    (int)(sizeof conv2d_variants / sizeof conv2d_variants[0]),
    conv2d_case_bytes,
    conv2d_setup,
    conv2d_poison,
    conv2d_verify,
    conv2d_fill_row,
    conv2d_teardown,
    NULL,
};
