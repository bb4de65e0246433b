"""bench/executor_structure.py over a tiny tree written here: a long C++ function with lambdas, a nested Python
function, a plugin that includes a core/ header and one that includes the SDK, run as the script is run."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "executor_structure.py")

pytestmark = pytest.mark.skipif(shutil.which("ctags") is None,
                                reason="Universal Ctags ('ctags') is not on PATH: the C++ functions cannot be found")


def write(root, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def long_cpp_function(lines_inside: int) -> str:
    body = "".join(f"  total += {n};\n" for n in range(lines_inside - 2))
    return ("int evaluate_once(int seed) {\n"
            "  int total = seed;\n"
            "  auto twice = [](int x) {\n    return 2 * x;\n  };\n"
            f"{body}"
            "  return twice(total);\n"
            "}\n")


@pytest.fixture()
def tree(tmp_path):
    common = "plugins/executors/triton-common"
    # evaluate_once: signature, one statement, a 3-line lambda, 124 statements, return, brace: lines 3-133 (131 lines).
    write(tmp_path, f"{common}/triton_executor.cpp",
          '#include "process/child_process.hpp"\n#include "worker.hpp"\n' + long_cpp_function(126)
          + "int small(int x) {\n  return x;\n}\n")
    write(tmp_path, f"{common}/worker.hpp",
          "#pragma once\n#include <tritongym/sdk/plugin.hpp>\n#include <vector>\ninline int worker_id() { return 1; }\n")
    write(tmp_path, "plugins/executors/worker/tritongym_worker/candidate.py",
          "import os\n\n\nclass Role:\n    def run(self):\n        def inner():\n            return 1\n"
          "        return inner()\n\n\n@staticmethod\ndef helper():\n    x = 1\n    return x\n")
    write(tmp_path, "core/process/child_process.hpp", "#pragma once\n#include <tritongym/sdk/plugin.hpp>\n")
    write(tmp_path, "sdk/include/tritongym/sdk/plugin.hpp", "#pragma once\nstruct Plugin {};\n")
    write(tmp_path, "plugins/tools/compile/register.cpp", '#include "tritongym/sdk/plugin.hpp"\n')
    return tmp_path


def run_report(tree) -> str:
    done = subprocess.run([sys.executable, SCRIPT, str(tree), "--title", "synthetic", "--top", "3"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_files_functions_and_arrows_of_a_synthetic_tree(tree):
    report = run_report(tree)
    assert report.startswith("## synthetic\n")
    # Largest files: the executor's 136 lines first (2 includes, 131 of evaluate_once, 3 of small).
    assert "| 136 | `plugins/executors/triton-common/triton_executor.cpp` |" in report
    # ctags' range for the long function, its one lambda folded in, and the one-line inline function in the header.
    assert "| 131 | `evaluate_once` | `plugins/executors/triton-common/triton_executor.cpp:3-133` | 1 |" in report
    assert "3 functions; 1 over 120 lines." in report
    # Python: a method, the function nested in it (listed on its own too), a decorated function counted from def.
    assert "| 4 | `Role.run` | `plugins/executors/worker/tritongym_worker/candidate.py:5-8` |" in report
    assert "| 2 | `Role.run.inner` |" in report
    assert "| 3 | `helper` | `plugins/executors/worker/tritongym_worker/candidate.py:12-14` |" in report
    # Arrows: the executor into core/process and (through worker.hpp) sdk; core/process and the tool into sdk.
    assert "| `plugins/executors` | `core/process` | 1 |" in report
    assert "| `plugins/executors` | `sdk` | 1 |" in report
    assert "| `core/process` | `sdk` | 1 |" in report
    assert "| `plugins/tools` | `sdk` | 1 |" in report
    assert ("- `plugins/executors/triton-common/triton_executor.cpp:1` includes `core/process/child_process.hpp`"
            in report)
    assert "| longest C++ function in plugins/executors, limit 120 | 131 (`evaluate_once`); 1 over the limit | not met |" \
        in report
    assert "| `plugins/executors/triton-common/triton_executor.cpp` lines, limit under 500 | 136 | met |" in report
    assert "| include lines from plugins/ of a core/ header, must be 0 | 1 | not met |" in report


def test_a_tree_without_the_executor_folder_is_refused(tmp_path):
    done = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "has no plugins/executors folder" in done.stderr
