"""The GPU data plane's layout (exchange.py): where tensors lie in a block, and that a descriptor cannot
reach past its block. The round trip through real CUDA IPC needs a GPU and two processes; without one it
is skipped here (the gpu-labelled executor tests run it end to end)."""
import json
import subprocess
import sys

import pytest
import torch

from tritongym_worker import exchange


def _spec(**fields):
    return {"offset": 0, "storage_bytes": 64, "dtype": "float32", "shape": [4, 4], "stride": [4, 1],
            "storage_offset": 0, **fields}


def test_a_view_keeps_shape_strides_and_offset():
    raw = torch.arange(1024, dtype=torch.uint8)
    values = torch.arange(16, dtype=torch.float32)
    raw[256:256 + 64] = values.view(torch.uint8)
    view = exchange._view(raw, _spec(offset=256, shape=[2, 4], stride=[1, 2], storage_offset=8), 1024)
    assert view.tolist() == [[8.0, 10.0, 12.0, 14.0], [9.0, 11.0, 13.0, 15.0]]


@pytest.mark.parametrize("fields", [
    {"offset": 1000},                          # past the block
    {"offset": 100},                           # not aligned
    {"storage_bytes": 62},                     # not whole elements
    {"shape": [4, 5]},                         # the last element past its storage
    {"storage_offset": 1},                     # likewise, shifted
    {"storage_offset": -1},
])
def test_a_view_outside_its_block_is_refused(fields):
    raw = torch.zeros(1024, dtype=torch.uint8)
    with pytest.raises(ValueError, match="outside its block"):
        exchange._view(raw, _spec(**fields), 1024)


def test_an_unknown_dtype_is_refused():
    with pytest.raises(ValueError, match="unknown dtype"):
        exchange._view(torch.zeros(1024, dtype=torch.uint8), _spec(dtype="complex32"), 1024)


def test_write_outputs_says_why_outputs_cannot_be_compared_before_touching_the_gpu():
    descriptor = {"transport": exchange.TRANSPORT, "handle": "00" * 64,
                  "outputs": [_spec(shape=[4], stride=[1], storage_bytes=16)]}
    assert exchange.write_outputs(descriptor, []) == "returned 0 output tensor(s), expected 1"
    assert exchange.write_outputs(descriptor, [torch.zeros(5)]) == "output has shape (5,), expected (4,)"
    assert exchange.write_outputs(descriptor, [torch.zeros(4, dtype=torch.float16)]) == \
        "output has dtype float16, expected float32"
    assert exchange.write_outputs(descriptor, [[1, 2]]) == "output is list, not a tensor"


PEER = r"""
import json, sys, torch
from tritongym_worker import exchange
inputs, receive = json.loads(sys.stdin.read())
imported = exchange.Imported(inputs)
x, scale, y = imported.values
told = {"sum": float(x.double().sum()), "scale": scale, "y_stride": list(y.stride())}
problem = exchange.write_outputs(receive, [x * scale + y])
imported.close()
print(json.dumps({**told, "problem": problem}))
"""


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA IPC needs a GPU")
def test_a_round_trip_through_another_process():
    x = torch.randn(4, 250, device="cuda")
    y = torch.randn(250, 4, device="cuda").t()  # not contiguous: the layout travels
    exported = exchange.export_values([x, 3, y], 0)
    expected = x * 3 + y
    receive = exchange.receive_block([expected], 0)
    assert torch.isnan(exchange.received(receive)[0]).all()  # unwritten: NaN
    done = subprocess.run([sys.executable, "-c", PEER], input=json.dumps([exported.descriptor, receive.descriptor]),
                          capture_output=True, text=True, env={**__import__("os").environ,
                                                               "PYTHONPATH": ":".join(sys.path)})
    assert done.returncode == 0, done.stderr
    told = json.loads(done.stdout)
    assert told["problem"] == "" and told["scale"] == 3 and told["y_stride"] == [1, 4]
    assert abs(told["sum"] - float(x.double().sum())) < 1e-6
    assert torch.equal(exchange.received(receive)[0], expected)
    assert exchange.changed_inputs(exported, [x, 3, y]) == []
    exported.free()
    receive.free()
