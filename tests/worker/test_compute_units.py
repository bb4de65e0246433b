"""The compute units of the speed-of-light floor (docs/task-format.md): each picks its measured rate, the lists
in the docs, the suite's task.yaml reader and the worker agree, and the kernels that measure the CUDA cores'
rates compute what they are meant to (on the Triton interpreter, at a tiny size)."""
import re

import numpy as np
import pytest
import torch

from conftest import ROOT
from tritongym_worker import baselines

CEILINGS = {"copy_bytes_per_s": 3.0e12, "memory_bytes_per_s": 3.3e12,
            "matrix_flops_per_s": {"float16": 745e12, "bfloat16": 716e12, "float32": 51e12, "tf32": 348e12},
            "simt_fp32_flops_per_s": 64e12, "simt_int32_ops_per_s": 33e12, "issue_instructions_per_s": 32e12,
            "alu_instructions_per_s": 16e12, "l2_gathers_per_s": 170e9}


@pytest.mark.parametrize("unit, rate", [("simt", 64e12), ("int", 33e12), ("issue", 32e12), ("alu", 16e12),
                                        ("l2-gather", 170e9), ("tf32", 348e12), ("tensor", 745e12)])
def test_each_unit_divides_the_work_by_its_own_rate(unit, rate):
    assert baselines.compute_rate(CEILINGS, "float32", unit) == rate
    work = {"flops": 8.0e9, "bytes": 1.0}  # compute-bound at every rate
    assert baselines.speed_of_light_us(work, "float32", CEILINGS, unit) == pytest.approx(8.0e9 / rate * 1e6)


def test_ceilings_from_before_a_unit_existed_fall_back_to_the_fastest_rate_which_only_lowers_the_floor():
    older = {key: value for key, value in CEILINGS.items() if key not in baselines.INSTRUCTION_RATES.values()}
    for unit in baselines.INSTRUCTION_RATES:
        assert baselines.compute_rate(older, "float32", unit) == 745e12
    assert "v4" in baselines.CEILINGS_METHOD  # a new method: cached v3 ceilings, which lack the rates, are measured again


def test_a_max_plus_product_is_held_to_the_alu_rate_twice_the_time_of_its_flops_at_the_fma_rate():
    # max-plus at M = N = K = 2048: one FMNMX per term on the ALU pipe (half the FFMA rate), where the old floor
    # counted 2 FLOPs per term at the FMA rate (2 per FMA): the new floor is twice as long.
    dims = {"M": 2048, "N": 2048, "K": 2048}
    new = baselines.speed_of_light_us(baselines.work_of("M * N * K", "4 * (M * K + K * N + M * N)", dims, "float32"),
                                      "float32", CEILINGS, "alu")
    old = baselines.speed_of_light_us(baselines.work_of("2 * M * N * K", "4 * (M * K + K * N + M * N)", dims,
                                                        "float32"), "float32", CEILINGS, "simt")
    assert new == pytest.approx(2048 ** 3 / 16e12 * 1e6)
    assert new / old == pytest.approx(2.0)


def test_the_docs_the_task_reader_and_the_worker_name_the_same_units():
    docs = (ROOT / "docs" / "task-format.md").read_text()
    listed = re.search(r"compute_unit: tensor +# whose rate the FLOPs are held to: (.*)", docs).group(1)
    assert [unit.strip().split(" ")[0] for unit in listed.split("|")] == list(baselines.COMPUTE_UNITS)
    units_table = docs[docs.index("| unit | `flops` counts |"):]
    units_table = units_table[:units_table.index("\n\n")]
    table = re.findall(r"^\| `([a-z0-9-]+)` \|", units_table, flags=re.MULTILINE)
    assert table == list(baselines.COMPUTE_UNITS)
    reader = (ROOT / "plugins" / "suites" / "directory" / "task_yaml.cpp").read_text()
    known = re.search(r"std::vector<std::string> units = \{([^}]*)\}", reader).group(1)
    assert re.findall(r'"([a-z0-9-]+)"', known) == list(baselines.COMPUTE_UNITS)


@pytest.fixture
def kernels(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # read when a kernel is defined
    return baselines.rate_kernels()


LANES, STEPS = 64, 5


def _launch(kernel, out, *arguments):
    kernel[(2,)](out, *arguments, ITERATIONS=STEPS, BLOCK=LANES // 2)
    return out.numpy()


def test_the_multiply_add_chains_compute_their_chains(kernels):
    lanes = np.arange(LANES)
    chains = [(lanes % 7 + 1 + i).astype(np.int32) for i in range(4)]
    for _ in range(STEPS):
        chains = [c * np.int32(3) + np.int32(1) for c in chains]
    got = _launch(kernels.multiply_add_chains, torch.empty(LANES, dtype=torch.int32), 3, 1)
    assert np.array_equal(got, sum(chains))


def test_the_add_chains_add_in_fp32(kernels):
    lanes = np.arange(LANES)
    chains = [(lanes % 7 + 1).astype(np.float32) + np.float32(i) for i in range(4)]
    for _ in range(STEPS):
        chains = [c + np.float32(0.001) for c in chains]
    got = _launch(kernels.add_chains, torch.empty(LANES, dtype=torch.float32), 0.001)
    assert np.array_equal(got, chains[0] + chains[1] + chains[2] + chains[3])


def test_the_alu_chains_xor_then_max(kernels):
    lanes = np.arange(LANES)
    chains = [(lanes * 3 + 1 + i).astype(np.int32) for i in range(4)]
    for _ in range(STEPS):
        chains = [np.maximum(c ^ np.int32(baselines.XOR_KEY), np.int32(baselines.MAX_LOW)) for c in chains]
    got = _launch(kernels.xor_max_chains, torch.empty(LANES, dtype=torch.int32), baselines.XOR_KEY,
                  baselines.MAX_LOW)
    assert np.array_equal(got, chains[0] ^ chains[1] ^ chains[2] ^ chains[3])
    assert len(set(got.tolist())) > 2  # the chains do not collapse to a constant


def test_the_fp32_alu_chains_clamp(kernels):
    lanes = np.arange(LANES)
    chains = [(lanes % 7 + 1).astype(np.float32) + np.float32(i) for i in range(4)]
    for _ in range(STEPS):
        chains = [np.minimum(np.maximum(c, np.float32(baselines.CLAMP_LOW)), np.float32(baselines.CLAMP_HIGH))
                  for c in chains]
    got = _launch(kernels.clamp_chains, torch.empty(LANES, dtype=torch.float32), baselines.CLAMP_LOW,
                  baselines.CLAMP_HIGH)
    assert np.array_equal(got, chains[0] + chains[1] + chains[2] + chains[3])


def test_the_gathers_sum_the_table_at_their_random_indices(kernels):
    table = torch.randn(1 << 10)
    mask = table.numel() - 1
    index = np.arange(LANES, dtype=np.int64) & mask
    total = np.zeros(LANES, dtype=np.float32)
    for _ in range(STEPS):
        index = (index * 1103515245 + 12345) & mask  # the int32 wrap-around leaves the low bits alike
        total = total + table.numpy()[index]
    got = _launch(kernels.gathers, torch.empty(LANES, dtype=torch.float32), table, mask)
    assert np.array_equal(got, total)
    assert len(set(index.tolist())) > LANES // 2  # the lanes gather from scattered places
