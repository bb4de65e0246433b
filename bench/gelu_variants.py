"""gelu in float32, the shipped oracle and variants of it, against eager in one interleaved timing session per
shape (the harness's own loop: CUPTI, cold L2, the scrub before every call). The bench behind the gelu
oracle's shape: where eager already streams near the copy ceiling, a few percent decide whether the oracle
is at least as fast as eager (issue 4).

    PYTHONPATH=<folder with tritongym_worker and tritongym_native> python bench/gelu_variants.py [--out FILE.md]

Prints, per shape, each variant's speedup over eager (eager µs / variant µs). What it showed on the H200
(2026-11-30, measured by this bench when it was written): an evict_first hint on the loads cost 3%, larger
blocks 6-10%, and a persistent grid up to 48%; 1024-element blocks of 4 warps without the hint ran 1.000-1.008x of eager.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
from typing import Callable

import torch
import triton
import triton.language as tl

from tritongym_worker import timing

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SHAPES = [(8192, 8192), (4096, 6144), (8191, 5003), (30011, 1111)]  # the task's visible and held-out shapes


def load(task: str, name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tasks", task, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@triton.jit
def _gelu(x):
    # The oracle's formula: 0.5 * x * (1 + tanh(u)) == x * sigmoid(2u), one exp2 and one divide.
    k = 0.7978845608028654 * 1.4426950408889634
    return x / (1.0 + tl.exp2(x * (-2.0 * k + (-2.0 * k * 0.044715) * x * x)))


@triton.jit
def _flat(x_ptr, o_ptr, n, BLOCK: tl.constexpr, EVICT_FIRST: tl.constexpr, STREAM_STORE: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:
        if EVICT_FIRST:
            x = tl.load(x_ptr + offs, eviction_policy="evict_first")
        else:
            x = tl.load(x_ptr + offs)
        if STREAM_STORE:
            tl.store(o_ptr + offs, _gelu(x), cache_modifier=".cs")
        else:
            tl.store(o_ptr + offs, _gelu(x))
    else:
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(o_ptr + offs, _gelu(x), mask=mask)


@triton.jit
def _persistent(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    for block in range(tl.program_id(0), tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = block * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(o_ptr + offs, _gelu(x), mask=mask)


def flat(block: int, warps: int, evict_first: bool = False, stream_store: bool = False) -> Callable:
    def run(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        _flat[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block, EVICT_FIRST=evict_first,
                                                 STREAM_STORE=stream_store, num_warps=warps)
        return out
    return run


def persistent(block: int, warps: int, programs_per_sm: int) -> Callable:
    def run(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        grid = (min(sms * programs_per_sm, triton.cdiv(x.numel(), block)),)
        _persistent[grid](x, out, x.numel(), BLOCK=block, num_warps=warps)
        return out
    return run


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    reference, oracle = load("standard/gelu", "reference"), load("standard/gelu", "oracle")
    variants: dict[str, Callable] = {"eager": reference.reference, "oracle (shipped)": oracle.gelu}
    for block, warps in ((512, 4), (1024, 4), (2048, 4), (2048, 8), (4096, 8)):
        variants[f"{block} x {warps} warps"] = flat(block, warps)
    variants["1024 x 4 warps, evict_first loads"] = flat(1024, 4, evict_first=True)
    variants["1024 x 4 warps, streaming stores"] = flat(1024, 4, stream_store=True)
    variants["persistent 1024 x 4 warps, 8 per SM"] = persistent(1024, 4, 8)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    columns = []
    for m, n in SHAPES:
        generator = torch.Generator().manual_seed(0)
        sets = [[(torch.randn(m, n, generator=generator) * 2).cuda()] for _ in range(2)]
        want = reference.reference(*sets[0])
        for name, function in variants.items():
            torch.testing.assert_close(function(*sets[0]), want, atol=1e-5, rtol=1e-5, msg=lambda text: f"{name}: {text}")
        session = timing.time_functions(variants, sets, l2_bytes=l2, cold_l2=True, target_seconds=0.3)
        eager = session.calls["eager"].summary()["median_us"]
        columns.append((f"{m} x {n}", eager, {name: eager / session.calls[name].summary()["median_us"]
                                              for name in variants}))
        print(f"{m} x {n}: eager {eager:.1f} us", flush=True)
    lines = ["| variant | " + " | ".join(label for label, _, _ in columns) + " |",
             "|---|" + "---:|" * len(columns),
             "| eager µs | " + " | ".join(f"{eager:.1f}" for _, eager, _ in columns) + " |"]
    for name in variants:
        if name != "eager":
            lines.append(f"| {name} | " + " | ".join(f"{ratios[name]:.3f}x" for _, _, ratios in columns) + " |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
