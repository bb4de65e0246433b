"""The cold executor's judge (acme.executor.cold): one evaluation in this fresh process.

Reads a JSON request on stdin: {code, entry, reference, inputs, shapes: [{name, dims}], dtypes,
tolerance: {dtype: {atol, rtol}}, seeds}. For every shape, dtype and seed it draws the inputs (the reference's
make_inputs, else task.yaml's `inputs`), runs the reference and the candidate, and compares them. Prints one JSON
line: {verdict, message, shapes: [{shape, passed, max_abs_error, max_rel_error, first_mismatch}]}."""
import importlib.util
import json
import sys
import traceback

import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int8": torch.int8, "int32": torch.int32, "int64": torch.int64}


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def draw(spec, dims, dtype, generator):
    if "value" in spec:
        return spec["value"]
    shape = [dims[d] if isinstance(d, str) else int(d) for d in spec.get("shape", [])]
    dtype = DTYPES.get(spec.get("dtype"), dtype)
    kind = spec.get("distribution", "normal")
    if kind == "randint":
        high = spec["high"] if isinstance(spec["high"], int) else dims[spec["high"]]
        return torch.randint(int(spec.get("low", 0)), int(high), shape, generator=generator, dtype=dtype)
    if kind == "uniform":
        low, high = float(spec.get("low", 0.0)), float(spec.get("high", 1.0))
        return (torch.rand(shape, generator=generator) * (high - low) + low).to(dtype)
    return torch.randn(shape, generator=generator).to(dtype)


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]


def compare(expected, got, tolerance):
    """(passed, max_abs_error, max_rel_error, first_mismatch) over every output."""
    worst_abs = worst_rel = 0.0
    if len(expected) != len(got):
        return False, 0.0, 0.0, f"{len(got)} outputs, expected {len(expected)}"
    for index, (want, have) in enumerate(zip(expected, got)):
        if not isinstance(have, torch.Tensor) or have.shape != want.shape or have.dtype != want.dtype:
            described = f"{type(have).__name__} {getattr(have, 'shape', '')} {getattr(have, 'dtype', '')}"
            return False, 0.0, 0.0, f"output {index}: {described}, expected {tuple(want.shape)} {want.dtype}"
        want64, have64 = want.double(), have.double()
        error = (want64 - have64).abs()
        worst_abs = max(worst_abs, float(error.max()) if error.numel() else 0.0)
        worst_rel = max(worst_rel, float((error / want64.abs().clamp_min(1e-12)).max()) if error.numel() else 0.0)
        bad = ~(error <= tolerance["atol"] + tolerance["rtol"] * want64.abs())
        if bad.any():
            at = tuple(int(i) for i in bad.nonzero()[0])
            return False, worst_abs, worst_rel, f"output {index} at {at}: got {float(have64[at])}, expected {float(want64[at])}"
    return True, worst_abs, worst_rel, ""


def main():
    request = json.loads(sys.stdin.read())
    reference = load(request["reference"], "reference")
    with open("candidate.py", "w") as handle:
        handle.write(request["code"])
    try:
        candidate = getattr(load("candidate.py", "candidate"), request["entry"])
    except Exception:
        return {"verdict": "compile_error", "message": traceback.format_exc(limit=-3)}
    shapes = []
    for shape in request["shapes"]:
        for dtype_name in request["dtypes"] or ["float32"]:
            tolerance = request["tolerance"].get(dtype_name, {"atol": 1e-5, "rtol": 1e-5})
            dtype = DTYPES[dtype_name]
            outcome = {"shape": shape["name"] + ("" if len(request["dtypes"]) < 2 else "/" + dtype_name),
                       "passed": True, "max_abs_error": 0.0, "max_rel_error": 0.0, "first_mismatch": ""}
            for seed in range(request["seeds"]):
                generator = torch.Generator().manual_seed(seed)
                if hasattr(reference, "make_inputs"):
                    inputs = reference.make_inputs(shape["dims"], dtype, generator)
                else:
                    inputs = [draw(spec, shape["dims"], dtype, generator) for spec in request["inputs"]]
                expected = as_list(reference.reference(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]))
                try:
                    got = as_list(candidate(*inputs))
                except Exception:
                    return {"verdict": "runtime_error", "message": f"{shape['name']}: " + traceback.format_exc(limit=-3)}
                passed, abs_error, rel_error, mismatch = compare(expected, got, tolerance)
                outcome["max_abs_error"] = max(outcome["max_abs_error"], abs_error)
                outcome["max_rel_error"] = max(outcome["max_rel_error"], rel_error)
                if not passed:
                    outcome.update(passed=False, first_mismatch=f"seed {seed}: {mismatch}")
                    break
            shapes.append(outcome)
    failed = [s for s in shapes if not s["passed"]]
    if failed:
        return {"verdict": "wrong_answer", "shapes": shapes,
                "message": f"{len(failed)} of {len(shapes)} shapes wrong; {failed[0]['shape']}: {failed[0]['first_mismatch']}"}
    return {"verdict": "passed", "shapes": shapes, "message": f"passed {len(shapes)} shape(s) x {request['seeds']} seed(s)"}


if __name__ == "__main__":
    print(json.dumps(main()))
