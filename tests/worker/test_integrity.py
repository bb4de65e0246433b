"""integrity: replaced functions, leftover threads, plain tensors, bitwise identity, aliasing, scrubbing."""
import statistics
import threading
import time

import pytest
import torch

from tritongym_worker import integrity


@pytest.fixture
def restore():
    saved = []

    def patch(owner, name, value):
        saved.append((owner, name, owner.__dict__[name] if name in owner.__dict__ else getattr(owner, name)))
        setattr(owner, name, value)

    yield patch
    for owner, name, value in reversed(saved):
        setattr(owner, name, value)


def test_nothing_changed():
    snapshot = integrity.Snapshot.take()
    assert "time.perf_counter" in snapshot.names and "torch.cuda.Event.elapsed_time" in snapshot.names
    assert snapshot.changed() == []


@pytest.mark.parametrize("owner,name,dotted", [
    (time, "perf_counter", "time.perf_counter"),
    (time, "perf_counter_ns", "time.perf_counter_ns"),
    (statistics, "median", "statistics.median"),
    (torch, "allclose", "torch.allclose"),
    (torch.testing, "assert_close", "torch.testing.assert_close"),
    (torch.cuda, "synchronize", "torch.cuda.synchronize"),
    (torch.cuda.Event, "elapsed_time", "torch.cuda.Event.elapsed_time"),
    (torch.cuda.Event, "record", "torch.cuda.Event.record"),
    (torch.Tensor, "__eq__", "torch.Tensor.__eq__"),
])
def test_replaced_function_is_named(restore, owner, name, dotted):
    snapshot = integrity.Snapshot.take()
    restore(owner, name, lambda *args, **kwargs: 0)
    assert snapshot.changed() == [dotted]


def test_replaced_event_class_and_builtin(restore):
    import builtins
    snapshot = integrity.Snapshot.take()
    restore(torch.cuda, "Event", type("Event", (), {}))
    restore(builtins, "divmod", lambda *a: (0, 0))
    changed = snapshot.changed()
    assert "torch.cuda.Event" in changed and "builtins.divmod" in changed


def test_code_swap_is_seen():
    def original():
        return 1

    snapshot = integrity.Snapshot.take(extra=["test_integrity_target.original"])
    import sys
    import types
    module = types.ModuleType("test_integrity_target")
    module.original = original
    sys.modules["test_integrity_target"] = module
    try:
        snapshot = integrity.Snapshot.take(extra=["test_integrity_target.original"])
        original.__code__ = (lambda: 2).__code__
        assert snapshot.changed() == ["test_integrity_target.original.__code__"]
    finally:
        del sys.modules["test_integrity_target"]


def test_trace_hook_and_torch_function_mode():
    import sys
    from torch.overrides import TorchFunctionMode
    snapshot = integrity.Snapshot.take()
    mode = TorchFunctionMode()
    mode.__enter__()
    try:
        assert "torch function mode stack" in snapshot.changed()
    finally:
        mode.__exit__(None, None, None)
    sys.settrace(lambda *a: None)
    try:
        assert "sys.gettrace()" in snapshot.changed()
    finally:
        sys.settrace(None)
    assert snapshot.changed() == []


def test_worker_functions_are_watched(restore):
    from tritongym_worker import candidate_child
    snapshot = integrity.Snapshot.take()
    assert "tritongym_worker.candidate_child._check_outputs" in snapshot.names
    restore(candidate_child, "_check_outputs", lambda *a: "")
    assert snapshot.changed() == ["tritongym_worker.candidate_child._check_outputs"]


def test_thread_started_after_the_baseline_is_named():
    baseline = integrity.ThreadBaseline.take()
    assert integrity.threads_alive(baseline) == []
    release = threading.Event()
    worker = threading.Thread(target=release.wait, name="late-launcher", daemon=True)
    worker.start()
    try:
        alive = integrity.threads_alive(baseline)
        assert len(alive) == 1 and "late-launcher" in alive[0] and "daemon" in alive[0]
    finally:
        release.set()
        worker.join()
    assert integrity.threads_alive(baseline) == []



def test_an_os_thread_still_exiting_is_given_time_and_one_left_running_is_not(monkeypatch):
    baseline = integrity.ThreadBaseline.take()
    listed = dict(integrity._os_threads())
    calls = []

    def exiting():  # a joined thread the OS still lists for the first two looks, then not
        calls.append(1)
        return {**listed, 999999: "python"} if len(calls) <= 2 else dict(listed)

    monkeypatch.setattr(integrity, "_os_threads", exiting)
    assert integrity.threads_alive(baseline) == []
    monkeypatch.setattr(integrity, "_os_threads", lambda: {**listed, 999998: "python"})
    assert integrity.threads_alive(baseline) == ["os thread 999998 'python'"]
    assert integrity.threads_alive(baseline, settle_s=0.0) == ["os thread 999998 'python'"]

def test_os_thread_without_python_thread_is_named():
    import ctypes
    import os
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("no /proc/self/task")
    baseline = integrity.ThreadBaseline.take()
    release = threading.Event()
    worker = threading.Thread(target=release.wait, daemon=True)
    worker.start()
    try:
        # a thread the threading module does not know about (as from C code): hide this one from the baseline check
        hidden = integrity.ThreadBaseline(baseline.python | {worker.ident}, baseline.os_threads)
        alive = integrity.threads_alive(hidden)
        assert len(alive) == 1 and alive[0].startswith("os thread ")
        assert integrity.threads_alive(hidden, ignore_os_names=[""]) == []  # every name ignored
    finally:
        release.set()
        worker.join()
    del ctypes


def test_os_threads_a_harness_step_starts_join_the_baseline():
    """CUPTI starts after the candidate's checks (candidate_child._TimingGuard.start_tracing): the threads it starts are
    the harness's. A thread the candidate starts later is still named."""
    import os
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("no /proc/self/task")
    release = threading.Event()
    threads = []

    def step():  # stands in for CUPTI: a thread that no Python code of the candidate's knows about
        threads.append(threading.Thread(target=release.wait, name="harness-step", daemon=True))
        threads[-1].start()

    baseline = integrity.ThreadBaseline.take()
    try:
        after = baseline.started_by(step)
        native = threads[0].native_id
        assert native in after.os_threads and native not in baseline.os_threads
        assert after.python == baseline.python
        # As for CUPTI's threads, which have no Python object: hidden from the Python side, not named.
        hidden = integrity.ThreadBaseline(after.python | {threads[0].ident}, after.os_threads)
        assert integrity.threads_alive(hidden, ignore_os_names=[]) == []
        threads.append(threading.Thread(target=release.wait, name="candidate-late", daemon=True))
        threads[-1].start()
        alive = integrity.threads_alive(hidden, ignore_os_names=[])
        assert len(alive) == 1 and "candidate-late" in alive[0]
    finally:
        release.set()
        for thread in threads:
            thread.join()


class _Sub(torch.Tensor):
    pass


def test_plain_tensor():
    x = torch.arange(6.0)
    assert integrity.is_plain_tensor(x) and integrity.tensor_problem(x) == ""
    assert integrity.is_plain_tensor(x[2:])  # a view is still a plain tensor
    assert "not a plain torch.Tensor" in integrity.tensor_problem(x.as_subclass(_Sub))
    assert not integrity.is_plain_tensor(torch.empty(3, device="meta"))
    assert not integrity.is_plain_tensor(x.numpy())
    assert not integrity.is_plain_tensor(torch.randn(2, dtype=torch.complex64).conj())
    assert not integrity.is_plain_tensor(x.to_sparse())
    assert "expected cuda" in integrity.tensor_problem(x, device="cuda")
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fake = torch.empty(4)
    assert not integrity.is_plain_tensor(fake)


def test_outputs_identical_is_bitwise():
    a = torch.tensor([1.0, float("nan"), -0.0])
    assert integrity.outputs_identical(a, a.clone())
    assert integrity.outputs_identical((a, torch.ones(2)), [a.clone(), torch.ones(2)])
    assert not integrity.outputs_identical(a, torch.tensor([1.0, float("nan"), 0.0]))  # -0.0 vs 0.0
    assert not integrity.outputs_identical(a, a.double())
    assert not integrity.outputs_identical(a, a[:2])
    assert not integrity.outputs_identical((a,), (a, a))
    assert integrity.outputs_identical(a.reshape(3, 1).t(), a.reshape(1, 3))  # layout does not matter, values do


def test_shares_memory_and_clone_all():
    x = torch.arange(10.0)
    assert integrity.shares_memory(x, x[5:]) and integrity.shares_memory(x[:3], x.view(2, 5))
    assert not integrity.shares_memory(x, x.clone())
    before = integrity.clone_all([x, 3])
    x[0] = 100.0
    assert not integrity.outputs_identical(before[0], x) and before[1] == 3


def test_scrub_fills_with_nan():
    x = torch.ones(5)
    integrity.scrub([x, None])
    assert torch.isnan(x).all()
    y = torch.ones(3, dtype=torch.int32)
    integrity.scrub(y)
    assert (y == -1).all()


def test_persisting_l2_without_a_context():
    assert integrity.persisting_l2_bytes() in (None, 0)
    assert integrity.clear_persisting_l2() in (None, 0)  # no context: nothing to clear, nothing initialised


def test_output_payload_says_unchanged_inputs_without_copying_them():
    originals = [torch.arange(6, dtype=torch.float32), 3]
    inputs = [originals[0].clone(), 3]
    payload = integrity.output_payload([inputs[0] * 2], inputs, originals)
    assert payload["inputs_unchanged"] is True and "inputs_after" not in payload
    assert torch.equal(payload["outputs"][0], torch.arange(6, dtype=torch.float32) * 2)


def test_output_payload_keeps_changed_inputs_for_the_reference_worker():
    originals = [torch.tensor([1.0, float("nan")])]
    inputs = [originals[0].clone()]
    assert integrity.output_payload([], inputs, originals).get("inputs_unchanged") is True  # NaN where NaN was
    inputs[0][0] = 5.0
    payload = integrity.output_payload([], inputs, originals)
    assert "inputs_unchanged" not in payload
    assert payload["inputs_after"][0][0].item() == 5.0
