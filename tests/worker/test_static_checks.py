"""static_checks: every finding code has a positive and a negative case; every shipped oracle is clean."""
from pathlib import Path

import pytest

from task_yaml import read_task
from tritongym_worker.static_checks import CODES, answer, check_source

ROOT = Path(__file__).resolve().parents[2]

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"
KERNEL = '''
@triton.jit
def _k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    s = tl.sum(x, axis=0)
    tl.store(out_ptr + offs, (x + s).to(tl.float32), mask=offs < n)
'''
GOOD_ENTRY = '''
def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _k[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
'''


def codes(source: str, entry: str = "vector_add", **kwargs) -> set[str]:
    return {finding.code for finding in check_source(HEADER + source, entry, **kwargs)}


POSITIVE = {
    "torch-compute": [
        "def vector_add(x, y):\n    return x + y\n",
        "def vector_add(x, y):\n    return torch.matmul(x, y)\n",
        "def vector_add(x, y):\n    return x @ y\n",
        "import torch.nn.functional as F\ndef vector_add(x, y):\n    return F.softmax(x, dim=-1)\n",
        "from torch.nn import functional as F\ndef vector_add(x, y):\n    return F.gelu(x)\n",
        "def vector_add(x, y):\n    return x.sum(dim=0)\n",
        "def vector_add(x, y):\n    return torch.ops.aten.mm.default(x, y)\n",
        "def vector_add(x, y):\n    return torch._scaled_mm(x, y, scale_a=None, scale_b=None)\n",
        "def vector_add(x, y):\n    out = torch.empty_like(x)\n    torch.add(x, y, out=out)\n    return out\n",
        "def helper(a, b):\n    return torch.bmm(a, b)\ndef vector_add(x, y):\n    return helper(x, y)\n",
        "def vector_add(x, y):\n    f = torch.compile(lambda a, b: a + b)\n    return f(x, y)\n",
        "def vector_add(x, y):\n    out = torch.empty_like(x)\n    out.copy_(x)\n    return out\n",
    ],
    "try-fallback": [
        KERNEL + "def vector_add(x, y):\n    out = torch.empty_like(x)\n    try:\n        _k[(1,)](x, y, out, 1, BLOCK=4)\n"
                 "    except Exception:\n        out = torch.add(x, y)\n    return out\n",
        KERNEL + "def vector_add(x, y):\n    out = torch.empty_like(x)\n    try:\n        _k[(1,)](x, y, out, 1, BLOCK=4)\n"
                 "    except:\n        pass\n    return out\n",
        "import contextlib\n" + KERNEL + "def vector_add(x, y):\n    out = torch.empty_like(x)\n"
        "    with contextlib.suppress(Exception):\n        _k[(1,)](x, y, out, 1, BLOCK=4)\n    return out\n",
    ],
    "stream": [
        "def vector_add(x, y):\n    s = torch.cuda.Stream()\n    return x\n",
        "from torch.cuda import stream\ndef vector_add(x, y):\n    with stream(None):\n        pass\n    return x\n",
        "def vector_add(x, y):\n    g = torch.cuda.CUDAGraph()\n    return x\n",
    ],
    "thread": [
        "import threading\ndef vector_add(x, y):\n    threading.Thread(target=print).start()\n    return x\n",
        "from concurrent.futures import ThreadPoolExecutor\nPOOL = ThreadPoolExecutor(2)\ndef vector_add(x, y):\n    return x\n",
        "import multiprocessing as mp\ndef vector_add(x, y):\n    mp.Process(target=print).start()\n    return x\n",
        "import asyncio\ndef vector_add(x, y):\n    asyncio.run(None)\n    return x\n",
        "from threading import Timer as T\ndef vector_add(x, y):\n    T(1, print).start()\n    return x\n",
    ],
    "monkeypatch": [
        "import time\ntime.perf_counter = lambda: 0.0\n" + GOOD_ENTRY,
        "import time as t\nt.perf_counter = lambda: 0.0\n" + GOOD_ENTRY,
        "torch.cuda.Event.elapsed_time = lambda self, other: 1.0\n" + GOOD_ENTRY,
        "import statistics\nstatistics.median = min\n" + GOOD_ENTRY,
        "setattr(torch, 'allclose', lambda *a, **k: True)\n" + GOOD_ENTRY,
        "import builtins\nbuiltins.print = None\n" + GOOD_ENTRY,
        "torch.Tensor.__eq__ = lambda a, b: True\n" + GOOD_ENTRY,
        "E = torch.cuda.Event\nE.record = None\n" + GOOD_ENTRY,
        "import sys\nsys.modules['time'] = None\n" + GOOD_ENTRY,
        "torch.backends.cuda.matmul.allow_tf32 = True\n" + GOOD_ENTRY,
        "import time\ndel time.perf_counter\n" + GOOD_ENTRY,
        "import triton\ntriton.testing.do_bench = None\n" + GOOD_ENTRY,
    ],
    "dynamic-access": [
        "import time\nf = getattr(time, 'perf_counter')\n" + GOOD_ENTRY,
        "exec('import os')\n" + GOOD_ENTRY,
        "import importlib\nm = importlib.import_module('time')\n" + GOOD_ENTRY,
    ],
    "precision-cast": [
        "def vector_add(x, y):\n    return x.half()\n",
        "def vector_add(x, y):\n    return x.to(torch.bfloat16)\n",
        "def vector_add(x, y):\n    return x.to(dtype=torch.float8_e4m3fn)\n",
    ],
    "cache": [
        "_cache = {}\ndef vector_add(x, y):\n    _cache[x.data_ptr()] = x\n    return x\n",
        "_cache = {}\ndef vector_add(x, y):\n    return _cache.setdefault(tuple(x.shape), x)\n",
        "import functools\n@functools.lru_cache(maxsize=None)\ndef vector_add(x, y):\n    return x\n",
        "from functools import cache\n@cache\ndef vector_add(x, y):\n    return x\n",
        "def vector_add(x, y, _memo={}):\n    return x\n",
        "_last = None\ndef vector_add(x, y):\n    global _last\n    _last = x\n    return x\n",
        "def vector_add(x, y):\n    vector_add.last = x\n    return x\n",
    ],
    "l2-persist": [
        "def vector_add(x, y):\n    torch.cuda.set_per_process_memory_fraction(0.5)\n    return x\n",
        "cudaLimitPersistingL2CacheSize = 0x06\n" + GOOD_ENTRY,
        "def vector_add(x, y):\n    attr = 'accessPolicyWindow'\n    return x\n",
    ],
    "native-access": [
        "import ctypes\n" + GOOD_ENTRY,
        "from cuda import cudart\n" + GOOD_ENTRY,
        "from torch.utils.cpp_extension import load_inline\n" + GOOD_ENTRY,
        "def vector_add(x, y):\n    rt = torch.cuda.cudart()\n    return x\n",
        "import cupy\n" + GOOD_ENTRY,
    ],
    "process-access": [
        "import os, signal\ndef vector_add(x, y):\n    os.kill(1234, signal.SIGKILL)\n    return x\n",
        "from os import killpg as k\n" + GOOD_ENTRY + "k(0, 9)\n",
        "import os\nPIDS = [p for p in os.listdir('/proc') if p.isdigit()]\n" + GOOD_ENTRY,
        "def vector_add(x, y, pid=1):\n    open(f'/proc/{pid}/cmdline').read()\n    return x\n",
    ],
    "network": [
        "import socket\n" + GOOD_ENTRY,
        "from urllib.request import urlopen\n" + GOOD_ENTRY,
        "import http.client as client\n" + GOOD_ENTRY,
    ],
}

NEGATIVE = {
    "torch-compute": [
        KERNEL + GOOD_ENTRY,
        KERNEL + "def vector_add(x, y):\n    out = torch.empty((x.shape[0] * 2,), device=x.device)\n"
                 "    n = x.numel() * 2 + 1\n    _k[(triton.cdiv(n, 64),)](x, y, out, n, BLOCK=64)\n    return out[:4]\n",
        # a scalar parameter's arithmetic is no tensor op
        KERNEL + "def vector_add(x, y, eps):\n    scale = 1 - eps ** 2\n    out = torch.empty_like(x)\n"
                 "    _k[(1,)](x, y, out, scale, BLOCK=64)\n    return out\n",
        # an unreachable helper is not reported
        KERNEL + GOOD_ENTRY + "def unused(a, b):\n    return torch.matmul(a, b)\n",
    ],
    "try-fallback": [
        KERNEL + "def vector_add(x, y):\n    out = torch.empty_like(x)\n    try:\n        _k[(1,)](x, y, out, 1, BLOCK=4)\n"
                 "    except RuntimeError as error:\n        raise ValueError('bad shape') from error\n    return out\n",
    ],
    "stream": ["def vector_add(x, y):\n    s = torch.cuda.current_stream()\n    torch.cuda.synchronize()\n    return x\n"],
    "thread": ["import threading\nLOCK = threading.Lock()\ndef vector_add(x, y):\n    with LOCK:\n        return x\n"],
    "monkeypatch": ["import time\nclass K:\n    pass\nk = K()\nk.perf_counter = time.perf_counter\n" + GOOD_ENTRY],
    "dynamic-access": ["class K:\n    a = 1\nv = getattr(K, 'a')\n" + GOOD_ENTRY],
    "precision-cast": [
        KERNEL + GOOD_ENTRY,
        "def vector_add(x, y):\n    return x.to(x.device)\n",
    ],
    "cache": [
        "CONFIGS = {'BLOCK': 1024}\n" + KERNEL + GOOD_ENTRY,
        KERNEL + "def vector_add(x, y):\n    cache = {}\n    cache[x.data_ptr()] = 1\n    out = torch.empty_like(x)\n"
                 "    _k[(1,)](x, y, out, 1, BLOCK=4)\n    return out\n",
    ],
    "l2-persist": [KERNEL + GOOD_ENTRY],
    "native-access": [KERNEL + GOOD_ENTRY],
    "process-access": [
        "import os\nRSS = open('/proc/self/statm').read()\n" + GOOD_ENTRY,
        "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_DFL)\n" + GOOD_ENTRY,
    ],
    "network": ["from urllib.parse import quote\n" + GOOD_ENTRY],
}


def test_every_code_has_cases():
    assert set(POSITIVE) == set(CODES)
    assert set(NEGATIVE) == set(CODES)


@pytest.mark.parametrize("code,source", [(c, s) for c, cases in POSITIVE.items() for s in cases])
def test_positive(code, source):
    assert code in codes(source), check_source(HEADER + source, "vector_add")


@pytest.mark.parametrize("code,source", [(c, s) for c, cases in NEGATIVE.items() for s in cases])
def test_negative(code, source):
    found = check_source(HEADER + source, "vector_add", dtypes=["float32"], scalars=["eps"])
    assert code not in {f.code for f in found}, found


def test_kernel_casts_only_with_task_dtypes():
    kernel = HEADER + '''
@triton.jit
def _k(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.float16).to(tl.float32))
''' + "def f(x):\n    out = torch.empty_like(x)\n    _k[(1,)](x, out, BLOCK=16)\n    return out\n"
    assert "precision-cast" in {f.code for f in check_source(kernel, "f", dtypes=["float32"])}
    assert "precision-cast" not in {f.code for f in check_source(kernel, "f", dtypes=["float16"])}
    assert "precision-cast" not in {f.code for f in check_source(kernel, "f")}


def test_host_upcast_after_downcast():
    found = check_source(HEADER + "def f(x):\n    h = x.half()\n    return (h * 2).float()\n", "f")
    assert [f.line for f in found if f.code == "precision-cast"] == [5, 6]


def test_findings_carry_lines_and_messages():
    found = check_source(HEADER + "import time\n\ntime.perf_counter = lambda: 0.0\n" + GOOD_ENTRY, "vector_add")
    assert [(f.code, f.line) for f in found] == [("monkeypatch", 6)]
    assert "time.perf_counter" in found[0].message
    assert found[0].as_dict() == {"code": "monkeypatch", "line": 6, "message": found[0].message}


def test_unparsable_source_gives_nothing():
    assert check_source("def broken(:\n", "broken") == []


# Shipped oracles: the findings each one is allowed to have (none today), with the reason.
JUSTIFIED: dict[str, set[str]] = {}


@pytest.mark.parametrize("oracle", sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tasks/*/*/oracle.py")))
def test_shipped_oracles_are_clean(oracle):
    path = ROOT / oracle
    task = read_task(path.parent)
    assert task["entry"], f"no entry in {path.parent}/task.yaml"
    found = check_source(path.read_text(), task["entry"], task["dtypes"], task["scalars"])
    unexpected = [f for f in found if f.code not in JUSTIFIED.get(oracle, set())]
    assert unexpected == []


def test_there_are_oracles():
    assert len(list(ROOT.glob("tasks/*/*/oracle.py"))) >= 40


def test_the_protocol_request_carries_the_tasks_scalar_parameters():
    # What the executor sends: task.yaml's inputs with a `value:` are Python numbers, and arithmetic on them in
    # the entry is not a PyTorch kernel.
    folder = ROOT / "tasks" / "standard" / "adam-step"
    task = read_task(folder)
    request = {"code": (folder / "oracle.py").read_text(), "entry": task["entry"], "dtypes": task["dtypes"]}
    assert {f["code"] for f in answer(request)["findings"]} == {"torch-compute"}
    assert answer({**request, "scalars": task["scalars"]})["findings"] == []
