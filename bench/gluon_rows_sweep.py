"""Times the two long-row Gluon tasks' oracles against their plain-Triton baselines, on one GPU, in one run.

    python bench/gluon_rows_sweep.py                     # every visible and held-out shape of both tasks
    python bench/gluon_rows_sweep.py --extra-shapes      # and a few other row lengths, shorter and longer
    python bench/gluon_rows_sweep.py --only softmax --no-variants

For dsl/gluon-add-layernorm-long-rows and dsl/gluon-softmax-long-rows-smem, at each shape of their task.yaml:
the oracle at its default knobs and at other knobs (warps per CTA, 16-byte vectors per thread per chunk, the
most CTAs per SM: the `launch` function of oracle.py), each config of triton_baseline.py's autotuner alone,
the baseline's entry function as the audit runs it (autotuned), and the eager reference. Each is checked
against the reference (float32 math, the task's tolerance) before it is timed with triton.testing.do_bench
(warm L2, one input set: every input is far larger than the L2). The table gives microseconds, GB/s of the
bytes the task.yaml formula counts, that as a share of this GPU's copy bandwidth (a 1 GiB device copy; the
audit's floor is the best of four patterns, so its shares read a little lower), and the speedup over the
autotuned baseline, which `tasks audit` wants at least 1.05x in the geometric mean and never below 1/1.03x.
Rows are printed as they are measured, so a run stopped by a time limit keeps what it printed.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re
import sys
import time
from typing import Any, Callable

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASKS = {"layernorm": "gluon-add-layernorm-long-rows", "softmax": "gluon-softmax-long-rows-smem"}
# Oracle knobs: (warps, vectors per thread per chunk, most CTAs per SM). The first is the oracle's default.
VARIANTS = [(16, 1, 2), (16, 2, 2), (8, 2, 2), (8, 4, 2), (32, 1, 2), (16, 1, 1)]
# Row lengths off the task's shapes, to see where plain Triton's register-resident rows stop keeping up.
EXTRA = {"layernorm": [(4096, 40960), (4096, 45056)], "softmax": [(4096, 65536), (2048, 81920)]}


def load_module(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_shapes(text: str) -> list[tuple[str, dict[str, int]]]:
    shapes = []
    for group in ("visible", "held_out"):
        block = re.search(r"^  " + group + r":\s*\n((?:\s+- \{.*\}\s*\n)+)", text, re.M)
        for index, line in enumerate(block.group(1).strip().splitlines()):
            dims = {k: int(v) for k, v in re.findall(r"(\w+):\s*(\d+)", line)}
            shapes.append((f"{group.replace('_', '-')}-{index}", dims))
    return shapes


def tolerance(text: str) -> tuple[float, float]:
    found = re.search(r"^tolerance:\s*\n\s+\w+:\s*\{atol:\s*([0-9.e+-]+),\s*rtol:\s*([0-9.e+-]+)\}", text, re.M)
    return float(found.group(1)), float(found.group(2))


def make_inputs(task: str, m: int, n: int) -> list[Any]:
    generator = torch.Generator(device="cuda").manual_seed(0)
    if task == "softmax":
        return [torch.randn(m, n, device="cuda", generator=generator).to(torch.bfloat16)]
    x = torch.randn(m, n, device="cuda", generator=generator).half()
    residual = torch.randn(m, n, device="cuda", generator=generator).half()
    weight = (torch.rand(n, device="cuda", generator=generator) + 0.5).half()
    bias = (torch.randn(n, device="cuda", generator=generator) * 0.2).half()
    return [x, residual, weight, bias, 1e-5]


def task_bytes(task: str, m: int, n: int) -> int:
    return 2 * (3 * m * n + 2 * n) if task == "layernorm" else 2 * m * n * 2  # the task.yaml formulas


def copy_bandwidth() -> float:
    """Bytes a second of a 1 GiB device-to-device copy (read + write)."""
    src = torch.empty(1 << 29, dtype=torch.float16, device="cuda")
    dst = torch.empty_like(src)
    ms = triton.testing.do_bench(lambda: dst.copy_(src))
    del src, dst
    return 2 * (1 << 30) / (ms * 1e-3)


def within(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float) -> str:
    got, want = got.float(), want.float()
    bad = (got - want).abs() > atol + rtol * want.abs()
    bad |= ~torch.isfinite(got)
    return "ok" if not bool(bad.any()) else f"WRONG ({int(bad.sum())} elements off)"


class Table:
    def __init__(self) -> None:
        print(f"{'task':<10} {'shape':<12} {'M':>5} {'N':>7} {'what':<44} {'us':>9} {'GB/s':>7} {'%copy':>6} "
              f"{'vs triton':>9}  check", flush=True)

    def row(self, task: str, shape: str, m: int, n: int, what: str, us: float | None, bytes_: int, copy: float,
            triton_us: float | None, check: str) -> None:
        if us is None:
            print(f"{task:<10} {shape:<12} {m:>5} {n:>7} {what:<44} {'-':>9} {'':>7} {'':>6} {'':>9}  {check}",
                  flush=True)
            return
        rate = bytes_ / (us * 1e-6)
        speedup = f"{triton_us / us:.3f}x" if triton_us else ""
        print(f"{task:<10} {shape:<12} {m:>5} {n:>7} {what:<44} {us:>9.1f} {rate / 1e9:>7.0f} "
              f"{100 * rate / copy:>5.1f}% {speedup:>9}  {check}", flush=True)


def timed(fn: Callable[[], torch.Tensor], want: torch.Tensor, atol: float, rtol: float) -> tuple[float | None, str]:
    try:
        check = within(fn(), want, atol, rtol)
    except Exception as error:  # a knob the shape cannot take (shared memory, registers): a row that says so
        return None, f"{type(error).__name__}: {str(error).splitlines()[0][:90]}"
    if check != "ok":
        return None, check
    return triton.testing.do_bench(fn) * 1e3, "ok"


def config_entry(baseline: Any, task: str, config: triton.Config, args: list[Any]) -> Callable[[], torch.Tensor]:
    """The baseline's kernel with one autotuner config, launched as its entry function launches it."""
    kernel = baseline._add_layernorm_kernel if task == "layernorm" else baseline._softmax_kernel
    x = args[0]
    m, n = x.shape
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    per_sm = config.kwargs["PER_SM"]
    grid = (m if per_sm == 0 else min(m, sms * per_sm), )
    p1, p2, p3 = baseline._pieces(n)
    meta = dict(config.kwargs, P1=p1, P2=p2, P3=p3, num_warps=config.num_warps, num_stages=config.num_stages)

    def run() -> torch.Tensor:
        out = torch.empty_like(x)
        if task == "layernorm":
            kernel.fn[grid](args[0], args[1], args[2], args[3], out, m, n, args[4], **meta)
        else:
            kernel.fn[grid](x, out, m, n // 8, **meta)
        return out
    return run


def sweep_task(task: str, arguments: argparse.Namespace, copy: float, table: Table) -> list[float]:
    folder = os.path.join(ROOT, "tasks", "dsl", TASKS[task])
    text = open(os.path.join(folder, "task.yaml")).read()
    atol, rtol = tolerance(text)
    oracle = load_module(os.path.join(folder, "oracle.py"), f"{task}_oracle")
    baseline = load_module(os.path.join(folder, "triton_baseline.py"), f"{task}_baseline")
    reference = load_module(os.path.join(folder, "reference.py"), f"{task}_reference").reference
    entry = oracle.add_layernorm if task == "layernorm" else oracle.softmax_long_rows
    baseline_entry = baseline.add_layernorm if task == "layernorm" else baseline.softmax_long_rows
    shapes = task_shapes(text)
    if arguments.extra_shapes:
        shapes += [(f"extra-{i}", {"M": m, "N": n}) for i, (m, n) in enumerate(EXTRA[task])]
    ratios = []
    for name, dims in shapes:
        m, n = dims["M"], dims["N"]
        args = make_inputs(task, m, n)
        want = reference(*args)
        bytes_ = task_bytes(task, m, n)
        began = time.monotonic()
        triton_us, check = timed(lambda: baseline_entry(*args), want, atol, rtol)
        chosen = getattr(baseline._add_layernorm_kernel if task == "layernorm" else baseline._softmax_kernel,
                         "best_config", None)
        table.row(task, name, m, n, f"triton baseline (autotuned: {chosen})"[:44], triton_us, bytes_, copy, None, check)
        oracle_us, check = timed(lambda: entry(*args), want, atol, rtol)
        table.row(task, name, m, n, "gluon oracle (default knobs)", oracle_us, bytes_, copy, triton_us, check)
        if oracle_us and triton_us and not name.startswith("extra"):
            ratios.append(triton_us / oracle_us)
        if not arguments.no_variants:
            for warps, rows, per_sm in VARIANTS[1:]:
                knobs = dict(num_warps=warps, rows=rows, ctas_per_sm=per_sm)
                us, check = timed(lambda: oracle.launch(*args, **knobs), want, atol, rtol)
                table.row(task, name, m, n, f"gluon warps={warps} rows={rows} ctas/SM<={per_sm}", us, bytes_, copy,
                          triton_us, check)
            for config in baseline.CONFIGS:
                us, check = timed(config_entry(baseline, task, config, args), want, atol, rtol)
                label = ("resident" if config.kwargs["RESIDENT"] else
                         f"stream B={config.kwargs['BLOCK']} per_sm={config.kwargs['PER_SM'] or 'all'}")
                table.row(task, name, m, n, f"triton {label} w={config.num_warps}", us, bytes_, copy, triton_us, check)
        eager_us, check = timed(lambda: reference(*args), want, atol, rtol)
        table.row(task, name, m, n, "eager reference", eager_us, bytes_, copy, triton_us, check)
        print(f"# {task} {name}: {time.monotonic() - began:.0f} s", flush=True)
        del args, want
        torch.cuda.empty_cache()
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(TASKS), action="append", help="one task (repeatable)")
    parser.add_argument("--extra-shapes", action="store_true", help="also the row lengths in EXTRA")
    parser.add_argument("--no-variants", action="store_true",
                        help="only the defaults: oracle, autotuned baseline, eager")
    arguments = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gluon_rows_sweep: needs a CUDA GPU (sm_90)")
    props = torch.cuda.get_device_properties(0)
    copy = copy_bandwidth()
    print(f"# {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, triton {triton.__version__}; "
          f"1 GiB copy: {copy / 1e9:.0f} GB/s", flush=True)
    table = Table()
    for task in arguments.only or sorted(TASKS):
        ratios = sweep_task(task, arguments, copy, table)
        if ratios:
            geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"# {task}: oracle over autotuned baseline, task shapes: geomean {geomean:.3f}x, worst "
                  f"{min(ratios):.3f}x (the audit wants >= 1.05x and >= {1 / 1.03:.3f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
