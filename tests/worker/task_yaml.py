"""What the worker tests need from a task.yaml, read without PyYAML (the worker's venv does not have it):
the entry function and its parameters, the dtypes, the small shapes (flow maps of integers), and the entry
parameters that are Python numbers (`value:`, entry.scalars)."""
from __future__ import annotations

import re
from pathlib import Path


def read_task(folder: Path) -> dict:
    text = (folder / "task.yaml").read_text()
    entry = re.search(r"^entry:\s*\n(?:\s+.*\n)*?\s+function:\s*(\w+)", text, re.M)
    dtypes = re.search(r"^dtypes:\s*\[([^\]]*)\]", text, re.M)
    scalars = re.findall(r"\{\s*name:\s*(\w+)\s*,\s*value:", text)
    declared = re.search(r"^entry:\s*\n(?:\s+.*\n)*?\s+scalars:\s*\[([^\]]*)\]", text, re.M)
    scalars += [s.strip() for s in declared.group(1).split(",")] if declared else []
    parameters = re.search(r"^entry:\s*\n(?:\s+.*\n)*?\s+parameters:\s*\[([^\]]*)\]", text, re.M)
    small = re.search(r"^  small:\s*\n((?:\s+- \{.*\}\s*\n)+)", text, re.M)
    return {"entry": entry.group(1) if entry else "",
            "parameters": [p.strip() for p in parameters.group(1).split(",")] if parameters else [],
            "small": [{k: int(v) for k, v in re.findall(r"(\w+):\s*(-?\d+)", line)}
                      for line in small.group(1).strip().splitlines()] if small else [],
            "dtypes": [d.strip() for d in dtypes.group(1).split(",")] if dtypes else [],
            "scalars": scalars}
