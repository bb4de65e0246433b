"""torch.compile of a reference under a deadline, on the CPU. The stop may leave torch's tracing state
unusable, so the scenario runs in a process of its own (the reference worker retires after it too)."""
import hashlib
import json
import os
import subprocess
import sys
import textwrap

import torch

WORKER = os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "executors", "worker")

SCENARIO = textwrap.dedent("""
    import time, torch
    from tritongym_worker import baselines

    def looped(a, b):  # 3000 steps: Dynamo unrolls them into a graph no compiler finishes in 2 s
        state = torch.zeros_like(a[:, 0])
        out = torch.empty_like(a)
        for t in range(a.shape[1]):
            state = a[:, t] * state + b[:, t]
            out[:, t] = state
        return out

    a, b = torch.rand(4, 3000), torch.rand(4, 3000)
    before = baselines.dispatch_state()
    # A reference that compiles in time gives a compiled function that this thread can call.
    scaled = baselines.compile_with_deadline(lambda x, y: (x * y).sum(1), [a, b], 240.0)
    with torch.no_grad():
        print("COMPILED_OK", bool(torch.allclose(scaled(a, b), (a * b).sum(1))))
    began = time.monotonic()
    try:
        baselines.compile_with_deadline(looped, [a, b], 2.0)
        print("UNROLLED_IN_TIME")
    except TimeoutError as error:
        print("TIMEOUT", round(time.monotonic() - began, 1), error)
    print("DISPATCH_STATE_KEPT", baselines.dispatch_state() == before)
    expected = looped(a, b)  # eager still works in this process
    print("EAGER", bool(torch.isfinite(expected).all()))
""")


def test_a_compile_in_time_is_kept_and_one_past_its_deadline_is_stopped_and_reported(tmp_path):
    # A fresh inductor cache, as on a clean machine: there the first deadline fell in a weakref callback, which
    # dropped it, and the compile ran on past the test's limit (2026-12-01) until the watchdog raised it again.
    env = dict(os.environ, PYTHONPATH=os.path.abspath(WORKER), TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"))
    done = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    timeout = next(line for line in lines if line.startswith(("TIMEOUT", "UNROLLED_IN_TIME")))
    assert timeout.startswith("TIMEOUT"), lines
    waited = float(timeout.split()[1])
    assert 2.0 <= waited < 60.0, timeout  # stopped soon after the deadline, not when the compiler gave up
    assert "did not finish compiling the reference within 2 s" in timeout
    assert "COMPILED_OK True" in lines
    assert "EAGER True" in lines
    assert "DISPATCH_STATE_KEPT True" in lines


# Which baselines are timed (the executor's `baselines`; `tritongym tasks check` times none).

# A timed entry's `cold_l2`, in the timing loop's words (timing.time_functions), as the cache holds it.
COLD = "rotation over 4 input set(s), 19 MB, and a 105 MB scrub read before every call"

def _reference(a, b):
    return a + b


def _oracle(a, b):
    return a + b


def _triton(a, b):
    return a + b


def test_only_the_baselines_asked_for_are_made_and_none_is_compiled_unless_asked():
    from tritongym_worker import baselines

    sets = [[torch.ones(4), torch.ones(4)]]
    functions, problems = baselines.baseline_functions(_reference, _oracle, sets, which=["eager", "oracle"])
    assert list(functions) == ["eager", "oracle"] and functions["oracle"] is _oracle and problems == {}
    functions, problems = baselines.baseline_functions(_reference, _oracle, sets, which=[])
    assert functions == {} and problems == {}
    # An earlier shape's compile failure is reported for torch.compile only when it is asked for.
    functions, problems = baselines.baseline_functions(_reference, None, sets, which=["eager", "compile"],
                                                       compile_problem="TimeoutError: slow")
    assert list(functions) == ["eager"] and problems == {"compile": "TimeoutError: slow"}
    _, problems = baselines.baseline_functions(_reference, None, sets, which=["eager"],
                                               compile_problem="TimeoutError: slow")
    assert problems == {}
    # Nothing to time: no timing at all (it needs a GPU), and the reply says so.
    assert baselines.time_baselines(_reference, _oracle, sets, which=[]) == {
        "cold_l2": "nothing timed (cold L2 asked)", "problems": {}, "timed": []}


def test_a_subsets_cache_key_is_its_own_and_the_full_sets_key_is_unchanged():
    from tritongym_worker import baselines, timing

    args = ("machine", "files", "standard/vector-add", {"N": 4}, "float32", True)
    before = hashlib.sha256(json.dumps(list(args) + [timing.METHOD], sort_keys=True).encode()).hexdigest()[:24]
    assert baselines.baseline_key(*args) == before  # caches made before `baselines` existed still serve
    assert baselines.baseline_key(*args, which=["oracle", "compile", "eager"]) == before
    assert baselines.baseline_key(*args, which=["eager"]) != before
    assert baselines.baseline_key(*args, which=["eager", "oracle"]) == baselines.baseline_key(*args, which=["oracle", "eager"])


def test_the_plain_triton_baseline_is_timed_only_for_a_task_that_ships_it_and_its_set_names_itself():
    from tritongym_worker import baselines, timing

    sets = [[torch.ones(4), torch.ones(4)]]
    functions, _ = baselines.baseline_functions(_reference, _oracle, sets, which=["eager", "oracle", "triton"],
                                                triton=_triton)
    assert list(functions) == ["eager", "oracle", "triton"] and functions["triton"] is _triton
    functions, _ = baselines.baseline_functions(_reference, _oracle, sets, which=["eager", "oracle", "triton"])
    assert list(functions) == ["eager", "oracle"]  # a task without triton_baseline.py
    assert baselines.offered({"triton_baseline_path": ""}) == ["eager", "compile", "oracle"]
    assert baselines.offered({"triton_baseline_path": "/t/triton_baseline.py"}) == list(baselines.BASELINES)
    args = ("machine", "files", "dsl/gluon-x", {"N": 4}, "float16", True)
    before = hashlib.sha256(json.dumps(list(args) + [timing.METHOD], sort_keys=True).encode()).hexdigest()[:24]
    assert baselines.baseline_key(*args, which=baselines.offered({})) == before  # other tasks keep their keys
    assert baselines.baseline_key(*args, which=baselines.BASELINES) != before


def test_the_reference_worker_serves_a_dsl_tasks_baselines_with_its_triton_baseline(tmp_path, monkeypatch):
    # The lookup (`cached_only`) on the CPU: a task with triton_baseline.py keeps its four baselines under the
    # key of the four, whose files digest holds the baseline's file; the subsets are cut from it.
    from tritongym_worker import baselines, protocol, reference

    monkeypatch.setattr(baselines, "machine_key", lambda: "machine")
    (tmp_path / "reference.py").write_text("def reference(a):\n    return a\n")
    (tmp_path / "triton_baseline.py").write_text("def f(a):\n    return a\n")
    task = {"id": "dsl/x", "reference_path": str(tmp_path / "reference.py"), "oracle_path": "",
            "triton_baseline_path": str(tmp_path / "triton_baseline.py"), "entry": "f", "flops": "", "bytes": ""}
    files = baselines.file_digest(task["reference_path"], "", task["triton_baseline_path"])
    assert files != baselines.file_digest(task["reference_path"], "")
    key = baselines.baseline_key("machine", files, "dsl/x", {"N": 4}, "float16", True, baselines.BASELINES)
    baselines.Cache(str(tmp_path / "baselines")).put(key, {
        "cold_l2": COLD, "problems": {}, "timed": ["eager", "compile", "oracle", "triton"], "eager_us": 9.0,
        "compile_us": 8.0, "oracle_us": 2.0, "triton_us": 3.0})
    request = {"task": task, "ceilings": {}, "cache_dir": str(tmp_path), "cached_only": True,
               "shapes": [{"key": "visible-0", "dims": {"N": 4}, "dtype": "float16", "sets": []}]}
    role = reference.ReferenceRole("cpu")
    reply = role.baselines(request)
    protocol.SCHEMA.check("baselines.reply", reply)  # what the host accepts: an entry as the timing loop wrote it
    shape = reply["shapes"][0]
    assert (shape["triton_us"], shape["oracle_us"]) == (3.0, 2.0)
    shape = role.baselines({**request, "baselines": ["eager", "compile", "triton"]})["shapes"][0]  # the audit's
    assert shape["triton_us"] == 3.0 and "oracle_us" not in shape and shape["timed"] == ["eager", "compile", "triton"]
    # Without the file the task has no such baseline: the request for all four looks up the three.
    plain = {**task, "triton_baseline_path": ""}
    assert role.baselines({**request, "task": plain}) == {"ok": True, "missing": "visible-0"}


def test_an_entry_of_all_three_serves_a_subset_cut_down_to_it():
    from tritongym_worker import baselines

    full = {"cold_l2": COLD, "problems": {"compile": "TimeoutError: slow"}, "eager_us": 10.0,
            "eager_spread_pct": 0.1, "eager_repetitions": 50, "oracle_us": 5.0, "oracle_spread_pct": 0.2,
            "oracle_repetitions": 50}  # an entry from before "timed" was kept
    cut = baselines.only(full, ["oracle"])
    assert cut == {"cold_l2": COLD, "problems": {}, "oracle_us": 5.0, "oracle_spread_pct": 0.2,
                   "oracle_repetitions": 50, "timed": ["oracle"]}
    assert baselines.only(full, ["eager", "compile"])["problems"] == {"compile": "TimeoutError: slow"}
    assert baselines.only(full, ["eager", "compile"])["timed"] == ["eager"]


def test_the_compile_deadline_names_its_give_up_key_only_when_it_is_not_the_default():
    from tritongym_worker import baselines

    before = "compile-timeout-" + hashlib.sha256(json.dumps(["machine", "files", "ood/x"]).encode()).hexdigest()[:24]
    assert baselines.timeout_key("machine", "files", "ood/x") == before  # caches from before the setting still serve
    assert baselines.timeout_key("machine", "files", "ood/x", baselines.COMPILE_SECONDS) == before
    assert baselines.timeout_key("machine", "files", "ood/x", 30.0) != before


def test_a_compile_given_up_at_a_shorter_deadline_is_tried_again_under_a_longer_one():
    from tritongym_worker import baselines

    stopped = {"problems": {"compile": "TimeoutError: torch.compile did not finish compiling the reference within 30 s"},
               "compile_seconds": 30.0, "eager_us": 10.0}
    assert baselines.compile_given_up_sooner(stopped, 120.0)
    assert not baselines.compile_given_up_sooner(stopped, 30.0)
    assert not baselines.compile_given_up_sooner(stopped, 10.0)  # a shorter deadline would stop it too
    # An entry from before the deadline could be set was stopped at the default.
    older = {"problems": {"compile": "TimeoutError: ... within 120 s"}, "eager_us": 10.0}
    assert not baselines.compile_given_up_sooner(older, baselines.COMPILE_SECONDS)
    assert baselines.compile_given_up_sooner(older, 300.0)
    # A compile that failed otherwise, or one that finished, is never tried again for the deadline.
    assert not baselines.compile_given_up_sooner({"problems": {"compile": "RuntimeError: unsupported"}}, 300.0)
    assert not baselines.compile_given_up_sooner({"problems": {}, "compile_us": 5.0}, 300.0)


def test_the_reference_worker_times_again_a_shape_whose_compile_was_given_up_sooner(tmp_path, monkeypatch):
    # The reference worker's lookup (`cached_only`, as the executor asks first), on the CPU: the cache holds a
    # shape whose torch.compile was stopped at 30 s.
    from tritongym_worker import baselines, protocol, reference

    monkeypatch.setattr(baselines, "machine_key", lambda: "machine")  # the real one reads the GPU
    path = tmp_path / "reference.py"
    path.write_text("def reference(a):\n    return a\n")
    task = {"id": "ood/x", "reference_path": str(path), "oracle_path": "", "entry": "f", "flops": "", "bytes": ""}
    key = baselines.baseline_key("machine", baselines.file_digest(str(path), ""), "ood/x", {"N": 4}, "float32", True)
    baselines.Cache(str(tmp_path / "baselines")).put(key, {
        "cold_l2": COLD, "problems": {"compile": "TimeoutError: ... within 30 s"}, "compile_seconds": 30.0,
        "timed": ["eager", "oracle"], "eager_us": 1.0})
    request = {"task": task, "ceilings": {}, "cache_dir": str(tmp_path), "cached_only": True,
               "shapes": [{"key": "visible-0", "dims": {"N": 4}, "dtype": "float32", "sets": []}]}
    role = reference.ReferenceRole("cpu")
    assert role.baselines({**request, "compile_seconds": 30.0})["shapes"][0]["eager_us"] == 1.0
    assert role.baselines({**request, "compile_seconds": 120.0}) == {"ok": True, "missing": "visible-0"}
    # Without torch.compile among the baselines, the deadline does not matter.
    served = role.baselines({**request, "compile_seconds": 120.0, "baselines": ["eager", "oracle"]})
    assert served["shapes"][0]["eager_us"] == 1.0


# The thread's dispatch state after a compile stopped by its deadline.

def test_a_dispatch_key_a_stopped_compile_left_included_is_put_back_and_eager_runs_again():
    from tritongym_worker import baselines

    before = baselines.dispatch_state()
    a = torch.rand(8, 8)
    key = torch._C.DispatchKey.PythonDispatcher
    torch._C._dispatch_tls_set_dispatch_key_included(key, True)  # what a stop inside its context's cleanup left
    try:
        try:
            (a * a).sum()
            broken = None
        except RuntimeError as error:
            broken = str(error)
        assert broken and "PythonDispatcherTLS was not set" in broken  # the CI failure of 2026-12-03
    finally:
        changed = baselines.restore_dispatch_state(before)
    assert changed == ["PythonDispatcher included: False"]
    assert baselines.dispatch_state() == before
    assert torch.allclose((a * a).sum(), (a.double() ** 2).sum().float())
    assert baselines.restore_dispatch_state(before) == []  # nothing left to put back
