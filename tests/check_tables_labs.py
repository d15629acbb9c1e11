#!/usr/bin/env python3
"""tests/check_tables_labs.py: the checks of plots/tables.py on the newer CSV
columns and ops, run by `check_tables.py --labs` (ctest test_tables_labs,
label cpu; standard library only).

CSV is tests/data/synthetic_labs.csv: sgemm at a list of shapes (rectangular,
one square; a FAIL, SKIP rows of cpu_omp, tf32_tma falling back to tf32_mma),
reduce with a cpu_omp row, transpose (fast falling back to its scalar path),
histogram (u8 and f32, uniform and skewed), scan (i32, f32), transfer, and a
column no tool knows. Checks, in order:
  1. each selection prints exactly the Markdown below (twice: the same text);
  2. --readme on a copy in DIR with blocks of the new views (shapes, the new
     ops): the blocks hold exactly the printed tables, a second run changes
     nothing, --check passes;
  3. a block whose csv= does not exist (yet): exit 2, the message names the
     block and the file, no traceback, the README unchanged.
"""

from checklib import CheckFailed, block, read, readme_fixture, run, run_ok

CAPTION = ("_NVIDIA H200, 2026-12-02, commit c0ffee123456; cc 9.0, driver 13000, CUDA runtime "
           "13000, cuBLAS 130100, seed 7, L2 flushed before each sample_")

# (name, tables.py arguments after the CSV, the output after the caption line)
EXPECTED = (
    # rectangular shapes in CSV order labelled MxNxK (n when square), the libraries' TFLOP/s,
    # a fallback naming its kernel, FAIL and SKIP cells, the note
    ('sgemm_shapes', ['--op', 'sgemm', '--view', 'shapes'],
     '**sgemm: hand kernels as % of library throughput, per shape** (% of cublas_fp32; tf32_tma: % of cublas_tf32)\n'
     '\n'
     '| shape | cublas_fp32 TFLOP/s | cublas_tf32 TFLOP/s | tiled32 | tuned | tf32_tma | cpu_omp |\n'
     '|---|---:|---:|---:|---:|---:|---:|\n'
     '| 4096x6144x4096 | 51.0 | 240 | 18.0 | 102.0 | 90.0 | SKIP |\n'
     '| 16x14336x4096 | 12.0 | 31.0 | FAIL | 81.6 | 72.0 | SKIP |\n'
     '| 1024x50257x768 | 47.0 | 205 | 18.9 | 96.9 | 45.0 (ran tf32_mma) | SKIP |\n'
     '| 512x384x256 | 4.20 | 7.50 | 25.7 | 71.4 | 63.0 | 8.3 |\n'
     '| 4096 | 50.5 | 238 | 18.0 | 102.0 | 90.0 | SKIP |\n'
     '\n'
     '* tf32_tma at 1024x50257x768 ran tf32_mma: n not a multiple of 4\n'),
    # one percent column (cuda_memcpy is reference and fastest), the speed-up of overlap over
    # pinned (asked for: the CSV has no speedup_vs column) under each size table and as a
    # ladder line
    ('transfer', ['--op', 'transfer', '--speedup', 'overlap:pinned'],
     '**transfer, 2^24 elements**\n'
     '\n'
     '| variant | median ms | spread % | GB/s | % of cuda_memcpy | % of peak | rel err | status |\n'
     '|---|---:|---:|---:|---:|---:|---:|---|\n'
     '| cuda_memcpy | 2.796 | 1.1 | 48.0 | - | - | 0 | ok |\n'
     '| pageable | 7.895 | 1.1 | 17.0 | 35.4 | - | 0 | ok |\n'
     '| pinned | 4.067 | 1.1 | 33.0 | 68.8 | - | 0 | ok |\n'
     '| overlap | 3.050 | 1.1 | 44.0 | 91.7 | - | 0 | ok |\n'
     '\n'
     'overlap: 1.33x the speed of pinned (median time ratio)\n'
     '\n'
     '**transfer, 2^26 elements**\n'
     '\n'
     '| variant | median ms | spread % | GB/s | % of cuda_memcpy | % of peak | rel err | status |\n'
     '|---|---:|---:|---:|---:|---:|---:|---|\n'
     '| cuda_memcpy | 10.53 | 1.1 | 51.0 | - | - | 0 | ok |\n'
     '| pageable | 28.26 | 1.1 | 19.0 | 37.3 | - | 0 | ok |\n'
     '| pinned | 15.34 | 1.1 | 35.0 | 68.6 | - | 0 | ok |\n'
     '| overlap | 10.96 | 1.1 | 49.0 | 96.1 | - | 0 | ok |\n'
     '\n'
     'overlap: 1.40x the speed of pinned (median time ratio)\n'
     '\n'
     '**transfer: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 | 2^26 |\n'
     '|---|---|---:|---:|\n'
     '| pageable | cuda_memcpy | 35.4 | 37.3 |\n'
     '| pinned | cuda_memcpy | 68.8 | 68.6 |\n'
     '| overlap | cuda_memcpy | 91.7 | 96.1 |\n'
     '| overlap | speed-up vs pinned | 1.33x | 1.40x |\n'),
    # a fallback marked * and its note under the ladder
    ('transpose_ladder', ['--op', 'transpose', '--view', 'ladder'],
     '**transpose: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 1002 | 2048 |\n'
     '|---|---|---:|---:|\n'
     '| naive | cublas_geam | 40.0 | 31.0 |\n'
     '| tiled_padded | cublas_geam | 90.0 | 86.2 |\n'
     '| fast | cublas_geam | 95.0 * | 106.9 |\n'
     '\n'
     '* fast at 1002 ran transpose_fast_scalar_64x64: m or n not a multiple of 4: the scalar path\n'),
    # one ladder per type and distribution, u8 before f32, uniform before skewed
    ('histogram_ladder', ['--op', 'histogram', '--view', 'ladder'],
     '**histogram u8 uniform: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 |\n'
     '|---|---|---:|\n'
     '| global_atomic | cub | 20.0 |\n'
     '| shared_private | cub | 70.0 |\n'
     '| fast | cub | 95.0 |\n'
     '\n'
     '**histogram u8 skewed: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 |\n'
     '|---|---|---:|\n'
     '| global_atomic | cub | 6.7 |\n'
     '| shared_private | cub | 62.2 |\n'
     '| fast | cub | 95.0 |\n'
     '\n'
     '**histogram f32 uniform: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 |\n'
     '|---|---|---:|\n'
     '| global_atomic | cub | 25.0 |\n'
     '| shared_private | cub | 70.0 |\n'
     '| fast | cub | 95.0 |\n'
     '\n'
     '**histogram f32 skewed: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 |\n'
     '|---|---|---:|\n'
     '| global_atomic | cub | 8.3 |\n'
     '| shared_private | cub | 62.2 |\n'
     '| fast | cub | 95.0 |\n'),
    # one ladder per type, against thrust and cub
    ('scan_ladder', ['--op', 'scan', '--view', 'ladder'],
     '**scan i32: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 | 2^26 |\n'
     '|---|---|---:|---:|\n'
     '| hillis_steele | thrust | 36.8 | 28.0 |\n'
     '| hillis_steele | cub | 25.9 | 20.6 |\n'
     '| blelloch | thrust | 68.4 | 60.0 |\n'
     '| blelloch | cub | 48.1 | 44.1 |\n'
     '| decoupled | thrust | 131.6 | 132.0 |\n'
     '| decoupled | cub | 92.6 | 97.1 |\n'
     '\n'
     '**scan f32: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 |\n'
     '|---|---|---:|\n'
     '| hillis_steele | thrust | 36.8 |\n'
     '| hillis_steele | cub | 25.9 |\n'
     '| blelloch | thrust | 68.4 |\n'
     '| blelloch | cub | 48.1 |\n'
     '| decoupled | thrust | 126.3 |\n'
     '| decoupled | cub | 88.9 |\n'),
    # the cpu_omp row as a hand row
    ('reduce_cpu', ['--op', 'reduce', '--view', 'ladder'],
     '**reduce: hand kernels as % of library throughput**\n'
     '\n'
     '| variant | % of | 2^24 |\n'
     '|---|---|---:|\n'
     '| shuffle | thrust | 126.9 |\n'
     '| shuffle | cub | 84.6 |\n'
     '| cpu_omp | thrust | 1.6 |\n'
     '| cpu_omp | cub | 1.1 |\n'),
    # --sizes MxNxK, the shape in the heading, the fallback mark on the status, SKIP with its reason
    ('sgemm_shape_sizes', ['--op', 'sgemm', '--view', 'sizes', '--sizes', '1024x50257x768'],
     '**sgemm, 1024x50257x768**\n'
     '\n'
     '| variant | median ms | spread % | TFLOP/s | % of cublas_fp32 | % of cublas_tf32 | % of FP32 peak | rel err | status |\n'
     '|---|---:|---:|---:|---:|---:|---:|---:|---|\n'
     '| cublas_fp32 | 1.682 | 1.1 | 47.0 | - | - | 70.3 | 2.1e-07 | ok |\n'
     '| cublas_tf32 | 0.3856 | 1.1 | 205 | - | - | 306.4 | 3.6e-04 | ok |\n'
     '| tiled32 | 8.877 | 1.1 | 8.91 | 18.9 | 4.3 | 13.3 | 2.1e-07 | ok |\n'
     '| tuned | 1.736 | 1.1 | 45.5 | 96.9 | 22.2 | 68.1 | 2.1e-07 | ok |\n'
     '| tf32_tma | 0.8569 | 1.1 | 92.3 | 45.0 (of cublas_tf32) | 45.0 | 137.9 | 3.6e-04 | ok * |\n'
     "| cpu_omp | - | - | - | - | - | - | - | SKIP: CPU row not run past --cpu-max-n 2048 (this case's largest dimension is 50257) |\n"
     '\n'
     '* tf32_tma at 1024x50257x768 ran tf32_mma: n not a multiple of 4\n'),
)

README = """\
# labs

<!-- tables:shapes:begin csv=results/labs.csv op=sgemm view=shapes -->
<!-- tables:shapes:end -->

<!-- tables:transfer:begin csv=results/labs.csv op=transfer view=ladder speedup=overlap:pinned -->
stale
<!-- tables:transfer:end -->

<!-- tables:hist:begin csv=results/labs.csv op=histogram view=ladder -->
<!-- tables:hist:end -->
"""

ABSENT = """\
<!-- tables:later:begin csv=results/not_measured_yet.csv op=sgemm view=shapes -->
<!-- tables:later:end -->
"""


def check_expected(script, csv_path):
    for name, args, want in EXPECTED:
        outputs = [run_ok(script, csv_path, *args) for _ in range(2)]
        if outputs[0] != outputs[1]:
            raise CheckFailed(f"{name}: two runs printed different text")
        want = f"{CAPTION}\n\n{want}"
        if outputs[0] != want:
            raise CheckFailed(f"{name} ({' '.join(args)}): output differs from the expected "
                              f"Markdown\n--- expected:\n{want}--- got:\n{outputs[0]}")
        print(f"ok: {name}: {' '.join(args)}")


def check_readme(script, csv_path, work):
    readme = readme_fixture(work, csv_path, "labs.csv", README)
    run_ok(script, "--readme", readme)
    text = read(readme)
    for name, args in (("shapes", ["--op", "sgemm", "--view", "shapes"]),
                       ("transfer", ["--op", "transfer", "--view", "ladder",
                                     "--speedup", "overlap:pinned"]),
                       ("hist", ["--op", "histogram", "--view", "ladder"])):
        if block(text, name).strip() != run_ok(script, csv_path, *args).strip():
            raise CheckFailed(f"block {name} differs from tables.py {' '.join(args)}:\n{text}")
    if "stale" in text:
        raise CheckFailed(f"the stale block text was kept:\n{text}")
    run_ok(script, "--readme", readme)
    if read(readme) != text:
        raise CheckFailed("a second --readme run changed the file")
    run_ok(script, "--readme", readme, "--check")
    print("ok: --readme fills blocks of the shapes view and the new ops; --check passes")

    with open(readme, "a", encoding="utf-8") as f:
        f.write(ABSENT)
    before = read(readme)
    for extra in ([], ["--check"]):
        rc, _, err = run(script, "--readme", readme, *extra)
        needles = ("block 'later'", "not_measured_yet.csv", "does not exist")
        if rc != 2 or "Traceback" in err or not all(n in err for n in needles):
            raise CheckFailed(f"--readme {' '.join(extra)} with an absent csv=: exit {rc} "
                              f"(expected 2 and a message naming the block and the file)\n{err}")
        if read(readme) != before:
            raise CheckFailed("the README changed although a block's CSV is absent")
    print(f"ok: absent csv=: exit 2, {err.strip()}")


def check_all(script, csv_path, work):
    check_expected(script, csv_path)
    check_readme(script, csv_path, work)
