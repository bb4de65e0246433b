"""The reference worker's GPU case store (case_store.py): least recently used cases leave first when the
budget is exceeded, never a case an evaluation has pinned, and pins end with the evaluation. Tensors on the
CPU stand in for the GPU's here; the budget is a fraction of a stated device memory."""
import torch

from tritongym_worker.case_store import Case, CaseStore

KB = 1024


def _case():
    return Case([torch.zeros(KB // 4)], [torch.zeros(KB // 4)], [])  # 1 KB of inputs, 1 KB expected


def _store():
    return CaseStore(0.5, device_memory=lambda device: 10 * KB)  # a budget of 5 KB: two cases


def test_the_least_recently_used_unpinned_case_leaves_first():
    store = _store()
    store.put(0, "a", _case(), "e1")
    store.put(0, "b", _case(), "e1")
    store.unpin("e1")
    assert store.get(0, "a") is not None  # a is now the more recent
    store.put(0, "c", _case(), "e2")
    assert store.get(0, "b") is None
    assert store.get(0, "a") is not None and store.get(0, "c") is not None
    assert store.held_bytes(0) == 4 * KB


def test_pinned_cases_stay_over_the_budget_until_their_evaluation_ends():
    store = _store()
    for key in "abc":
        store.put(0, key, _case(), "e1")
    assert all(store.get(0, key) is not None for key in "abc")  # 6 KB: over, but all pinned
    store.unpin("e1")
    assert store.held_bytes(0) <= 5 * KB
    assert store.get(0, "c") is not None  # the most recent stays


def test_devices_have_their_own_budgets():
    store = _store()
    store.put(0, "a", _case(), "e1")
    store.put(1, "a", _case(), "e1")
    store.put(1, "b", _case(), "e1")
    store.unpin("e1")
    assert store.held_bytes(0) == 2 * KB and store.held_bytes(1) == 4 * KB


def test_a_case_made_ahead_is_pinned_by_nobody_and_leaves_in_its_turn():
    store = _store()
    store.put(0, "a", _case(), "e1")
    store.put(0, "ahead", _case(), None)  # made before its evaluation came
    assert not store.get(0, "ahead").pins
    store.unpin("e1")
    store.put(0, "c", _case(), "e2")  # over the budget: the least recently used leaves, "a", not "ahead"
    assert store.get(0, "a") is None
    assert store.get(0, "ahead") is not None
    store.pin(0, "ahead", "e3")  # its evaluation came
    assert store.get(0, "ahead").pins == {"e3"}


def test_a_case_made_ahead_is_not_kept_beyond_the_budget():
    store = _store()
    store.put(0, "a", _case(), "e1")
    store.put(0, "b", _case(), "e1")
    store.put(0, "ahead", _case(), None)  # the pinned cases fill the budget: the one made ahead cannot stay
    assert store.get(0, "ahead") is None
    assert store.held_bytes(0) == 4 * KB
