"""interpreter_shims: on Triton's interpreter, GPU code that the interpreter can be made to run passes (autotune,
Python float arguments as tensors, libdevice functions with a tl equivalent), what it cannot run is `not_judged`
with the reason, and the candidate's own faults keep their verdicts. Real fork server and child processes on the
CPU (CandidateRole, TRITON_INTERPRET=1 as the interpreter executor sets it)."""
import os

import pytest
import torch

from tritongym_worker import interpreter_shims
from tritongym_worker.candidate import CandidateRole

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"
LAUNCH = ("def scale(x):\n"
          "    y = torch.empty_like(x)\n"
          "    {launch}\n"
          "    return y\n")

AUTOTUNED = HEADER + '''
@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_stages=5), triton.Config({"BLOCK": 32})], key=["n"])
@triton.jit
def kernel(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y + offsets, tl.load(x + offsets, mask=mask) * 2.0, mask=mask)
''' + LAUNCH.format(launch='kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, x.numel())')

FLOAT_ARGUMENT = HEADER + '''
@triton.jit
def kernel(x, y, n, factor, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y + offsets, tl.load(x + offsets, mask=mask) * factor.to(tl.float32), mask=mask)
''' + LAUNCH.format(launch="kernel[(1,)](x, y, x.numel(), 2.0, BLOCK=64)")

LIBDEVICE = HEADER + '''from triton.language.extra import libdevice

@triton.jit
def kernel(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    v = tl.load(x + offsets, mask=mask)
    tl.store(y + offsets, libdevice.tanh(v * 0.0) + libdevice.exp(libdevice.log(v * 0.0 + 2.0)) * v, mask=mask)
''' + LAUNCH.format(launch="kernel[(1,)](x, y, x.numel(), BLOCK=64)")

BF16_TILE = ("def bf16_tile(x):\n"
             "    return (x[:16].reshape(4, 4).repeat(4, 4) / 10).to(torch.bfloat16).contiguous()\n")

BF16_DOT = HEADER + BF16_TILE + '''
@triton.jit
def kernel(a, out, N: tl.constexpr):
    rows = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
    tile = tl.load(a + rows)
    tl.store(out + rows, tl.dot(tile, tile))


def scale(x):
    out = torch.empty(16, 16, dtype=torch.float32)
    kernel[(1,)](bf16_tile(x), out, N=16)
    return out
'''

# Casts with a bf16 or fp8 side, as the GPU rounds them: fp32 -> bf16 and fp32 -> fp8 e4m3 (saturating), int32
# -> bf16 and bf16 -> int32, each written back as fp32 (five rows of the output).
NARROW_CASTS = HEADER + '''
@triton.jit
def kernel(x, i, y, N: tl.constexpr):
    offsets = tl.arange(0, N)
    v = tl.load(x + offsets)
    n = tl.load(i + offsets)
    tl.store(y + offsets, v.to(tl.bfloat16).to(tl.float32))
    tl.store(y + N + offsets, v.to(tl.float8e4nv).to(tl.float32))
    tl.store(y + 2 * N + offsets, n.to(tl.bfloat16).to(tl.float32))
    tl.store(y + 3 * N + offsets, v.to(tl.bfloat16).to(tl.int32).to(tl.float32))
    tl.store(y + 4 * N + offsets, (v * 1000.0).to(tl.float8e4nv).to(tl.float32))


def scale(x):
    values = casts_input()
    integers = torch.arange(-32, 32, dtype=torch.int32) * 1237 + 3
    out = torch.empty(5 * 64, dtype=torch.float32)
    kernel[(1,)](values, integers, out, N=64)
    return out
'''
CASTS_INPUT = ("def casts_input():\n"
               "    return torch.linspace(-7.7, 7.3, 64) * (1 + 2 ** -9) + 2 ** -20\n")


INLINE_ASM = HEADER + '''
@triton.jit
def kernel(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    v = tl.load(x + offsets, mask=mask)
    doubled = tl.inline_asm_elementwise("add.f32 $0, $1, $1;", "=r,r", [v], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y + offsets, doubled, mask=mask)
''' + LAUNCH.format(launch="kernel[(1,)](x, y, x.numel(), BLOCK=64)")

UNSHIMMED_LIBDEVICE = HEADER + '''from triton.language.extra import libdevice

@triton.jit
def kernel(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y + offsets, libdevice.nearbyint(tl.load(x + offsets, mask=mask)) * 0.0 + 2.0 * tl.load(x + offsets, mask=mask), mask=mask)
''' + LAUNCH.format(launch="kernel[(1,)](x, y, x.numel(), BLOCK=64)")

DEVICE_PROPERTIES = HEADER + '''
from triton.runtime import driver

PROPERTIES = driver.active.utils.get_device_properties(0)  # at import, as persistent kernels size their grids

def scale(x):
    return x * 2
'''

OWN_FAULT = HEADER + '''
@triton.jit
def kernel(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(y + offsets, tl.load(x + offsets) * 2.0)
''' + "def scale(x):\n    raise NotImplementedError('my own fallback is not written yet')\n"


@pytest.fixture(autouse=True)
def interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def judge(tmp_path, code):
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir(exist_ok=True)
    torch.save({"inputs": [torch.arange(50.0)]}, inputs)
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0)
    reply = role.run({"code": code, "entry": "scale", "timeout_s": 120,
                      "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]})
    role.close()
    return reply


def produced(reply):
    return torch.load(os.path.join(reply["folder"], "out-0.pt"), weights_only=True)["outputs"][0]


@pytest.mark.parametrize("code", [AUTOTUNED, FLOAT_ARGUMENT, LIBDEVICE], ids=["autotune", "float-argument", "libdevice"])
def test_what_a_shim_covers_runs_and_is_right(tmp_path, code):
    reply = judge(tmp_path, code)
    assert reply.get("verdict") is None, reply
    assert torch.equal(produced(reply), torch.arange(50.0) * 2)


def test_a_bf16_dot_multiplies_the_values_not_their_bits(tmp_path):
    reply = judge(tmp_path, BF16_DOT)
    assert reply.get("verdict") is None, reply
    scope = {"torch": torch}
    exec(BF16_TILE, scope)
    tile = scope["bf16_tile"](torch.arange(50.0)).float()
    assert torch.allclose(produced(reply), tile @ tile, rtol=1e-5)


def test_narrow_float_casts_round_as_the_gpu_does(tmp_path):
    reply = judge(tmp_path, NARROW_CASTS.replace("def scale", CASTS_INPUT + "\n\ndef scale"))
    assert reply.get("verdict") is None, reply
    scope = {"torch": torch}
    exec(CASTS_INPUT, scope)
    values = scope["casts_input"]()
    integers = torch.arange(-32, 32, dtype=torch.int32) * 1237 + 3
    e4m3 = torch.float8_e4m3fn
    expected = torch.cat([values.to(torch.bfloat16).float(), values.to(e4m3).float(),
                          integers.to(torch.bfloat16).float(), values.to(torch.bfloat16).to(torch.int32).float(),
                          (values * 1000).clamp(-448, 448).to(e4m3).float()])
    assert torch.equal(produced(reply), expected)


def test_an_autotuned_kernel_takes_its_first_config_and_says_so(tmp_path):
    reply = judge(tmp_path, AUTOTUNED)
    assert reply["interpreter_autotune"]["keys_first_config"] == 1
    [(key, chosen)] = reply["autotune_choices"]["kernel"].items()
    assert key.startswith("50") and "BLOCK: 256" in chosen, reply["autotune_choices"]


@pytest.mark.parametrize("code, missing", [
    (INLINE_ASM, "inline_asm not supported in interpreter mode"),
    (UNSHIMMED_LIBDEVICE, "libdevice.nearbyint has no interpreter version"),
    (DEVICE_PROPERTIES, "the interpreter has no GPU driver"),
], ids=["inline-asm", "libdevice-without-equivalent", "device-properties-at-import"])
def test_what_the_interpreter_lacks_is_not_judged_with_the_reason(tmp_path, code, missing):
    reply = judge(tmp_path, code)
    assert reply["verdict"] == "not_judged", reply
    assert reply["message"].startswith(interpreter_shims.REASON), reply["message"]
    assert missing in reply["message"]
    assert "candidate.py, line" in reply["message"]  # the candidate's own traceback follows


def test_the_candidates_own_fault_keeps_its_verdict(tmp_path):
    # A NotImplementedError of the candidate's own, outside any kernel: its own fault, not the interpreter's.
    reply = judge(tmp_path, OWN_FAULT)
    assert reply["verdict"] == "runtime_error", reply


def test_off_the_interpreter_nothing_is_a_gap(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET")
    assert interpreter_shims.gap(NotImplementedError("inline_asm not supported in interpreter mode")) is None
    assert interpreter_shims.gap(RuntimeError("0 active drivers ([]). There should only be one.")) is None
