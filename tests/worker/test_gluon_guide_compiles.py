"""The Gluon guide's complete examples (plugins/dsls/gluon/reference.md, served by the docs tool) compile for sm_90
on this machine with no GPU (scripts/gluon_sm90.py): each code block that defines a @gluon.jit kernel is run with the
guide's imports, and its kernel is launched on CPU tensors, which compiles it to a cubin. Fragments (blocks with
`...`, or no kernel) are not complete programs and are skipped by name below."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from gluon_sm90 import SM90_SHARED_BYTES, compile_entry

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "plugins" / "dsls" / "gluon" / "reference.md"
IMPORTS = """
import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    async_copy, fence_async_shared, mbarrier, mma_v2, tma, warpgroup_mma, warpgroup_mma_wait)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
"""


def f32(*shape):
    return torch.empty(shape, dtype=torch.float32)


def f16(*shape):
    return torch.empty(shape, dtype=torch.float16)


def descriptor(ns, tensor, block):
    layout = ns["gl"].NVMMASharedLayout.get_default_for(block, ns["gl"].float32)
    return ns["TensorDescriptor"].from_tensor(tensor, block, layout)


# How each complete example is launched: kernel name -> a function of the example's namespace that launches it.
LAUNCHES = {
    "iota_kernel": lambda ns: ns["iota_kernel"][(5, )](f32(5000), 5000, 1.0, 0.5, BLOCK=1024, num_warps=4),
    "combine_kernel": lambda ns: ns["combine_kernel"][(1, )](f32(256), f32(1), f32(256), N=256, num_warps=4),
    "symmetrize_kernel": lambda ns: ns["symmetrize_kernel"][(1, )](f32(64, 64), f32(64, 64), N=64, num_warps=4),
    "tile_dot_fma_kernel": lambda ns: ns["tile_dot_fma_kernel"][(1, )](f32(32, 32), f32(32, 32), f32(32, 32), T=32,
                                                                       num_warps=4),
    "tile_dot_wgmma_kernel": lambda ns: ns["tile_dot_wgmma_kernel"][(1, )](f16(64, 64), f16(64, 128), f32(64, 128),
                                                                           M=64, N=128, K=64, num_warps=4),
    "downcast_rows_kernel": lambda ns: ns["downcast_rows_kernel"][(8, )](
        f32(256, 1000), torch.empty(256, 1000, dtype=torch.bfloat16), 256, 1000, BR=32, BC=128, num_warps=4),
    "scaled_copy_kernel": lambda ns: ns["scaled_copy"](f32(256, 512), 0.5),
    "scaled_copy_ring_kernel": lambda ns: ns["scaled_copy_ring_kernel"][(4, )](
        descriptor(ns, f32(256, 512), [64, 128]), descriptor(ns, f32(256, 512), [64, 128]), 0.5, num_warps=4),
    "scaled_copy_ws_kernel": lambda ns: ns["scaled_copy_ws_kernel"][(4, )](
        descriptor(ns, f32(256, 512), [64, 128]), descriptor(ns, f32(256, 512), [64, 128]), 0.5, STAGES=3,
        num_warps=4),
    "scaled_copy_persistent_kernel": lambda ns: ns["scaled_copy_persistent_kernel"][(4, )](
        descriptor(ns, f32(256, 512), [64, 128]), descriptor(ns, f32(256, 512), [64, 128]), 0.5, num_warps=4),
}
# Blocks that are not complete programs: a sketch with `...` or a few lines that belong inside a kernel.
FRAGMENTS = {"row_index_kernel"}


def example_blocks() -> list[tuple[str, str]]:
    """(kernel name, code) of each Python block that defines a @gluon.jit kernel (its last one names it)."""
    blocks = []
    for code in re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S):
        kernels = re.findall(r"@gluon\.jit\s*\ndef (\w+)", code)
        if kernels:
            blocks.append((kernels[-1], code))
    return blocks


def test_every_kernel_example_is_launched_or_named_a_fragment():
    names = {name for name, _ in example_blocks()}
    assert names, f"no @gluon.jit example found in {GUIDE}"
    assert names == set(LAUNCHES) | FRAGMENTS, ("a guide example this test does not launch, or a launch for an "
                                                f"example that is gone: {sorted(names ^ (set(LAUNCHES) | FRAGMENTS))}")


@pytest.mark.parametrize("name,code", [block for block in example_blocks() if block[0] in LAUNCHES],
                         ids=lambda value: value if re.fullmatch(r"\w+", str(value)) else "")
def test_the_example_compiles_for_sm90(name: str, code: str, tmp_path, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    # Triton reads a kernel's source from its file: the example is written to one and run from there.
    path = tmp_path / f"{name}.py"
    path.write_text(IMPORTS + code)
    namespace: dict = {"__name__": f"guide_{name}"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    kernels = compile_entry(lambda: LAUNCHES[name](namespace), [])
    assert [kernel.name for kernel in kernels] == [name]
    assert kernels[0].shared_bytes <= SM90_SHARED_BYTES, kernels[0]
    print(kernels[0])
