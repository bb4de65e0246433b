"""tests/fixtures/adversarial: the README's table is complete, the static findings match its `static` column, and on
the CPU interpreter each fixture does its trick (right answers where the verdict is `flagged` or `runtime_error`,
wrong ones where it is `wrong_answer`). Outside the sandbox, as here, a `runtime_error` family reaches out of its
process unhindered; tests/worker/test_sandbox.py runs each in a sandboxed child."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from task_yaml import read_task
from tritongym_worker.static_checks import CODES, check_file

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "adversarial"


def table() -> list[dict]:
    rows = []
    for line in (FIXTURES / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].startswith("`") and cells[0].endswith(".py`"):
            rows.append({"file": cells[0].strip("`"), "task": cells[1], "family": cells[2], "verdict": cells[3],
                         "reason": cells[4], "static": set() if cells[5] == "-" else
                         {c.strip() for c in cells[5].split(",")}, "caught_by": cells[6]})
    return rows


ROWS = table()


def test_table_lists_every_fixture_once():
    files = sorted(p.name for p in FIXTURES.glob("*.py"))
    assert sorted(r["file"] for r in ROWS) == files
    assert len(files) >= 19


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["file"])
def test_row_is_well_formed(row):
    assert row["verdict"] in {"flagged", "wrong_answer", "runtime_error"}
    assert row["reason"]
    assert row["static"] <= set(CODES)
    assert (ROOT / "tasks" / row["task"] / "task.yaml").exists()
    docstring = (FIXTURES / row["file"]).read_text().split('"""')[1]
    assert docstring.startswith("Family:") and "Must be caught by" in docstring
    for code in row["static"]:
        assert f"`{code}`" in docstring, f"the docstring of {row['file']} does not name the static check {code}"


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["file"])
def test_static_findings_match_the_table(row):
    task = read_task(ROOT / "tasks" / row["task"])
    found = check_file(str(FIXTURES / row["file"]), task["entry"], task["dtypes"], task["scalars"])
    assert {f.code for f in found} == row["static"], found


RUNNER = r'''
import importlib.util, json, sys
import torch
results = {}
for number, (path, task) in enumerate(json.loads(sys.argv[1])):
    name = path.rsplit("/", 1)[-1]
    spec = importlib.util.spec_from_file_location("fixture_" + name[:-3], path)
    module = importlib.util.module_from_spec(spec)
    outcome = []
    try:
        spec.loader.exec_module(module)
        # A seed of its own per fixture: the fixtures run in one process, and one that leaves memory unwritten
        # (visible_shapes_only.py's tail) could otherwise get back a block where an earlier fixture had written
        # the very sums expected here (it failed so once, in a CI run of 2026-12-02).
        g = torch.Generator().manual_seed(1 + number)
        if task == "standard/matmul-fp16":
            for m, n, k in ((72, 80, 192), (67, 45, 83)):
                a = (torch.randn(m, k, generator=g) * k ** -0.5).half()
                b = torch.randn(k, n, generator=g).half()
                out = module.matmul(a, b)
                want = (a.float() @ b.float()).half()
                outcome.append(type(out) is torch.Tensor and bool(torch.allclose(out.float(), want.float(), atol=1e-2, rtol=1e-2)))
        else:
            for n in (4096, 1027, 4096):
                x, y = torch.randn(n, generator=g), torch.randn(n, generator=g)
                x0, y0 = x.clone(), y.clone()
                out = module.vector_add(x, y)
                plain = type(out) is torch.Tensor
                value = out.detach() if not plain else out
                right = bool(torch.allclose(value, x0 + y0, atol=1e-6, rtol=1e-6))
                outcome.append(plain and right and torch.equal(x, x0) and torch.equal(y, y0))
        results[name] = outcome
    except Exception as error:
        results[name] = f"{type(error).__name__}: {error}"
print(json.dumps(results))
'''


@pytest.fixture(scope="module")
def interpreted():
    pairs = [[str(FIXTURES / r["file"]), r["task"]] for r in ROWS]
    env = {**os.environ, "TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(pairs)], capture_output=True, text=True, env=env,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["file"])
def test_trick_works_on_the_interpreter(row, interpreted):
    outcome = interpreted[row["file"]]
    assert isinstance(outcome, list), outcome
    if row["verdict"] in ("flagged", "runtime_error"):
        assert all(outcome), f"{row['file']} should compute the right answer (only the timing checks or the sandbox " \
                             "catch it)"
    else:
        assert not all(outcome), f"{row['file']} should fail the correctness stage"
