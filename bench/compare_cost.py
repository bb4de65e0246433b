"""What the reference worker's output comparison and output description cost, against the whole-tensor
CPU versions they replaced (session 3), in the same run.

    PYTHONPATH=plugins/executors/worker python bench/compare_cost.py [--elements N] [--dtype bfloat16]

Times, on one tensor pair of N elements (default 128M, the size of a large output of the standard suite):
- the former comparison: float64 over the whole tensor at once, on the CPU (the baseline);
- reference._compare_tensors slice by slice on the CPU, and on the GPU when there is one;
- reference.describe_output on the CPU, and on the GPU when there is one.
Each is run twice and the faster run is kept; each ratio is against the first row of its group, in this run.
"""
from __future__ import annotations

import argparse
import math
import time

import torch

from tritongym_worker import reference


def whole_tensor_compare(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float) -> dict:
    """The comparison as it was before session 3 (float64, whole tensor, wherever the tensors are)."""
    g, w = got.double(), want.double()
    diff = (g - w).abs()
    same_nonfinite = (~torch.isfinite(w)) & ((g == w) | (torch.isnan(g) & torch.isnan(w)))
    diff = torch.where(same_nonfinite, torch.zeros_like(diff), diff)
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
    bad = diff > (atol + rtol * w.abs().nan_to_num(posinf=0, neginf=0))
    rel = diff / w.abs().clamp_min(1e-12)
    return {"max_abs": float(diff.max()), "max_rel": float(rel.max()), "bad": int(bad.sum())}


def best_of_two(run) -> float:
    best = math.inf
    for _ in range(2):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        started = time.perf_counter()
        run()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--elements", type=int, default=128 * 1024 * 1024)
    parser.add_argument("--dtype", default="bfloat16")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    want = torch.randn(args.elements // 8192, 8192).to(dtype)
    got = (want.float() + 1e-3 * torch.randn_like(want, dtype=torch.float32)).to(dtype)
    compare = [("whole tensor, float64, CPU (before)",
                best_of_two(lambda: whole_tensor_compare(got, want, 1e-2, 1e-2))),
               ("slices, float64, CPU", best_of_two(lambda: reference._compare_tensors(got, want, 1e-2, 1e-2, "cpu")))]
    describe = [("describe_output, CPU (before)", best_of_two(lambda: reference.describe_output(want)))]
    if torch.cuda.is_available():
        compare.append(("slices, float64, GPU (from CPU tensors)",
                        best_of_two(lambda: reference._compare_tensors(got, want, 1e-2, 1e-2, "cuda"))))
        on_gpu = want.cuda()
        describe.append(("describe_output, GPU", best_of_two(lambda: reference.describe_output(on_gpu))))
    print(f"{args.elements} elements of {args.dtype}; threads {torch.get_num_threads()}; "
          f"GPU: {torch.cuda.get_device_name() if torch.cuda.is_available() else 'none'}\n")
    print("| what | seconds | speedup over the first row of its group |\n|---|---:|---:|")
    for group in (compare, describe):
        for name, seconds in group:
            print(f"| {name} | {seconds:.2f} | {group[0][1] / seconds:.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
