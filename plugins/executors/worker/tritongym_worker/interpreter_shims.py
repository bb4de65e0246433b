"""Triton's interpreter (TRITON_INTERPRET=1, the CPU executor) judged like a GPU where that is cheap, and an
honest "cannot judge" where it is not (docs/candidate-contract.md, "On the interpreter").

Code that is correct on a GPU fails on the interpreter for reasons that are the interpreter's, not the
candidate's. Shims, installed in the candidate's child before its code is imported:
- an autotuned kernel takes, for each new key, the first config that survives the autotuner's own pruning,
  unbenchmarked: the interpreter's benchmarker needs a GPU driver, and CPU timings would choose nothing real;
- a Python float argument is an fp32 scalar tensor, as on the GPU (the interpreter passed the bare float, so
  `eps.to(tl.float32)` failed); Python ints already were;
- `tl.dot` of bf16 tiles multiplies the values, not their raw bits;
- casts to and from bf16 and fp8 (e4m3, e5m2) round to nearest even, as the GPU does, fp8 saturating at its
  largest finite value (the interpreter truncated fp32 to bf16, rounded fp32 to fp8 wrong where a value rounds
  up into the next power of two, and cast integers to and from bf16 by their raw bits);
- `libdevice` functions with a `tl` equivalent run as that equivalent; the others raise NotImplementedError
  naming the function (the interpreter would return None and fail later with a message that names nothing).

What is left (inline assembly, extern calls, the driver's device properties, CUDA tensors on a machine
without CUDA) is named by `gap`: the verdict is then `not_judged`, which scores leave out."""
from __future__ import annotations

import os
import re
import traceback
from typing import Any, Callable, Optional

REASON = "the interpreter cannot run this; judge it on a GPU"


def active() -> bool:
    return os.environ.get("TRITON_INTERPRET") == "1"


class Shims:
    """Installs the shims once per process; counts the autotune keys that took their first config."""

    def __init__(self) -> None:
        self.first_config_keys = 0
        self._installed = False

    def install(self) -> bool:
        """False where it does not apply (not the interpreter)."""
        if self._installed or not active():
            return self._installed
        self._first_config_autotune()
        _float_arguments_as_tensors()
        _bfloat16_dot()
        _narrow_float_casts()
        _libdevice_on_tl()
        self._installed = True
        return True

    def _first_config_autotune(self) -> None:
        from triton.runtime.autotuner import Autotuner

        original_prune = Autotuner.prune_configs
        shims = self

        def prune_configs(autotuner: Any, kwargs: dict) -> list:
            configs = original_prune(autotuner, kwargs)
            if len(configs) > 1:
                shims.first_config_keys += 1
            return configs[:1]

        def _bench(autotuner: Any, *args: Any, config: Any, **meta: Any) -> list[float]:
            return [0.0, 0.0, 0.0]  # the one config left: nothing to compare it with

        Autotuner.prune_configs = prune_configs
        Autotuner._bench = _bench


def _float_arguments_as_tensors() -> None:
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    original = interpreter._implicit_cvt

    def implicit_cvt(arg: Any) -> Any:
        if isinstance(arg, float):
            ty = tl.float32
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), ty), ty)
        return original(arg)

    interpreter._implicit_cvt = implicit_cvt


def _bfloat16_dot() -> None:
    """tl.dot of bf16 tiles: the interpreter holds bf16 as raw 16-bit integers and multiplied the bits; each
    operand is widened to the fp32 it stands for (exact: bf16 is fp32's upper half), as tensor cores compute."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    original = interpreter.InterpreterBuilder.create_dot

    def widen(handle: Any) -> Any:
        if handle.dtype.scalar != tl.bfloat16:
            return handle
        return interpreter.TensorHandle((handle.data.astype(np.uint32) << 16).view(np.float32), tl.float32)

    def create_dot(builder: Any, a: Any, b: Any, d: Any, *rest: Any) -> Any:
        return original(builder, widen(a), widen(b), d, *rest)

    interpreter.InterpreterBuilder.create_dot = create_dot


def _narrow_float_casts() -> None:
    """Casts with a bf16 or fp8 side through torch's conversions (round to nearest even), which the interpreter
    stores as raw 16- or 8-bit integers. An fp8 result saturates at the format's largest finite value, as the
    GPU's cvt.rn.satfinite does; NaN stays NaN. A cast toward zero (`fp_downcast_rounding="rtz"`) and every other
    cast keep the interpreter's own."""
    import numpy as np
    import torch
    import triton.language as tl
    from triton.runtime import interpreter

    narrow = {tl.bfloat16: (torch.bfloat16, torch.int16)}
    for name, torch_name in (("float8e4nv", "float8_e4m3fn"), ("float8e5", "float8_e5m2")):
        if hasattr(tl, name) and hasattr(torch, torch_name):
            narrow[getattr(tl, name)] = (getattr(torch, torch_name), torch.uint8)

    def as_torch(handle: Any) -> Any:
        data = np.ascontiguousarray(handle.data)
        scalar = handle.dtype.scalar
        if scalar in narrow:
            signed = data.view(np.int16) if data.dtype == np.uint16 else data  # torch has no uint16 view
            return torch.from_numpy(signed).view(narrow[scalar][0])
        if data.dtype == np.bool_:
            return torch.from_numpy(data.astype(np.uint8))
        return torch.from_numpy(data)

    def convert(handle: Any, dst_scalar: Any) -> Any:
        value = as_torch(handle)
        if dst_scalar in narrow:
            dtype, storage = narrow[dst_scalar]
            if dtype.is_floating_point and dtype.itemsize == 1:
                largest = torch.finfo(dtype).max
                value = value.float().clamp(-largest, largest)  # NaN passes through clamp
            data = value.to(dtype).view(storage).numpy()
            if data.dtype == np.int16:
                data = data.view(np.uint16)
        else:
            target = torch.from_numpy(np.empty(0, interpreter._get_np_dtype(dst_scalar))).dtype
            data = value.to(target).numpy()
        return interpreter.TensorHandle(data, dst_scalar)

    original_cast = interpreter.InterpreterBuilder.cast_impl
    original_fp_to_fp = interpreter.InterpreterBuilder.create_fp_to_fp

    def cast_impl(builder: Any, src: Any, dst_type: Any) -> Any:
        if src.dtype.scalar in narrow or dst_type.scalar in narrow:
            return convert(src, dst_type.scalar)
        return original_cast(builder, src, dst_type)

    def create_fp_to_fp(builder: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        if rounding_mode == interpreter._ir.ROUNDING_MODE.RTZ:
            return original_fp_to_fp(builder, src, dst_type, rounding_mode)
        if src.dtype.scalar in narrow or dst_type.scalar in narrow:
            return convert(src, dst_type.scalar)
        return original_fp_to_fp(builder, src, dst_type, rounding_mode)

    interpreter.InterpreterBuilder.cast_impl = cast_impl
    interpreter.InterpreterBuilder.create_fp_to_fp = create_fp_to_fp


def _tanh(x: Any) -> Any:
    import triton.language as tl

    x = x.to(tl.float32)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(x < 0, -t, t)


def _tl_equivalents() -> dict[str, Callable[..., Any]]:
    """libdevice names and what runs in their place. Looked up when called: the interpreter patches `tl`'s
    builtins only while a kernel runs."""
    import triton.language as tl

    def late(module: Any, name: str) -> Callable[..., Any]:
        return lambda *args: getattr(module, name)(*args)

    same = {name: late(tl.math, name) for name in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf",
                                                    "floor", "ceil", "abs", "fma", "div_rn", "sqrt_rn")}
    return {**same, "fabs": late(tl.math, "abs"), "fast_expf": late(tl.math, "exp"), "fast_logf": late(tl.math, "log"),
            "fast_log2f": late(tl.math, "log2"), "fast_sinf": late(tl.math, "sin"), "fast_cosf": late(tl.math, "cos"),
            "tanh": _tanh, "fmax": late(tl, "maximum"), "fmin": late(tl, "minimum")}


def _libdevice_on_tl() -> None:
    import importlib

    equivalents = _tl_equivalents()
    for module_name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name, value in list(vars(module).items()):
            if name.startswith("_") or not callable(value) or getattr(value, "__module__", "") != module_name:
                continue
            setattr(module, name, equivalents.get(name) or _missing(name))


def _missing(name: str) -> Callable[..., Any]:
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"libdevice.{name} has no interpreter version")

    missing.__name__ = name
    return missing


_LIBRARY = re.compile(r"/(triton|torch)/")  # a frame of Triton's or torch's own code
_NO_CUDA = ("Torch not compiled with CUDA enabled", "Found no NVIDIA driver", "No CUDA GPUs are available",
            "no CUDA-capable device")


def gap(error: BaseException) -> Optional[str]:
    """What the interpreter lacks that `error` (or an exception it was raised from) shows, as a sentence; None
    when the error is the candidate's own (and always off the interpreter)."""
    if not active():
        return None
    seen: set[int] = set()
    cause: Optional[BaseException] = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        found = _gap_of(cause)
        if found:
            return f"{REASON} ({found})"
        cause = cause.__cause__ or cause.__context__
    return None


def _gap_of(error: BaseException) -> Optional[str]:
    """The gap one exception shows, if Triton, torch or a shim here raised it (a candidate that raises the same
    exception itself shows nothing of the interpreter)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = frames[-1].filename if frames else ""
    if not (_LIBRARY.search(where) or where == __file__):
        return None
    text = str(error)
    if isinstance(error, NotImplementedError):
        return f"not in the interpreter: {text[:200]}" if text else "not in the interpreter"
    if isinstance(error, RuntimeError) and "active drivers" in text:
        return "the interpreter has no GPU driver: device properties and Triton's benchmarker need one"
    if any(marker in text for marker in _NO_CUDA):
        return "the candidate asks for CUDA, which this machine does not have"
    return None
