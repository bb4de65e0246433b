"""entry.scalars (docs/task-format.md): where a task's reference.py draws the inputs (`make_inputs`), the
parameters it returns as Python numbers are exactly those task.yaml declares, so that the static checks know
them (host arithmetic on a scalar is not PyTorch compute). Each shipped task's make_inputs at its first small
shape, on the CPU."""
import importlib.util
from pathlib import Path

import pytest
import torch

from task_yaml import read_task

ROOT = Path(__file__).resolve().parents[2]
DRAWN = sorted(str(p.parent.relative_to(ROOT)) for p in ROOT.glob("tasks/*/*/reference.py")
               if "def make_inputs" in p.read_text())


def test_there_are_tasks_that_draw_their_inputs():
    assert len(DRAWN) > 10


@pytest.mark.parametrize("folder", DRAWN)
def test_the_python_numbers_make_inputs_returns_are_the_declared_scalars(folder):
    task = read_task(ROOT / folder)
    assert task["small"], f"{folder}/task.yaml: no small shape read"
    spec = importlib.util.spec_from_file_location("reference", ROOT / folder / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dtype = getattr(torch, task["dtypes"][0]) if task["dtypes"] else torch.float32
    inputs = module.make_inputs(task["small"][0], dtype, torch.Generator().manual_seed(0))
    numbers = [name for name, value in zip(task["parameters"], inputs) if not isinstance(value, torch.Tensor)]
    assert numbers == [name for name in task["parameters"] if name in task["scalars"]], \
        f"{folder}: make_inputs returns Python numbers for {numbers}; entry.scalars should name them"
