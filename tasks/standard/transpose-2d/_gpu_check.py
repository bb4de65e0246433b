"""Mimics `tritongym eval`: make inputs, reference, candidate, compare; optional timing on CUDA.
usage: tg_check.py TASK_DIR [--code FILE] [--set small|visible|held_out|all] [--seeds N] [--device D] [--time]"""
import argparse, importlib.util, os, sys, time
try:
    import yaml
except ImportError:
    sys.path.append("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages"); import yaml
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..")) if os.path.exists(
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "plugins")) else "/work/main"
sys.path.insert(0, os.path.join(ROOT, "plugins/executors/worker"))
import torch
from tritongym_worker.inputs import make_inputs
from tritongym_worker.reference import _compare_tensors, _same

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path); mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod); return mod

ap = argparse.ArgumentParser()
ap.add_argument("task"); ap.add_argument("--code"); ap.add_argument("--set", default="small")
ap.add_argument("--seeds", type=int, default=3); ap.add_argument("--device", default="cpu"); ap.add_argument("--time", action="store_true")
a = ap.parse_args()
cfg = yaml.safe_load(open(os.path.join(a.task, "task.yaml")))
ref = load(os.path.join(a.task, "reference.py"), "ref")
cand = load(a.code or os.path.join(a.task, "oracle.py"), "cand")
fn = getattr(cand, cfg["entry"]["function"])
sets = ["small", "visible", "held_out"] if a.set == "all" else a.set.split(",")
ok_all = True
for dt in cfg["dtypes"]:
    tol = cfg.get("tolerance", {}).get(dt, {"atol": 1e-5, "rtol": 1e-5})
    for s in sets:
        for dims in cfg["shapes"].get(s, []):
            for seed in range(a.seeds):
                vals = make_inputs(cfg.get("inputs", []), getattr(ref, "make_inputs", None), dims, dt, 1000 + seed, a.device)
                before = [v.clone() if isinstance(v, torch.Tensor) else v for v in vals]
                with torch.no_grad():
                    exp = ref.reference(*vals); got = fn(*vals)
                exp = list(exp) if isinstance(exp, (tuple, list)) else [exp]
                got = list(got) if isinstance(got, (tuple, list)) else [got]
                msgs = []
                for b, v in zip(before, vals):
                    if isinstance(b, torch.Tensor) and not _same(b, v): msgs.append("INPUT MODIFIED")
                if len(got) != len(exp): msgs.append("count")
                worst = 0.0
                for g, e in zip(got, exp):
                    if g.shape != e.shape or g.dtype != e.dtype: msgs.append(f"shape/dtype {tuple(g.shape)} {g.dtype} vs {tuple(e.shape)} {e.dtype}"); continue
                    r = _compare_tensors(g.cpu(), e.cpu(), tol["atol"], tol["rtol"])
                    worst = max(worst, r["max_abs"])
                    if r["mismatch"]: msgs.append(r["mismatch"])
                    msgs.append(f"std={e.double().std().item() if e.numel()>1 else e.item():.4g}")
                line = f"{dt} {s} {dims} seed{seed}: max_abs={worst:.3g} " + " ".join(msgs)
                if a.time and a.device.startswith("cuda") and seed == 0 and s != "small":
                    import triton.testing
                    t_c = triton.testing.do_bench(lambda: fn(*vals), warmup=20, rep=100)
                    t_r = triton.testing.do_bench(lambda: ref.reference(*vals), warmup=20, rep=100)
                    by = eval(str(cfg.get("bytes", "0")), {"math": __import__("math")}, dict(dims))
                    fl = eval(str(cfg.get("flops", "0")), {"math": __import__("math")}, dict(dims))
                    line += f" | oracle {t_c*1e3:.1f}us ({by/t_c/1e9:.0f} GB/s, {fl/t_c/1e9:.0f} TFLOP/s) ref {t_r*1e3:.1f}us"
                ok = not any(m for m in msgs if not m.startswith("std="))
                ok_all &= ok
                print(("PASS " if ok else "FAIL ") + line, flush=True)
                if a.device.startswith("cuda") and s != "small": break
print("ALL PASS" if ok_all else "SOME FAIL")
