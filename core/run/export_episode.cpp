#include "run/export_episode.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>

#include "store/run_store.hpp"
#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::run {

namespace fs = std::filesystem;

namespace {

// Shapes, dtypes and tolerances of the task, and its inputs made by a copy of the worker's own
// generator (tritongym_inputs.py, copied from the worker package at export time).
const char* kTaskInputs = R"py("""The task's shapes, dtypes, tolerances and inputs, as TritonGym's worker makes them.

Inputs come from task.json's `inputs` (or reference.make_inputs when the reference defines it), generated
on the CPU from a seed and moved to the device, so a seed gives the same values on every machine.
tritongym_inputs.py is a copy of the worker's generator (tritongym_worker/inputs.py).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import torch

import tritongym_inputs

TASK = json.loads((Path(__file__).parent / "task.json").read_text())
INTERPRETER = os.environ.get("TRITON_INTERPRET") == "1"
DEVICE = "cuda" if torch.cuda.is_available() and not INTERPRETER else "cpu"
# The Triton interpreter runs on the CPU and is slow: it uses the task's small shapes when it has some.
SHAPES = TASK["small_shapes"] if INTERPRETER and TASK["small_shapes"] else TASK["visible_shapes"]


def make_inputs(reference_module: Any, dims: dict[str, int], dtype_name: str, seed: int) -> list[Any]:
    return tritongym_inputs.make_inputs(TASK["inputs"], getattr(reference_module, "make_inputs", None), dims,
                                        dtype_name, seed, DEVICE)


def clone(values: list[Any]) -> list[Any]:
    return [value.clone() if isinstance(value, torch.Tensor) else value for value in values]


def assert_close(got: Any, want: Any, dtype_name: str) -> None:
    tolerance = TASK["tolerance"].get(dtype_name, {"atol": 0.0, "rtol": 0.0})
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"expected {len(want)} outputs"
        for got_item, want_item in zip(got, want):
            assert_close(got_item, want_item, dtype_name)
        return
    assert isinstance(got, torch.Tensor), f"expected a tensor, got {type(got).__name__}"
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    torch.testing.assert_close(got.cpu().double(), want.cpu().double(), atol=tolerance["atol"], rtol=tolerance["rtol"])
)py";

const char* kTest = R"py("""The exported kernel against the task's PyTorch reference, at the task's visible shapes.

    python -m pytest test_kernel.py                     # on a GPU
    TRITON_INTERPRET=1 python -m pytest test_kernel.py  # on the CPU (the task's small shapes)
"""
import pytest

import kernel
import reference
from task_inputs import SHAPES, TASK, assert_close, clone, make_inputs

CASES = [(shape["name"], shape["dims"], dtype) for shape in SHAPES for dtype in TASK["dtypes"]]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name,dims,dtype", CASES, ids=[f"{name}-{dtype}" for name, _, dtype in CASES])
def test_matches_reference(name, dims, dtype, seed):
    inputs = make_inputs(reference, dims, dtype, seed)
    want = reference.reference(*clone(inputs))
    got = getattr(kernel, TASK["entry_function"])(*inputs)
    assert_close(got, want, dtype)
)py";

const char* kBench = R"py("""Latency of the exported kernel and of the PyTorch reference at the task's visible shapes
(triton.testing.do_bench: median over repetitions, in microseconds). Needs a CUDA GPU.

    python bench_kernel.py
"""
import sys

import torch
import triton.testing

import kernel
import reference
from task_inputs import DEVICE, SHAPES, TASK, make_inputs


def main() -> int:
    if DEVICE != "cuda":
        print("bench_kernel.py needs a CUDA GPU (and TRITON_INTERPRET unset); the interpreter's times mean nothing")
        return 1
    entry = getattr(kernel, TASK["entry_function"])
    print(f"{'shape':<24} {'dtype':<10} {'kernel us':>12} {'reference us':>14} {'speedup':>8}")
    for shape in SHAPES:
        for dtype in TASK["dtypes"]:
            inputs = make_inputs(reference, shape["dims"], dtype, 0)
            kernel_ms = triton.testing.do_bench(lambda: entry(*inputs), return_mode="median")
            reference_ms = triton.testing.do_bench(lambda: reference.reference(*inputs), return_mode="median")
            print(f"{shape['name']:<24} {dtype:<10} {kernel_ms * 1e3:>12.2f} {reference_ms * 1e3:>14.2f} "
                  f"{reference_ms / kernel_ms:>7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
)py";

Status write_file(const fs::path& path, const std::string& text, std::vector<std::string>& written) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status(StatusCode::unavailable, "cannot write " + path.string());
  written.push_back(fs::absolute(path).string());
  return {};
}

std::string readme(const results::EpisodeRecord& episode, const boost::json::object& task, const std::string& run_id) {
  auto text = [&](const char* key) {
    const auto* value = task.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
  };
  std::string readme = "# " + episode.key.task_id + ": `" + text("entry_function") + "`\n\n";
  readme += "A Triton kernel exported by TritonGym from run `" + run_id + "`, episode `" + episode.key.key() +
            "` (model `" + episode.key.model + "`, workflow `" + episode.key.workflow + "`, sample " +
            std::to_string(episode.key.sample) + "). It passed the final score on every visible and held-out shape.\n\n";
  readme += "## The task\n\n" + text("description") + "\n\n";
  readme +=
      "## Files\n\n"
      "| file | what it is |\n|---|---|\n"
      "| `kernel.py` | the kernel, exactly as scored; import `" + text("entry_function") + "` from it |\n"
      "| `reference.py` | the task's PyTorch reference |\n"
      "| `task.json`, `task_inputs.py`, `tritongym_inputs.py` | shapes, dtypes, tolerances, and the input generator (a copy of TritonGym's) |\n"
      "| `test_kernel.py` | pytest: the kernel against the reference at the visible shapes, two seeds each |\n"
      "| `bench_kernel.py` | `triton.testing.do_bench`, kernel vs reference (needs a GPU) |\n\n"
      "## Use\n\n```bash\npython -m pytest test_kernel.py                     # on a GPU\n"
      "TRITON_INTERPRET=1 python -m pytest test_kernel.py  # on the CPU, at the task's small shapes\n"
      "python bench_kernel.py\n```\n\nNeeds torch and triton.\n";
  return readme;
}

}  // namespace

Result<ExportOutcome> export_episode(const std::string& run_dir, const std::string& episode_key,
                                     const std::string& to_dir, const std::string& input_generator_path) {
  std::ifstream generator_file(input_generator_path);
  if (input_generator_path.empty() || !generator_file)
    return Status(StatusCode::not_found, "the worker's input generator (tritongym_worker/inputs.py) was not found" +
                                             (input_generator_path.empty() ? std::string() : " at " + input_generator_path));
  std::string generator((std::istreambuf_iterator<char>(generator_file)), {});
  auto store = store::open_run_dir(run_dir);
  if (!store) return store.status();
  auto run = store->load_run();
  if (!run) return run.status();
  auto episodes = store->load_episodes();
  if (!episodes) return episodes.status();
  const results::EpisodeRecord* episode = nullptr;
  std::vector<std::string> keys;
  for (const auto& candidate : episodes.value()) {
    keys.push_back(candidate.key.key());
    if (candidate.key.key() == episode_key) episode = &candidate;
  }
  if (!episode)
    return Status(StatusCode::not_found, "the run in " + run_dir + " has no episode '" + episode_key + "'" +
                                             did_you_mean(episode_key, keys) +
                                             " (keys are TASK|MODEL|WORKFLOW|SAMPLE, e.g. " +
                                             (keys.empty() ? std::string("standard/softmax|demo|one-shot|0") : keys.front()) +
                                             ")");
  if (!episode->passed())
    return Status(StatusCode::failed_precondition,
                  "episode '" + episode_key + "' did not pass (" + episode->verdict +
                      (episode->message.empty() ? std::string() : ": " + episode->message.substr(0, 200)) +
                      "); only a kernel that passed its final score is exported");
  auto spec_json = store->task(episode->key.task_id);
  if (!spec_json)
    return Status(StatusCode::not_found, "the store of " + run_dir + " does not describe task '" + episode->key.task_id + "'");
  boost::system::error_code error;
  boost::json::value spec = boost::json::parse(*spec_json, error);
  if (error || !spec.is_object())
    return Status(StatusCode::internal, "the store's description of task '" + episode->key.task_id + "' is not JSON");
  const auto& task = spec.as_object();
  std::string reference_path = task.contains("reference") ? std::string(task.at("reference").as_string()) : "";
  std::ifstream reference_file(reference_path);
  if (reference_path.empty() || !reference_file)
    return Status(StatusCode::not_found, "the reference of task '" + episode->key.task_id + "' (" + reference_path +
                                             ") cannot be read; export needs the task's folder");
  std::string reference((std::istreambuf_iterator<char>(reference_file)), {});

  std::error_code fs_error;
  fs::create_directories(to_dir, fs_error);
  if (fs_error) return Status(StatusCode::unavailable, "cannot create " + to_dir + ": " + fs_error.message());
  ExportOutcome outcome;
  outcome.task_id = episode->key.task_id;
  fs::path dir(to_dir);
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"kernel.py", episode->final_code},
           {"reference.py", reference},
           {"task.json", boost::json::serialize(spec) + "\n"},
           {"task_inputs.py", kTaskInputs},
           {"tritongym_inputs.py", generator},
           {"test_kernel.py", kTest},
           {"bench_kernel.py", kBench},
           {"README.md", readme(*episode, task, run->run_id)}})
    if (Status status = write_file(dir / name, text, outcome.files); !status.is_ok()) return status;
  return outcome;
}

}  // namespace tritongym::run
