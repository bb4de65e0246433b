"""Readies Triton's compiler in the candidate fork server, once, before it forks any child.

A process's first Triton compile costs far more than the next ones: it loads the compiler's passes and
backends, and builds Triton's CUDA helper module with the C compiler (cached on disk after that). Every child
of the fork server would pay that again; done here, children inherit it. On this repository's CPU machine a
child's first compile took 0.39 s from a cold fork server and 0.055 s from a warmed one.

Nothing here may initialise CUDA: a process that has initialised CUDA cannot fork children that use it. The
kernel is compiled for an explicit target (no device query), and the helper module is built and loaded,
which links the driver library without calling into it."""
from __future__ import annotations

import time
from typing import Any

import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)


def warm_triton_compiler() -> dict[str, Any]:
    """What was warmed and how long it took, for the worker's hello; never raises."""
    import torch

    started = time.perf_counter()
    done: dict[str, Any] = {}
    try:
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource

        source = ASTSource(_scale, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {(2,): 128})
        triton.compile(source, target=GPUTarget("cuda", 80, 32))
        done["compiled"] = True
    except Exception as error:  # noqa: BLE001  (a child then pays the first compile itself)
        done["compile_error"] = f"{type(error).__name__}: {error}"[:300]
    try:
        from triton.backends.nvidia.driver import CudaUtils

        CudaUtils()  # builds (once per Triton cache) and loads the helper module; no CUDA call
        done["helper_module"] = True
    except Exception as error:  # noqa: BLE001  (no driver library on this machine, for one)
        done["helper_module_error"] = f"{type(error).__name__}: {error}"[:300]
    if torch.cuda.is_initialized():  # a bug here, not the candidate's: its children could not use CUDA
        raise RuntimeError("warming Triton's compiler initialised CUDA in the fork server")
    done["seconds"] = round(time.perf_counter() - started, 3)
    return done
