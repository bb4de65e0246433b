"""Every Gluon task's oracle, and its plain Triton baseline (triton_baseline.py), compiles for sm_90 at each of the
task's visible and held-out shapes, on this machine with no GPU (scripts/gluon_sm90.py): within the H100/H200's shared
memory, with the oracle spilling no registers. The Gluon tasks cannot run on the interpreter, so this is the check
CI gives their oracles; the GPU's `tasks check` and `tasks audit` judge their results and speed."""
from __future__ import annotations

import contextlib
import importlib.util
import re
from pathlib import Path

import pytest
import torch

from gluon_sm90 import SM90_SHARED_BYTES, compile_entry

ROOT = Path(__file__).resolve().parents[2]
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "int8": torch.int8,
          "uint8": torch.uint8, "int32": torch.int32, "int64": torch.int64, "float8_e4m3fn": torch.float8_e4m3fn}


def gluon_tasks() -> list[Path]:
    return sorted(folder for folder in (ROOT / "tasks").glob("*/*")
                  if (folder / "task.yaml").exists()
                  and re.search(r"^dsl:\s*gluon\s*$", (folder / "task.yaml").read_text(), re.M))


def timed_shapes(text: str) -> list[dict[str, int]]:
    shapes = []
    for group in ("visible", "held_out"):
        block = re.search(r"^  " + group + r":\s*\n((?:\s+- \{.*\}\s*\n)+)", text, re.M)
        assert block, f"task.yaml has no {group} shapes"
        shapes += [{k: int(v) for k, v in re.findall(r"(\w+):\s*(-?\d+)", line)}
                   for line in block.group(1).strip().splitlines()]
    return shapes


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A random draw of at least this many elements is data, which the compiler never reads: make_inputs gets it
# unfilled. Smaller draws (context lengths, group offsets, block tables) may size a grid and are drawn.
LARGE_DRAW = 1 << 20


@contextlib.contextmanager
def large_draws_unfilled():
    """torch.randn, rand and randint, within the block, return an unfilled tensor (torch.empty) for a draw of
    LARGE_DRAW elements or more: drawing the timed shapes' gigabytes on the CPU took 87 of this test's 113 s
    (2026-12-07), for values that no compile depends on."""
    def size_of(args, kwargs):
        if "size" in kwargs:
            return tuple(int(n) for n in kwargs["size"])
        sequence = len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size))  # randn((M, K)) or randn(M, K)
        return tuple(int(n) for n in (args[0] if sequence else args))

    def unfilled(draw, default_dtype):
        def wrapped(*args, **kwargs):
            size = size_of(args, kwargs)
            if size and torch.Size(size).numel() >= LARGE_DRAW:
                return torch.empty(size, dtype=kwargs.get("dtype") or default_dtype(), device=kwargs.get("device"))
            return draw(*args, **kwargs)
        return wrapped

    def randint(*args, **kwargs):  # randint(high, size) or randint(low, high, size)
        size = tuple(int(n) for n in (kwargs["size"] if "size" in kwargs else args[-1]))
        if torch.Size(size).numel() >= LARGE_DRAW:
            return torch.empty(size, dtype=kwargs.get("dtype") or torch.int64, device=kwargs.get("device"))
        return original["randint"](*args, **kwargs)

    original = {name: getattr(torch, name) for name in ("randn", "rand", "randint")}
    torch.randn = unfilled(original["randn"], torch.get_default_dtype)
    torch.rand = unfilled(original["rand"], torch.get_default_dtype)
    torch.randint = randint
    try:
        yield
    finally:
        for name, draw in original.items():
            setattr(torch, name, draw)


def entry_arguments(folder: Path, text: str, dims: dict[str, int]) -> list:
    """The entry's arguments at `dims`: empty tensors of the right shapes (the compiler never reads the data),
    or the reference's make_inputs where the task has one (its large draws left unfilled)."""
    dtype = DTYPES[re.search(r"^dtypes:\s*\[\s*(\w+)", text, re.M).group(1)]
    reference = load_module(folder / "reference.py", f"reference_{folder.name}")
    if hasattr(reference, "make_inputs"):
        with large_draws_unfilled():
            return list(reference.make_inputs(dict(dims), dtype, torch.Generator().manual_seed(0)))
    arguments = []
    for spec in re.findall(r"^  - \{(name:.*)\}\s*$", re.search(r"^inputs:\s*\n((?:  - .*\n)+)", text, re.M).group(1),
                           re.M):
        fields = dict(re.findall(r"(\w+):\s*(\[[^\]]*\]|[^,]+)", spec))
        if "value" in fields:
            value = fields["value"].strip()
            arguments.append(float(value) if re.search(r"[.eE]", value) else int(value))
            continue
        shape = [int(eval(size.strip(), {}, dict(dims))) for size in fields["shape"].strip("[] ").split(",")]
        arguments.append(torch.empty(shape, dtype=DTYPES.get(fields.get("dtype", "").strip(), dtype)))
    return arguments


# Spill stores (bytes a thread, ptxas's count) an oracle is known to make, and why; any more fails.
KNOWN_SPILLS = {
    "gluon-matmul-warp-specialized": (128, "the bias and exact-GELU epilogue over a 128x256 float32 accumulator, "
                                           "past the 240 registers setmaxnreg gives the consumer warpgroups; once "
                                           "a tile, not in the K loop"),
}


@pytest.mark.parametrize("folder", gluon_tasks(), ids=lambda folder: folder.name)
@pytest.mark.parametrize("kind", ["oracle", "triton_baseline"])
def test_compiles_for_sm90_at_every_timed_shape(folder: Path, kind: str, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    path = folder / f"{kind}.py"
    if kind == "triton_baseline" and not path.exists():
        pytest.fail(f"{folder.name} has no triton_baseline.py: a Gluon task keeps the plain Triton kernel it beats")
    text = (folder / "task.yaml").read_text()
    entry = re.search(r"^entry:\s*\n(?:\s+.*\n)*?\s+function:\s*(\w+)", text, re.M).group(1)
    module = load_module(path, f"{kind}_{folder.name}")
    for dims in timed_shapes(text):
        kernels = compile_entry(getattr(module, entry), entry_arguments(folder, text, dims))
        assert kernels, f"{folder.name} {kind} at {dims} launched no kernel"
        for kernel in kernels:
            print(f"{folder.name} {kind} {dims}: {kernel}")
            assert kernel.shared_bytes <= SM90_SHARED_BYTES, f"{kernel} at {dims}: over the shared memory of a program"
            if kind == "oracle":
                allowed, why = KNOWN_SPILLS.get(folder.name, (0, ""))
                assert kernel.spill_bytes <= allowed, f"{kernel} at {dims}: the oracle spills" + (
                    f" more than the {allowed} B known ({why})" if allowed else "")
