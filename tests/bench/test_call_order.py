"""bench/call_order.py: the loop's old order it measures against the loop's own (timing.call_order), and its
table."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))


def test_the_old_order_reads_one_set_a_round_and_the_new_one_never_the_set_just_read():
    import call_order
    from tritongym_worker import timing

    names = list(call_order.NAMES)
    old = call_order.one_set_per_round(names, 8, 4)
    assert [name for name, _ in old] == names * 8
    assert [index for _, index in old] == [r % 4 for r in range(8) for _ in range(3)]
    now = timing.call_order(names, 8, 4)
    assert [name for name, _ in now] == names * 8  # the same calls, only the sets differ
    assert all(a[1] != b[1] for a, b in zip(now, now[1:]))


def test_the_table_gives_each_order_and_the_third_against_the_first():
    import call_order

    row = {"task": "standard/layernorm", "shape": "visible-1", "dtype": "float16",
           "per round": {"first": 36.42, "second": 35.36, "third": 35.33},
           "per call": {"first": 36.19, "second": 36.27, "third": 36.19}, "alone": 36.19}
    text = call_order.table([row])
    assert "| standard/layernorm | visible-1 | float16 | 36.42 / 35.36 / 35.33 | 36.19 / 36.27 / 36.19 | 36.19 | " \
           "0.970 | 1.000 |" in text
