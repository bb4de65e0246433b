"""The H100 call of 2026-12-07 whose baselines the host refused (the cold_l2 schema bug): its oracle times (the
call's audit.json) against the baselines its reference worker had cached and the machine's v4 ceilings, with the
audit's per-shape thresholds applied here. Run from the repository root with that call's folded device-state."""
import json, glob, sys, subprocess, math
sys.path.insert(0, "build/plugins/python")
from tritongym_worker import baselines
machine = "582353a1e9ec74ec"
cache = baselines.Cache("device-state/cache/tritongym/baselines")
ceil = [json.load(open(p)) for p in glob.glob("device-state/cache/tritongym/ceilings/%s-*.json" % machine)]
ceil = [c for c in ceil if "issue_instructions_per_s" in c][0]
audit = json.load(open(sys.argv[1]))  # the call's audit/audit.json, from its device-logs.tgz
tasks = {t["id"]: t for t in json.loads(subprocess.run(["build/bin/tritongym", "tasks", "list", "--json", "--full"],
                                                       capture_output=True, text=True).stdout)}
which = ["eager", "compile"]
for row in audit["tasks"]:
    tid = row["task"]
    if not tid.startswith("standard/") or tid not in tasks:
        continue
    t = tasks[tid]
    files = baselines.file_digest(t["reference"], t["oracle"], t["triton_baseline"])
    dims_of = {s["name"]: s["dims"] for s in t["visible_shapes"] + t["held_out_shapes"]}
    for s in row["shapes"]:
        name, _, dt = s["shape"].partition("/")
        dtype = dt or t["dtypes"][0]
        dims = dims_of[name]
        entry = cache.get(baselines.baseline_key(machine, files, tid, dims, dtype, True, which))
        work = baselines.work_of(t["flops"], t["bytes"], dims, dtype)
        floor = baselines.speed_of_light_us(work, dtype, ceil, t["compute_unit"] or "tensor")
        o = s["oracle_us"]
        if entry is None:
            print(f"{tid:40s} {s['shape']:22s} oracle {o:9.1f}  (no cached baselines: files changed?)")
            continue
        e, c = entry.get("eager_us"), entry.get("compile_us")
        best = min(x for x in (e, c) if x) if (e or c) else None
        flags = []
        if best and best / o * 1.03 < 1.0: flags.append("oracle-vs-baselines")  # kBaselineSlack
        if floor and floor / o > 1.0: flags.append("floor-below-oracle")
        elif floor and floor / o < 0.45: flags.append("oracle-near-floor")
        if o < 20: flags.append("shape-20us")
        print(f"{tid:40s} {s['shape']:22s} oracle {o:9.1f} eager {e or float('nan'):9.1f} compile {c or float('nan'):9.1f} "
              f"vs-best {best / o if best else float('nan'):5.2f} floor {floor or float('nan'):8.1f} {100 * floor / o if floor else float('nan'):4.0f}% {' '.join(flags)}")
