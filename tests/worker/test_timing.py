"""The timing loop's pure parts, on the CPU: the cross-checks that flag a result, the kernel table of the
median call, the spread, the speed-of-light floor and the determinism check. The loop itself (CUPTI,
CUDA events) runs among the gpu tests."""
import pytest
import torch

from tritongym_worker import baselines, measure, timing


def kernel(name, start_ns, end_ns, stream=7, call=0):
    return {"kind": "kernel", "name": name, "start_ns": start_ns, "end_ns": end_ns, "stream": stream, "call": call,
            "grid": (128, 1, 1), "block": (256, 1, 1), "registers": 32, "shared_memory_bytes": 0, "bytes": 0}


def times_of(calls, event_us, wall_us):
    """A CallTimes whose every call ran `calls[i]` activities, with the given clocks."""
    times = timing.CallTimes("candidate")
    for activities in calls:
        times.activities.append(activities)
        times.kernel_us.append(sum(a["end_ns"] - a["start_ns"] for a in activities) / 1000.0)
        times.span_us.append((max(a["end_ns"] for a in activities) - min(a["start_ns"] for a in activities)) / 1000.0
                             if activities else 0.0)
    times.event_us = [event_us] * len(calls)
    times.wall_us = [wall_us] * len(calls)
    return times


HONEST = [[kernel("_add_kernel", 0, 50_000)] for _ in range(20)]  # 50 us per call on stream 7


def test_honest_timing_raises_nothing():
    assert timing.cross_check(times_of(HONEST, event_us=55.0, wall_us=70.0), harness_stream=7, outside=[]) == []


def test_events_shorter_than_the_kernels_mean_a_replaced_event_timer():
    reasons = timing.cross_check(times_of(HONEST, event_us=5.0, wall_us=70.0), 7, [])
    assert len(reasons) == 1 and "CUDA events" in reasons[0] and "span" in reasons[0]


def test_a_host_clock_shorter_than_the_events_means_a_replaced_host_timer():
    reasons = timing.cross_check(times_of(HONEST, event_us=55.0, wall_us=1.0), 7, [])
    assert len(reasons) == 1 and "host clock" in reasons[0]


def test_a_kernel_on_another_stream_is_flagged():
    calls = [[kernel("_add_kernel", 0, 40_000), kernel("_side", 0, 40_000, stream=9)] for _ in range(20)]
    reasons = timing.cross_check(times_of(calls, event_us=45.0, wall_us=60.0), 7, [])
    assert any("stream(s) [9]" in reason for reason in reasons), reasons


def test_work_launched_outside_the_calls_is_flagged():
    reasons = timing.cross_check(times_of(HONEST, 55.0, 70.0), 7, [kernel("_late", 0, 10, call=-1)])
    assert any("while no call was in progress" in reason and "_late" in reason for reason in reasons), reasons


def test_a_call_that_launched_nothing_is_flagged():
    calls = HONEST[:10] + [[] for _ in range(10)]
    reasons = timing.cross_check(times_of(calls, 55.0, 70.0), 7, [])
    assert any("launched no GPU work" in reason for reason in reasons), reasons


def test_the_kernel_table_is_the_median_call_grouped_by_name():
    calls = [[kernel("a", 0, 10_000 * k), kernel("b", 0, 1_000), kernel("b", 0, 1_000)] for k in range(1, 6)]
    table = timing.kernel_table(times_of(calls, 100.0, 120.0))
    assert [row["name"] for row in table] == ["a", "b"]  # by time, the longest first
    assert table[0]["total_us"] == pytest.approx(30.0)  # the median call is k = 3
    assert table[1]["calls"] == 2 and table[1]["total_us"] == pytest.approx(2.0)
    assert table[0]["grid"] == "128,1,1" and table[0]["registers"] == 32


def test_rounds_fill_the_target_within_the_call_limits():
    assert timing.plan_rounds(100.0, 0.4, 20, 500, 6.0) == 500      # 4000 rounds wanted, 500 at most
    assert timing.plan_rounds(10_000.0, 0.4, 20, 500, 6.0) == 40    # 0.4 s of 10 ms rounds
    assert timing.plan_rounds(100_000.0, 0.4, 20, 500, 6.0) == 20   # min_calls, 2 s in all


def test_a_slow_function_is_timed_fewer_times_but_never_fewer_than_the_floor():
    # A Python-loop reference of 0.5 s a round: min_calls would take 10 s; max_seconds caps it at 12 rounds.
    assert timing.plan_rounds(500_000.0, 0.4, 20, 500, 6.0) == 12
    # 3 s a round: the floor of SLOW_MIN_CALLS still holds (15 s in all).
    assert timing.plan_rounds(3_000_000.0, 0.4, 20, 500, 6.0) == timing.SLOW_MIN_CALLS


def test_a_function_timed_alone_goes_round_its_input_sets_in_order():
    assert timing.call_order(["candidate"], 6, 4) == [("candidate", i % 4) for i in range(6)]


@pytest.mark.parametrize("functions", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("sets", [1, 2, 3, 4, 6])
def test_interleaved_functions_never_read_a_set_another_just_read_and_each_meets_every_set(functions, sets):
    names = [f"f{i}" for i in range(functions)]
    order = timing.call_order(names, 4 * sets, sets)
    assert [name for name, _ in order] == names * (4 * sets)  # interleaved call by call, round by round
    if sets != 2 or functions % 2:  # with two sets, an even number of functions keeps one set each
        for name in names:
            assert {s for n, s in order if n == name} == set(range(sets))
    last_read: dict[int, int] = {}
    for call, (_, chosen) in enumerate(order):
        if chosen in last_read and sets > 1:
            # Back after as many calls (and scrubs) as there are sets, one fewer where a turn was shifted,
            # and never straight after the call that read it.
            assert call - last_read[chosen] >= max(sets - 1, 2)
        last_read[chosen] = call


def test_three_baselines_over_four_sets_read_them_as_a_candidate_alone_does():
    # eager, torch.compile and the oracle: the i-th call reads set i % 4, never the set of the call before.
    order = timing.call_order(["eager", "compile", "oracle"], 4, 4)
    assert [s for _, s in order] == [i % 4 for i in range(12)]
    assert [s for n, s in order if n == "oracle"] == [2, 1, 0, 3]


def test_spread_is_the_interquartile_range_over_the_median():
    assert timing.spread_pct([100.0] * 10) == 0.0
    assert timing.spread_pct([90.0, 95.0, 100.0, 105.0, 110.0]) == pytest.approx(15.0)
    assert timing.spread_pct([1.0, 2.0]) == 0.0  # too few to say


CEILINGS = {"copy_bytes_per_s": 4.0e12,
            "matrix_flops_per_s": {"float16": 800e12, "bfloat16": 790e12, "float32": 60e12, "float8_e4m3fn": 1500e12}}


def test_the_floor_is_the_slower_of_moving_the_bytes_and_doing_the_flops():
    work = baselines.work_of("2 * M * N * K", "2 * (M * K + K * N + M * N)", {"M": 4096, "N": 4096, "K": 4096},
                             "float16")
    floor = baselines.speed_of_light_us(work, "float16", CEILINGS)
    assert floor == pytest.approx(2 * 4096 ** 3 / 800e12 * 1e6)  # compute-bound
    streaming = baselines.work_of("N", "12 * N", {"N": 1 << 24}, "float32")
    assert baselines.speed_of_light_us(streaming, "float32", CEILINGS) == pytest.approx(12 * (1 << 24) / 4.0e12 * 1e6)


def test_fp32_work_is_held_to_the_tensor_core_rate_and_only_fp8_to_the_fp8_rate():
    work = {"flops": 1e12}
    assert baselines.speed_of_light_us(work, "float32", CEILINGS) == pytest.approx(1e12 / 800e12 * 1e6)
    assert baselines.speed_of_light_us(work, "float8_e4m3fn", CEILINGS) == pytest.approx(1e12 / 1500e12 * 1e6)


def test_a_tasks_compute_unit_picks_the_rate_its_flops_are_held_to():
    ceilings = {**CEILINGS, "matrix_flops_per_s": {**CEILINGS["matrix_flops_per_s"], "tf32": 400e12},
                "simt_fp32_flops_per_s": 60e12, "simt_int32_ops_per_s": 30e12}
    work = {"flops": 1e12}
    assert baselines.speed_of_light_us(work, "float32", ceilings, "tensor") == pytest.approx(1e12 / 800e12 * 1e6)
    assert baselines.speed_of_light_us(work, "float32", ceilings, "tf32") == pytest.approx(1e12 / 400e12 * 1e6)
    assert baselines.speed_of_light_us(work, "float32", ceilings, "simt") == pytest.approx(1e12 / 60e12 * 1e6)
    assert baselines.speed_of_light_us(work, "int32", ceilings, "int") == pytest.approx(1e12 / 30e12 * 1e6)
    assert baselines.speed_of_light_us(work, "float32", ceilings, "memory") is None  # no bytes, no compute floor
    # Ceilings measured before the units existed: the fastest rate, which can only lower the floor.
    assert baselines.speed_of_light_us(work, "float32", CEILINGS, "simt") == pytest.approx(1e12 / 1500e12 * 1e6)
    assert set(baselines.COMPUTE_UNITS) == {"tensor", "tf32", "simt", "int", "alu", "issue", "l2-gather", "memory"}


def test_only_int8_inputs_reach_the_int8_tensor_rate():
    ceilings = {**CEILINGS, "matrix_flops_per_s": {**CEILINGS["matrix_flops_per_s"], "int8": 1600e12}}
    work = {"flops": 1e12}
    assert baselines.speed_of_light_us(work, "int8", ceilings, "tensor") == pytest.approx(1e12 / 1600e12 * 1e6)
    # fp16 work cannot run on the int8 units, nor int8 work on the fp8 ones.
    assert baselines.speed_of_light_us(work, "float16", ceilings, "tensor") == pytest.approx(1e12 / 800e12 * 1e6)
    del ceilings["matrix_flops_per_s"]["int8"]
    assert baselines.speed_of_light_us(work, "int8", ceilings, "tensor") == pytest.approx(1e12 / 800e12 * 1e6)


def test_bytes_are_held_to_the_best_memory_pattern_measured():
    work = {"bytes": 8e9}
    ceilings = {**CEILINGS, "memory_bytes_per_s": 4.4e12}
    assert baselines.speed_of_light_us(work, "float32", ceilings) == pytest.approx(8e9 / 4.4e12 * 1e6)
    assert baselines.speed_of_light_us(work, "float32", CEILINGS) == pytest.approx(8e9 / 4.0e12 * 1e6)  # copy only


def test_dtype_bytes_is_known_to_the_formulas():
    assert baselines.work_of("", "2 * N * dtype_bytes", {"N": 10}, "bfloat16") == {"bytes": 40.0}
    assert baselines.speed_of_light_us({}, "float32", CEILINGS) is None


def test_determinism_allows_reordered_sums_within_tolerance_and_flags_the_rest():
    values = [torch.ones(64)]
    noise = iter([0.0, 1e-7, 0.0, 0.5])
    wobble = lambda x: x + next(noise)  # noqa: E731
    assert measure._determinism(wobble, values, 1e-5, 1e-5) == []
    flagged = measure._determinism(wobble, values, 1e-5, 1e-5)
    assert len(flagged) == 1 and "identical inputs" in flagged[0]


def test_the_tolerance_of_the_determinism_check_defaults_per_dtype():
    assert measure._tolerance({"dtype": "bfloat16"}) == (1e-2, 1e-2)
    assert measure._tolerance({"dtype": "float32", "atol": 0.5, "rtol": 0.25}) == (0.5, 0.25)


def test_a_window_trace_keeps_every_piece_of_work_of_the_turn_as_an_item_of_its_shape():
    # CUPTI's own calls stand in as lists of what "ran": the first take holds a warm-up kernel and a copy from the
    # host, the second a scrub and a timed call, the stop a copy on the device and a memset.
    ran = [[kernel("warm_up", 0, 10, call=timing.OUTSIDE_CALL),
            {**kernel("memcpy HtoD", 12, 20, call=timing.OUTSIDE_CALL), "kind": "memcpy"}],
           [kernel("scrub", 30, 60, call=timing.HARNESS_CALL), kernel("_add_kernel", 70, 120, call=0)]]
    stopped = [{**kernel("memcpy DtoD", 130, 140, call=timing.OUTSIDE_CALL), "kind": "memcpy"},
               {**kernel("memset", 150, 151, call=timing.OUTSIDE_CALL), "kind": "memset"}]
    started = []
    window = timing.WindowTrace(lambda: started.append(True), lambda: ran.pop(0), lambda: stopped)
    window.start()
    assert started == [True] and window.running
    assert [a["name"] for a in window.take(0)] == ["warm_up", "memcpy HtoD"]  # returned whole, for the timing loop
    window.take(1)
    items = window.stop(1)
    assert items == [[0, 10, 0, -1, 0], [12, 20, 0, -1, 2], [30, 60, 1, -2, 0], [70, 120, 1, 0, 0],
                     [130, 140, 1, -1, 1], [150, 151, 1, -1, 3]]
    assert window.stop(1) is items and not window.running  # stopped once
    assert timing.WINDOW_KINDS[2] == "memcpy to or from the host"
