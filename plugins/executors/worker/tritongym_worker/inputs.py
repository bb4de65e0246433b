"""Inputs for a task at one shape, dtype and seed: from task.yaml's `inputs:` or reference.make_inputs."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import torch

DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "int8": torch.int8,
    "uint8": torch.uint8, "bool": torch.bool, "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
}


def evaluate_expression(text: Any, dims: dict[str, int]) -> Any:
    """A size or bound written in task.yaml: an int, a dimension name, or an expression over dims."""
    if isinstance(text, (int, float)):
        return text
    return eval(str(text), {"__builtins__": {}, "math": math, "min": min, "max": max}, dict(dims))  # trusted task data


def _tensor(spec: dict[str, Any], dims: dict[str, int], dtype: torch.dtype, generator: torch.Generator,
            device: str) -> torch.Tensor:
    """One tensor, drawn where `generator` is (the CPU, or the GPU for the GPU data plane), then moved to `device`."""
    shape = [int(evaluate_expression(size, dims)) for size in spec.get("shape", [])]
    dtype = DTYPES[spec["dtype"]] if "dtype" in spec else dtype
    distribution = spec.get("distribution", "randint" if not dtype.is_floating_point else "normal")
    where = generator.device
    if distribution == "randint":
        low = int(evaluate_expression(spec.get("low", 0), dims))
        high = int(evaluate_expression(spec.get("high", 2), dims))
        return torch.randint(low, high, shape, generator=generator, dtype=torch.int64, device=where).to(dtype).to(device)
    if distribution == "uniform":
        low = float(evaluate_expression(spec.get("low", -1.0), dims))
        high = float(evaluate_expression(spec.get("high", 1.0), dims))
        values = torch.rand(shape, generator=generator, dtype=torch.float32, device=where) * (high - low) + low
    elif distribution == "normal":
        mean = float(evaluate_expression(spec.get("mean", 0.0), dims))
        std = float(evaluate_expression(spec.get("std", 1.0), dims))
        values = torch.randn(shape, generator=generator, dtype=torch.float32, device=where) * std + mean
    else:
        raise ValueError(f"input '{spec.get('name')}': unknown distribution '{distribution}'")
    return values.to(dtype).to(device).contiguous()


def make_inputs(input_specs: list[dict[str, Any]], make_inputs_fn: Optional[Callable[..., Any]],
                dims: dict[str, int], dtype_name: str, seed: int, device: str, draw_on_device: bool = False) -> list[Any]:
    """The positional arguments of the entry function, drawn on the CPU then moved to `device`, so that a
    seed gives the same values on every machine; with `draw_on_device`, inputs described in task.yaml are
    drawn on `device` itself (the GPU data plane: a few ms for what takes the CPU a second, but the values of
    a seed then depend on the GPU model). A task's own make_inputs gets the same generator: one that draws
    with `device=generator.device` works on both, and one that does not is given a CPU generator."""
    dtype = DTYPES[dtype_name]
    if make_inputs_fn is not None:
        made = None
        if draw_on_device and str(device).startswith("cuda"):
            # A task's make_inputs that draws with `device=generator.device` runs on the GPU; one written for
            # the CPU only fails with the GPU generator and is called again with a CPU one.
            try:
                made = make_inputs_fn(dict(dims), dtype, torch.Generator(device=device).manual_seed(seed))
            except (RuntimeError, TypeError, ValueError) as error:
                if "device" not in str(error) and "generator" not in str(error).lower():
                    raise
        if made is None:
            made = make_inputs_fn(dict(dims), dtype, torch.Generator().manual_seed(seed))
        return [value.to(device) if isinstance(value, torch.Tensor) else value for value in made]
    on_gpu = draw_on_device and str(device).startswith("cuda")
    generator = torch.Generator(device=device if on_gpu else "cpu").manual_seed(seed)
    if not input_specs:
        raise ValueError("the task has neither `inputs:` in task.yaml nor make_inputs() in reference.py")
    values: list[Any] = []
    for spec in input_specs:
        if "value" in spec:
            values.append(evaluate_expression(spec["value"], dims))
        else:
            values.append(_tensor(spec, dims, dtype, generator, device))
    return values
