"""bench/multi_gpu.py on the CPU: its ratio, verdict comparison, median shifts and table on made-up figures; its
background pool, fidelity rounds and serve client against stand-ins (a `tritongym` and an `nvidia-smi` that are
scripts); its argument parsing and its refusal of a machine with fewer than two GPUs. The measuring needs two GPUs
(scripts/device-check.sh, DEVICE_MULTI_GPU=1)."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import types

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
sys.path.insert(0, BENCH)

import eval_throughput  # noqa: E402
import multi_gpu  # noqa: E402

H200 = [("0", "GPU-aaaa-0000", "NVIDIA H200"), ("1", "GPU-bbbb-1111", "NVIDIA H200")]


def result(verdict: str, start: float | None = None, **more) -> dict:
    return {"verdict": verdict, **({"batch_start_seconds": start} if start is not None else {}), **more}


def one_pass(visible: str, role: str, seconds: float, verdicts: list[str], start: float = 2.0, **more) -> dict:
    results = [result(v, **more) for v in verdicts]
    results[0]["batch_start_seconds"] = start
    return {"visible": visible, "role": role, "seconds": seconds, "results": results,
            "gpu_utilisation": {"0": {"samples": 10, "mean_pct": 60.0}, "1": None}}


def measurement(passes: list[dict], n: int, **more) -> dict:
    return {"date": "2026-12-05T10:00:00Z", "commit": "abc123", "gpus": [{"id": "0", "index": 0, "name": "NVIDIA H200"},
                                                                         {"id": "1", "index": 1, "name": "NVIDIA H200"}],
            "gpu_indices": [0, 1], "visible": {"one": "0", "two": "0,1"}, "executor_config": {"timing_seconds": 0.1},
            "clients": 16, "base_candidates": n // 2,
            "candidates": [["standard/vector-add", f"/c/{i}.py", i // (n // 2)] for i in range(n)],
            "throughput": {"passes": passes}, **more}


# --- the GPUs ---------------------------------------------------------------------------------------------------

def test_the_gpus_are_those_cuda_visible_devices_names_in_its_order_else_every_one():
    assert [g["id"] for g in multi_gpu.usable_gpus(H200, None)] == ["0", "1"]
    assert multi_gpu.usable_gpus(H200, "1,0") == [{"id": "1", "index": 1, "name": "NVIDIA H200"},
                                                  {"id": "0", "index": 0, "name": "NVIDIA H200"}]
    assert [g["index"] for g in multi_gpu.usable_gpus(H200, "GPU-bbbb")] == [1]  # a UUID's prefix, as CUDA takes
    assert multi_gpu.usable_gpus(H200, "") == []  # set and empty: none
    assert [g["id"] for g in multi_gpu.usable_gpus(H200, "0,7,1")] == ["0"]  # CUDA stops at an id it cannot find
    assert multi_gpu.usable_gpus([], None) == []


def test_visible_sets_cuda_visible_devices_inside_and_puts_back_what_was_there(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    with multi_gpu.visible("0,1"):
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "3"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    with multi_gpu.visible("0"):
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "0"
    assert "CUDA_VISIBLE_DEVICES" not in os.environ


# --- the candidates and the config ------------------------------------------------------------------------------

def test_the_candidates_are_copied_until_there_are_enough_each_copy_a_text_of_its_own(tmp_path):
    sources = []
    for name in ("correct.py", "syntax_error.py", "oracle.py"):
        path = tmp_path / name
        path.write_text("def f(x)\n    return x" if name == "syntax_error.py" else "def f(x):\n    return x\n")
        sources.append(str(path))
    chosen = [("t/a", sources[0]), ("t/a", sources[1]), ("t/b", sources[2])]
    plan = multi_gpu.repeated(chosen, 7)
    assert len(plan) == 9 and [copy for _, _, copy in plan] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert multi_gpu.repeated(chosen, 2) == [(task, path, 0) for task, path in chosen]  # never fewer than the set
    made = multi_gpu.materialised(plan, str(tmp_path / "copies"))
    assert made[:3] == chosen  # copy 0 is the file itself
    assert len({path for _, path in made}) == 9
    copy = open(made[7][1]).read()
    assert copy.startswith("def f(x)\n    return x\n") and copy.endswith("# bench/multi_gpu.py: copy 2\n")
    with pytest.raises(SyntaxError):  # the comment keeps a broken candidate broken
        compile(copy, "copy", "exec")


def test_every_pass_gets_the_config_that_eval_throughputs_warm_pool_gets(monkeypatch):
    seen = []

    def run(argv, **_):
        seen.append(json.loads(argv[argv.index("--executor-config") + 1]))
        return types.SimpleNamespace(stdout="", stderr="", returncode=0)

    monkeypatch.setattr(subprocess, "run", run)
    for workers in (0, 6):
        eval_throughput.warm("tritongym", "batch.txt", "cuda", workers)
        assert seen[-1] == multi_gpu.executor_config(workers)
        argv = multi_gpu.batch_argv("tritongym", multi_gpu.executor_config(workers))
        assert json.loads(argv[argv.index("--executor-config") + 1]) == seen[-1]
        assert argv[argv.index("--executor") + 1] == multi_gpu.EXECUTOR and argv[argv.index("--stage") + 1] == "benchmark"


# --- the ratio, the verdicts, the phases ------------------------------------------------------------------------

def test_the_ratio_is_of_the_measured_passes_medians_and_the_warm_ups_do_not_count():
    verdicts = ["passed"] * 38 + ["wrong_answer", "syntax_error"]
    passes = [one_pass("0", "warm-up", 200.0, verdicts), one_pass("0,1", "warm-up", 100.0, verdicts),
              one_pass("0", "measured", 60.0, verdicts, start=4.0), one_pass("0,1", "measured", 32.0, verdicts, start=6.0),
              one_pass("0", "measured", 64.0, verdicts, start=4.0), one_pass("0,1", "measured", 30.0, verdicts, start=6.0)]
    summary = multi_gpu.throughput_summary(40, passes, "0", "0,1")
    assert summary["one_s"] == 62.0 and summary["two_s"] == 31.0
    assert summary["one_per_min"] == pytest.approx(60.0 * 40 / 62.0)
    assert summary["ratio"] == pytest.approx(2.0) and summary["ratio_met"]
    assert summary["judging_ratio"] == pytest.approx(58.0 / 25.0)  # each pass less its executor's start
    assert summary["same_verdicts"] == 40 and summary["verdicts_met"]
    under = multi_gpu.throughput_summary(40, passes[:3] + [one_pass("0,1", "measured", 40.0, verdicts)], "0", "0,1")
    assert under["ratio"] == pytest.approx(1.5) and not under["ratio_met"]
    assert multi_gpu.throughput_summary(40, passes[:3], "0", "0,1") == {"complete": False}


def test_a_verdict_that_differs_in_any_measured_pass_or_a_missing_result_is_counted_once():
    same = ["passed", "passed", "wrong_answer"]
    passes = [one_pass("0", "measured", 10.0, same), one_pass("0,1", "measured", 5.0, ["passed", "timeout", "wrong_answer"]),
              one_pass("0", "measured", 10.0, ["passed", "timeout", "passed"]), one_pass("0,1", "measured", 5.0, same[:2])]
    summary = multi_gpu.throughput_summary(3, passes, "0", "0,1")
    assert summary["differing"] == [1, 2] and summary["same_verdicts"] == 1 and not summary["verdicts_met"]
    assert multi_gpu.verdict_differences([result("passed")], [result("passed"), result("passed")]) == [1]


def test_the_phase_sums_of_both_passes_stand_side_by_side():
    one = one_pass("0", "measured", 60.0, ["passed", "passed"], start=4.0,
                   phase_seconds={"candidate": 10.0, "timing": 3.0}, candidate_phases={"run": 1.0, "import": 0.01})
    two = one_pass("0,1", "measured", 40.0, ["passed", "passed"], start=7.5,
                   phase_seconds={"candidate": 12.0, "timing_wait": 4.0}, candidate_phases={"run": 1.5})
    lines = multi_gpu.phase_sums_side_by_side(one, two)
    assert lines[:5] == ["| s | GPU(s) 0 | GPU(s) 0,1 |", "|---|---:|---:|", "| wall | 60.0 | 40.0 |",
                         "| starting the executor | 4.0 | 7.5 |", "| judging alone | 56.0 | 32.5 |"]
    assert "| candidate, summed | 20.0 | 24.0 |" in lines
    assert "| timing, summed | 6.0 | 0.0 |" in lines and "| timing_wait, summed | 0.0 | 8.0 |" in lines
    assert "| child: run, summed | 2.0 | 3.0 |" in lines
    assert not any("import" in line for line in lines)  # 0.02 s in all: below what is shown


def test_the_candidates_own_timed_medians_are_compared_where_both_passes_passed():
    def timed(verdict: str, median_us: float) -> dict:
        return {"verdict": verdict, "timing": {"shapes": [{"key": "N=1", "median_us": median_us},
                                                          {"key": "N=2", "median_us": 0.0}]}}
    shifts = multi_gpu.timed_shifts_pct([timed("passed", 10.0), timed("passed", 10.0), timed("wrong_answer", 5.0)],
                                        [timed("passed", 10.2), timed("timeout", 20.0), timed("wrong_answer", 9.0)])
    assert shifts == [pytest.approx(2.0)]


# --- the fidelity shifts ----------------------------------------------------------------------------------------

def test_each_kernels_busy_median_is_held_against_its_quiet_rounds():
    rounds = [{"state": "alone", "medians_us": {"k": 100.0, "slow": 50.0, "gone": 5.0}},
              {"state": "busy", "medians_us": {"k": 100.8, "slow": 51.0}},
              {"state": "idle", "medians_us": {"k": 100.4, "slow": 50.2}},
              {"state": "busy", "medians_us": {"k": 101.0, "slow": 51.2}},
              {"state": "idle", "medians_us": {"k": 99.8, "slow": 50.1}},
              {"state": "pool", "verdicts": {"passed": 9}}]
    rows = {row["kernel"]: row for row in multi_gpu.median_shifts(rounds)}
    assert rows["k"]["quiet_us"] == 100.0 and rows["k"]["busy_us"] == pytest.approx(100.9)
    assert rows["k"]["shift_pct"] == pytest.approx(0.9) and rows["k"]["within_goal"]
    assert rows["k"]["quiet_spread_pct"] == pytest.approx(0.6)
    assert rows["slow"]["shift_pct"] == pytest.approx(100.0 * (51.1 - 50.1) / 50.1) and not rows["slow"]["within_goal"]
    assert rows["gone"]["busy_us"] is None and rows["gone"]["shift_pct"] is None and not rows["gone"]["within_goal"]
    faster = multi_gpu.median_shifts([{"state": "alone", "medians_us": {"k": 100.0}},
                                      {"state": "busy", "medians_us": {"k": 98.9}}])
    assert not faster[0]["within_goal"]  # faster counts as much as slower


# --- the table --------------------------------------------------------------------------------------------------

def test_the_table_gives_the_date_the_gpus_the_commit_and_each_goal():
    verdicts = ["passed"] * 4
    passes = [one_pass("0", "warm-up", 20.0, verdicts), one_pass("0,1", "warm-up", 12.0, verdicts),
              one_pass("0", "measured", 12.0, verdicts), one_pass("0,1", "measured", 6.0, verdicts)]
    rounds = [{"state": "alone", "medians_us": {"standard/softmax": 20.0}, "evaluations": 0, "gpu_utilisation": {"0": None}},
              {"state": "busy", "medians_us": {"standard/softmax": 20.1}, "evaluations": 7,
               "gpu_utilisation": {"0": {"samples": 50, "mean_pct": 71.0}}},
              {"state": "idle", "medians_us": {"standard/softmax": 20.02}, "evaluations": 0,
               "gpu_utilisation": {"0": {"samples": 50, "mean_pct": 0.0}}},
              {"state": "pool", "start_seconds": 3.0, "verdicts": {"passed": 7}, "most_outstanding": 8}]
    measured = measurement(passes, 4, serve={"landed": False},
                           fidelity={"gpu": "1", "busy_gpu": "0", "busy_gpu_index": 0, "sessions": 5,
                                     "device": "NVIDIA H200", "rounds": rounds})
    text = multi_gpu.table(measured)
    assert text.startswith("# One executor across two GPUs (2026-12-05T10:00:00Z)")
    assert "commit abc123; GPUs: 0: NVIDIA H200, 1: NVIDIA H200;" in text
    assert "| measured | 0,1 | 6.0 | 2.0 | 4.0 | 40.0 | 60 | n/a |" in text
    assert "20.0 on GPU 0, 40.0 on GPUs 0,1: **2.00x** (goal >= 1.8x: met); judging alone 2.50x" in text
    assert "identical verdicts, candidate by candidate over every measured pass: 4 of 4" in text
    assert "where the time went" not in text  # only under the goal
    assert "| standard/softmax | 20.01 | 20.10 | +0.45% | 0.10% | yes |" in text
    assert "within 1%: 1 of 1; rounds: alone, busy, idle; GPU 0 busy 71% in the busy rounds, 0% in the idle ones; " \
           "evaluations finished in the busy rounds: 7; the background pool's verdicts: {\"passed\": 7}" in text
    assert "serve has not landed" in text
    assert multi_gpu.goals(measured) == {"ratio": True, "verdicts": True, "fidelity": True}
    stopped = {**measured, "fidelity": {**measured["fidelity"], "error": "the fidelity child ended (exit 1)"}}
    assert multi_gpu.table(stopped).count("| standard/softmax |") == 1  # what was measured stays
    assert "stopped after these rounds: the fidelity child ended (exit 1)" in multi_gpu.table(stopped)


def test_under_the_goal_the_table_lists_the_differing_candidates_and_where_the_time_went():
    passes = [one_pass("0", "measured", 12.0, ["passed", "passed"], phase_seconds={"timing": 1.0}),
              one_pass("0,1", "measured", 10.0, ["passed", "timeout"], phase_seconds={"timing": 2.0})]
    measured = measurement(passes, 2, fidelity={"gpu": "1", "busy_gpu": "0", "error": "the fidelity child ended (exit 1)"})
    text = multi_gpu.table(measured)
    assert "**1.20x** (goal >= 1.8x: MISSED)" in text
    assert "1 of 2 (goal: all: MISSED)" in text
    assert "  standard/vector-add 1.py (copy 1): 0: passed, 0,1: timeout" in text
    assert "where the time went, the first measured pass of each (the ratio is under 1.8x):" in text
    assert "| timing, summed | 2.0 | 4.0 |" in text
    assert "not measured: the fidelity child ended (exit 1)" in text
    assert multi_gpu.goals(measured) == {"ratio": False, "verdicts": False}


def test_a_serve_pass_is_held_against_the_batch_on_the_same_gpus():
    passes = [one_pass("0", "measured", 12.0, ["passed", "passed"]), one_pass("0,1", "measured", 6.0, ["passed", "passed"])]
    serve = {"landed": True, "visible": "0,1", "clients": 16, "ready_s": 5.0, "seconds": 3.0,
             "results": [result("passed"), result("wrong_answer")]}
    line = multi_gpu.serve_lines(measurement(passes, 2, serve=serve))[0]
    assert line == ("2 candidates through one server on GPUs 0,1, 16 concurrent clients: 3.0 s from the first request "
                    "to the last answer (ready after 5.0 s), 40.0 candidates/min; the batch on the same GPUs judged "
                    "alone in 4.0 s; verdicts the same as the batch's: 1 of 2")


# --- against stand-ins: the background pool, the fidelity rounds, serve -----------------------------------------

# A `tritongym` that judges every candidate "passed" (or "syntax_error" where its text does not compile): `eval
# --batch FILE|-` as the real one prints it, and `serve` on loopback (its first evaluation refused with a 429).
STAND_IN_CLI = '''#!{python}
import json, os, sys, time
args = sys.argv[1:]
here = os.path.dirname(os.path.abspath(__file__))
visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")

def judged(task, code_path, text):
    try:
        compile(text, code_path, "exec")
        verdict = "passed"
    except SyntaxError:
        verdict = "syntax_error"
    return {{"task": task, "code": code_path, "verdict": verdict, "visible": visible,
             "phase_seconds": {{"candidate": 0.02, "timing": 0.01}}}}

if "serve" in args:
    if "--help" in args:
        sys.exit(0 if {serve} else 2)
    import http.server
    host, port = args[args.index("--listen") + 1].split(":")
    refused = []
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass
        def reply(self, status, body, headers=()):
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(json.dumps(body).encode())
        def do_GET(self):
            self.reply(200 if self.path == "/v1/health" else 404, {{}})
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if not refused:
                refused.append(1)
                return self.reply(429, {{"error": "queue full"}}, [("Retry-After", "0")])
            self.reply(200, judged(body["task"], "remote", body["code"]))
    http.server.ThreadingHTTPServer((host, int(port)), Handler).serve_forever()

source = args[args.index("--batch") + 1]
with open(os.path.join(here, "batch-visible"), "a") as handle:
    handle.write(visible + "\\n")
time.sleep(0.1)
sys.stderr.write("batch: the executor started in 0.1 s\\n")
sys.stderr.flush()
lines = sys.stdin if source == "-" else open(source)
for line in lines:
    task, path = line.split()
    time.sleep(0.02 / len(visible.split(",")))
    print(json.dumps(judged(task, path, open(path).read())), flush=True)
'''

# An nvidia-smi with the given GPUs: their list, or utilisation samples until stopped.
STAND_IN_SMI = '''#!/usr/bin/env bash
if [[ "$*" == *index,uuid,name* ]]; then
{rows}
  exit 0
fi
while true; do echo "$(date +'%Y/%m/%d %H:%M:%S.%3N'), 50 %"; sleep 0.05; done
'''

# A fidelity child: says its GPU, then answers each "measure" after 0.3 s.
STAND_IN_CHILD = '''import json, os, sys, time
print("a line that is not an answer")
print(json.dumps({"device": "stand-in on " + os.environ["CUDA_VISIBLE_DEVICES"], "kernels": ["k"]}), flush=True)
for line in sys.stdin:
    time.sleep(0.3)
    print(json.dumps({"medians_us": {"k": 10.0}}), flush=True)
'''


def executable(path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def stand_in_cli(folder, serve: bool = False) -> str:
    return executable(folder / "tritongym", STAND_IN_CLI.format(python=sys.executable, serve=serve))


def stand_in_smi(folder, gpus: list[tuple[str, str, str]]) -> str:
    rows = "\n".join(f'  echo "{index}, {uuid}, {name}"' for index, uuid, name in gpus) or "  true"
    return executable(folder / "nvidia-smi", STAND_IN_SMI.format(rows=rows))


def candidates(folder, count: int) -> list[tuple[str, str]]:
    out = []
    for i in range(count):
        path = folder / f"c{i}.py"
        path.write_text("def f(x)\n" if i == 0 else "def f(x):\n    return x\n")
        out.append(("standard/vector-add", str(path)))
    return out


def test_the_background_pool_is_fed_while_busy_never_past_its_depth_and_drained_after(tmp_path):
    cli = stand_in_cli(tmp_path)
    chosen = candidates(tmp_path, 3)
    with multi_gpu.BusyPool(multi_gpu.batch_argv(cli, {"timing_seconds": 0.1}), "0", chosen, depth=4) as pool:
        assert pool.start_seconds == 0.1
        with pool.kept_busy():
            time.sleep(0.5)
        assert pool.done == pool.sent >= 8  # drained: every line sent has its result
        assert pool.most_outstanding <= 4
        idle_done = pool.done
        time.sleep(0.2)
        assert pool.done == idle_done  # idle: nothing fed
        assert pool.verdicts["syntax_error"] >= 1 and pool.verdicts["passed"] >= 1
    assert pool.process.returncode == 0
    assert (tmp_path / "batch-visible").read_text() == "0\n"  # pinned to the first GPU


def test_the_fidelity_rounds_alternate_busy_and_idle_after_one_alone(tmp_path):
    cli = stand_in_cli(tmp_path)
    chosen = candidates(tmp_path, 2)
    child_script = tmp_path / "child.py"
    child_script.write_text(STAND_IN_CHILD)
    rounds = []
    with multi_gpu.FidelityChild([sys.executable, str(child_script)], "1") as child:
        assert child.hello["device"] == "stand-in on 1"
        multi_gpu.fidelity_rounds(child, lambda: multi_gpu.BusyPool(multi_gpu.batch_argv(cli, {}), "0", chosen),
                                  2, {}, rounds.append)
    assert [r["state"] for r in rounds] == ["alone", "busy", "idle", "busy", "idle", "pool"]
    assert all(r["evaluations"] > 0 for r in rounds if r["state"] == "busy")
    assert all(r["evaluations"] == 0 for r in rounds if r["state"] in ("alone", "idle"))
    assert rounds[-1]["verdicts"]["passed"] > 0 and rounds[-1]["most_outstanding"] <= multi_gpu.BUSY_DEPTH
    assert multi_gpu.median_shifts(rounds)[0]["shift_pct"] == 0.0


def test_a_child_that_ends_without_answering_is_an_error_that_says_why(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text("import sys; sys.stderr.write('no CUDA here'); sys.exit(3)")
    with pytest.raises(RuntimeError, match=r"the fidelity child ended \(exit 3\): no CUDA here"):
        multi_gpu.FidelityChild([sys.executable, str(script)], "1")


def test_serve_is_measured_only_where_it_has_landed_and_a_429_is_waited_out(tmp_path):
    assert not multi_gpu.serve_landed(stand_in_cli(tmp_path, serve=False))
    cli = stand_in_cli(tmp_path, serve=True)
    assert multi_gpu.serve_landed(cli)
    chosen = candidates(tmp_path, 5)
    served = multi_gpu.through_serve(cli, chosen, "0,1", {"timing_seconds": 0.1}, clients=3)
    assert [r["verdict"] for r in served["results"]] == ["syntax_error"] + ["passed"] * 4  # the 429 was retried
    assert [r["code"] for r in served["results"]] == [path for _, path in chosen]
    assert served["clients"] == 3 and served["seconds"] > 0


# --- the call: its arguments, its refusal, and a whole call against the stand-ins --------------------------------

def test_arguments_that_cannot_be_measured_are_refused(capsys):
    with pytest.raises(SystemExit) as refused:
        multi_gpu.main(["--tritongym", "tg"])
    assert refused.value.code == 2 and "--tritongym and --tasks-json are needed" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        multi_gpu.main(["--tritongym", "tg", "--tasks-json", "t.json", "--parts", "nothing"])
    assert refused.value.code == 2 and "invalid choice: 'nothing'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        multi_gpu.main(["--tritongym", "tg", "--tasks-json", "t.json", "--pairs", "0"])
    assert refused.value.code == 2 and "--pairs must be at least 1" in capsys.readouterr().err
    args = multi_gpu.parser().parse_args(["--tritongym", "tg", "--tasks-json", "t.json"])
    assert (args.at_least, args.pairs, args.busy_pairs, args.sessions, args.clients, args.parts) == \
        (40, 1, 2, 5, 16, ["throughput", "fidelity", "serve"])


@pytest.mark.parametrize("gpus, visible, said", [
    (H200[:1], None, "1 GPU(s) usable here (0: NVIDIA H200)"),
    (H200, "1", "1 GPU(s) usable here (1: NVIDIA H200)"),
    ([], None, "0 GPU(s) usable here;"),
])
def test_a_machine_with_fewer_than_two_gpus_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys, gpus,
                                                                          visible, said):
    stand_in_smi(tmp_path, gpus)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    monkeypatch.setattr(eval_throughput, "warm", lambda *a, **k: pytest.fail("a pass ran"))
    out = tmp_path / "out.json"
    assert multi_gpu.main(["--tritongym", "tg", "--tasks-json", "missing.json", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert said in err and "needs at least two" in err and "nothing was run" in err
    assert not out.exists()


def test_the_script_refuses_a_machine_without_gpus():
    done = subprocess.run([sys.executable, os.path.join(BENCH, "multi_gpu.py"), "--tritongym", "tg", "--tasks-json",
                           "missing.json"], capture_output=True, text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
                          check=False)
    assert done.returncode == 2
    assert "0 GPU(s) usable here; this bench needs at least two" in done.stderr


def test_a_whole_call_against_the_stand_ins_writes_its_json_and_table_and_lays_them_out_again(tmp_path, monkeypatch,
                                                                                             capsys):
    tools = tmp_path / "tools"
    tools.mkdir()
    cli = stand_in_cli(tools, serve=True)
    stand_in_smi(tools, H200)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("TRITONGYM_COMMIT", "0123abcd")
    oracle = os.path.join(eval_throughput.ROOT, "tasks", "standard", "softmax", "oracle.py")
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"id": "standard/softmax", "oracle": oracle}]))
    out, markdown = tmp_path / "m.json", tmp_path / "m.md"
    code = multi_gpu.main(["--tritongym", cli, "--tasks-json", str(tasks), "--at-least", "10", "--parts",
                           "throughput", "serve", "--clients", "4", "--out", str(out), "--table", str(markdown)])
    measured = json.loads(out.read_text())
    assert code in (0, 1)  # the stand-in's ratio is not the point
    assert measured["commit"] == "0123abcd" and [g["name"] for g in measured["gpus"]] == ["NVIDIA H200"] * 2
    assert len(measured["candidates"]) == 14 and measured["base_candidates"] == 7  # 6 fixtures and the oracle, twice
    passes = measured["throughput"]["passes"]
    assert [(p["visible"], p["role"]) for p in passes] == [("0", "warm-up"), ("0,1", "warm-up"), ("0", "measured"),
                                                           ("0,1", "measured")]
    assert all(r["visible"] == p["visible"] for p in passes for r in p["results"])
    assert [r["verdict"] for r in passes[2]["results"]].count("syntax_error") == 2  # the fixture and its copy
    assert (tools / "batch-visible").read_text() == "0\n0,1\n0\n0,1\n"
    assert len(measured["serve"]["results"]) == 14
    text = markdown.read_text()
    assert "identical verdicts, candidate by candidate over every measured pass: 14 of 14" in text
    assert "verdicts the same as the batch's: 14 of 14" in text
    assert "## Timing on one GPU while the other is busy\n\nnot measured" in text
    capsys.readouterr()
    again = tmp_path / "again.md"
    assert multi_gpu.main(["--report", str(out), "--table", str(again)]) == code
    assert again.read_text() == text
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    assert multi_gpu.main(["--report", str(broken)]) == 2
    assert "not a saved measurement of this bench" in capsys.readouterr().err
