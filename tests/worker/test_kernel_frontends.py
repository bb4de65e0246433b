"""kernel_frontends: the task's DSL rule at run time. A task whose DSL requires Gluon (the run request's
`kernel_frontend`) fails a candidate that ran a plain Triton kernel, however the kernel was made: `from triton
import jit`, an alias of triton, triton.jit called as a function, a kernel made by exec'd code. Real fork server and
child processes on Triton's interpreter (TRITON_INTERPRET=1, as the interpreter executor sets it): a Gluon kernel
cannot run there, so its side is checked on the classes themselves; tests/plugins/triton_executor_test.cpp checks
both sides on a GPU."""
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tritongym_worker import integrity, kernel_frontends
from tritongym_worker.candidate import CandidateRole

# A Gluon task kept as a fixture for this check (tests/fixtures/gluon-suite/README.md).
GLUON_TASK = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "gluon-suite" / "dsl" / "gluon-vector-scale-add"

BODY = '''
def double_kernel(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y + offsets, tl.load(x + offsets, mask=mask) * 2.0, mask=mask)
'''
ENTRY = '''
def double(x):
    y = torch.empty_like(x)
    double_kernel[(1,)](x, y, x.numel(), BLOCK=64)
    return y
'''
HEADER = "import torch\nimport triton.language as tl\n"

SPELLINGS = {
    "from-triton-import-jit": HEADER + "from triton import jit\n\n@jit" + BODY + ENTRY,
    "alias-of-triton": HEADER + "import triton as t\n\n@t.jit" + BODY + ENTRY,
    "jit-called-as-a-function": HEADER + "import triton\n" + BODY + "\ndouble_kernel = triton.jit(double_kernel)\n" + ENTRY,
    # Written to the candidate's folder and exec'd from there (Triton reads a kernel's source from its file).
    "made-in-execd-code": HEADER + "import os\nimport triton\n"
    "SOURCE = " + repr("import triton\nimport triton.language as tl\n\n@triton.jit" + BODY) + "\n"
    "path = os.path.join(os.getcwd(), 'made.py')\n"
    "with open(path, 'w') as handle:\n    handle.write(SOURCE)\n"
    "scope = {}\nexec(compile(SOURCE, path, 'exec'), scope)\ndouble_kernel = scope['double_kernel']\n" + ENTRY,
    "autotuned": HEADER + "import triton\n\n"
    "@triton.autotune(configs=[triton.Config({}, num_warps=4)], key=['n'])\n@triton.jit" + BODY + ENTRY,
}

# Puts back a launch path of its own after import (the interpreter's run, rewritten), so that no launch is seen.
REPATCHED = SPELLINGS["from-triton-import-jit"] + '''
from triton.runtime.interpreter import GridExecutor, InterpretedFunction

def run(self, *args, grid, warmup, **kwargs):
    return None if warmup else GridExecutor(self.rewrite(), self.arg_names, grid, self.pre_run_hooks)(*args, **kwargs)

InterpretedFunction.run = run
'''

TORCH_ONLY = "import torch\n\ndef double(x):\n    return x * 2\n"


@pytest.fixture(autouse=True)
def interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def judge(tmp_path, code, frontend):
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir(exist_ok=True)
    torch.save({"inputs": [torch.arange(50.0)]}, inputs)
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0)
    reply = role.run({"code": code, "entry": "double", "timeout_s": 120, "kernel_frontend": frontend,
                      "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]})
    role.close()
    return reply


@pytest.mark.parametrize("name", list(SPELLINGS))
def test_a_plain_triton_kernel_in_a_gluon_task_fails_however_it_was_made(tmp_path, name):
    reply = judge(tmp_path, SPELLINGS[name], "gluon")
    assert reply["verdict"] == "compile_error", reply
    assert reply["message"] == ("this task is in Gluon: the kernel `double_kernel` ran as plain Triton (@triton.jit); "
                                "write every kernel with @gluon.jit"), reply["message"]
    assert {"name": "double_kernel", "frontend": "triton", "launched": True} in reply["kernel_frontends"]


@pytest.mark.parametrize("frontend", ["", "triton"])
def test_the_same_kernel_passes_where_plain_triton_is_allowed(tmp_path, frontend):
    reply = judge(tmp_path, SPELLINGS["from-triton-import-jit"], frontend)
    assert reply.get("verdict") is None, reply
    assert reply["kernel_frontends"] == [{"name": "double_kernel", "frontend": "triton", "launched": True}]


def test_a_gluon_task_whose_candidate_runs_no_kernel_fails(tmp_path):
    reply = judge(tmp_path, TORCH_ONLY, "gluon")
    assert reply["verdict"] == "compile_error", reply
    assert "no @gluon.jit kernel ran" in reply["message"]


def test_putting_back_a_launch_path_of_its_own_is_caught(tmp_path):
    reply = judge(tmp_path, REPATCHED, "gluon")
    assert reply["verdict"] == "runtime_error", reply
    assert "the candidate replaced triton.runtime.interpreter.InterpretedFunction.run" in reply["message"]


def test_a_frontend_the_executor_cannot_tell_is_a_harness_error(tmp_path):
    reply = judge(tmp_path, SPELLINGS["from-triton-import-jit"], "cute")
    assert reply["verdict"] == "harness_error", reply
    assert "'cute'" in reply["message"] and "gluon" in reply["message"]


# A Gluon kernel cannot run on the interpreter: its classification, on Triton's own classes.
def _scale(x_ptr, n):
    pass


def test_kernels_are_told_apart_by_their_class_and_their_compiled_source():
    from triton.compiler.compiler import ASTSource
    from triton.experimental import gluon
    from triton.experimental.gluon._runtime import GluonASTSource, GluonJITFunction
    from triton.runtime.jit import JITFunction

    frontends = kernel_frontends.KernelFrontends()
    gluon_kernel, plain_kernel = gluon.jit(_scale), JITFunction(_scale)
    assert type(gluon_kernel) is GluonJITFunction
    assert frontends.frontend_of(gluon_kernel) == "gluon"
    assert frontends.frontend_of(plain_kernel) == "triton"

    class LooksLikeGluon(JITFunction):  # a plain kernel that says it is Gluon
        __class__ = GluonJITFunction

        def is_gluon(self):
            return True

    disguised = LooksLikeGluon(_scale)
    assert isinstance(disguised, GluonJITFunction)  # isinstance is fooled; the classification is not
    assert frontends.frontend_of(disguised) == "triton"

    signature = {"x_ptr": "*fp32", "n": "i32"}
    assert frontends.compiled(GluonASTSource(gluon_kernel, signature)) == ("_scale", "gluon")
    assert frontends.compiled(ASTSource(plain_kernel, signature)) == ("_scale", "triton")
    assert frontends.compiled(ASTSource(gluon_kernel, signature)) == ("_scale", "triton")  # Gluon class, plain source
    assert frontends.compiled("/tmp/kernel.ptx") == ("/tmp/kernel.ptx", "ir")


def test_the_launch_and_compile_paths_are_in_the_integrity_snapshot():
    for name in ("triton.runtime.jit.JITFunction.run", "triton.compiler.compile", "triton.compiler.compiler.compile"):
        assert name in integrity.WATCHED
        assert name in integrity.Snapshot.take().names


# The same plain kernel, for the Gluon task's entry, as a model might write it after `from triton import jit`.
PLAIN_SCALE_ADD = """import torch
import triton
import triton.language as tl
from triton import jit


@jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, alpha * tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


def vector_scale_add(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out
"""


def _cuda_seen_apart() -> bool:
    """Whether torch sees a GPU, asked in a process of its own: CUDA touched here would poison the forked children."""
    seen = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                          capture_output=True, text=True, timeout=120)
    return seen.stdout.strip() == "True"


def test_on_a_gpu_the_gluon_oracle_keeps_the_rule_and_a_plain_kernel_breaks_it(tmp_path, monkeypatch):
    if not _cuda_seen_apart():
        pytest.skip("Gluon runs on a GPU only")
    monkeypatch.delenv("TRITON_INTERPRET")
    x, y = torch.randn(4099), torch.randn(4099)
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir()
    torch.save({"inputs": [x, y, 0.75]}, inputs)
    role = CandidateRole("cuda", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0)
    try:
        def judge_here(code):
            return role.run({"code": code, "entry": "vector_scale_add", "timeout_s": 300, "kernel_frontend": "gluon",
                             "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]})

        oracle = judge_here((GLUON_TASK / "oracle.py").read_text())
        assert oracle.get("verdict") is None, oracle
        assert oracle["kernel_frontends"] == [{"name": "_scale_add_kernel", "frontend": "gluon", "launched": True}]
        produced = torch.load(Path(oracle["folder"]) / "out-0.pt", weights_only=True)["outputs"][0]
        assert torch.allclose(produced, 0.75 * x + y)

        plain = judge_here(PLAIN_SCALE_ADD)
        assert plain["verdict"] == "compile_error", plain
        assert plain["message"] == ("this task is in Gluon: the kernel `scale_add_kernel` ran as plain Triton "
                                    "(@triton.jit); write every kernel with @gluon.jit")
    finally:
        role.close()
