"""bench/oracle_run_table.py over real stores: two runs of the oracle backend on the interpreter, each given some
of the tasks, joined by `tritongym merge` into the run of all of them, make one table."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run_oracles(tmp_path, name: str, tasks: list[str]) -> str:
    out = tmp_path / name
    run_file = tmp_path / f"{name}.yaml"
    run_file.write_text(f"""name: oracle-part
suites:
  - plugin: tritongym.suite.directory
    config:
      root: {ROOT}/tasks
    tasks: [{", ".join(tasks)}]
models:
  - name: oracle
    backend: tritongym.backend.oracle
workflows:
  - {ROOT}/workflows/one-shot.yaml
executor:
  plugin: tritongym.executor.triton-interpreter
budget:
  max_turns: 2
  max_wall_seconds: 600
samples: 1
output:
  dir: {out}
""")
    done = subprocess.run([os.environ["TRITONGYM_CLI"], "--log-level", "warn", "run", str(run_file)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return str(out)


@pytest.mark.skipif(not os.environ.get("TRITONGYM_CLI"), reason="TRITONGYM_CLI (the built tritongym) is not set")
def test_two_runs_of_parts_of_the_task_set_merged_make_one_table(tmp_path, monkeypatch):
    import oracle_run_table

    first = run_oracles(tmp_path, "first", ["standard/row-sum", "standard/vector-add"])
    second = run_oracles(tmp_path, "second", ["standard/cumsum"])
    merged = tmp_path / "merged"
    joined = subprocess.run([os.environ["TRITONGYM_CLI"], "merge", first, second, "--into", str(merged)],
                            capture_output=True, text=True, timeout=120)
    assert joined.returncode == 0, joined.stderr
    assert "merged 2 stores (2 parts of one task set): 3 episodes; finished" in joined.stdout
    table = tmp_path / "table.md"
    monkeypatch.setattr(sys, "argv", ["oracle_run_table.py", str(merged), "--out", str(table)])
    assert oracle_run_table.main() == 0
    text = table.read_text()
    assert text.startswith("episodes recorded: 3 of 3\npassed: 3\n")
    for task in ("standard/row-sum", "standard/vector-add", "standard/cumsum"):
        assert f"| {task} | passed |" in text  # its line in the table of phases
    # The interpreter times nothing: every shape it checked is listed, with no speedups to average.
    assert "| standard/cumsum | small-0 | n/a |" in text
    assert "geomean over shapes: vs eager n/a (0 shapes), vs torch.compile n/a (0), Perf n/a (0)" in text


def test_a_folder_without_a_store_is_refused(tmp_path, monkeypatch):
    import oracle_run_table

    monkeypatch.setattr(sys, "argv", ["oracle_run_table.py", str(tmp_path)])
    with pytest.raises(SystemExit) as stopped:
        oracle_run_table.main()
    assert "no such store" in str(stopped.value)
