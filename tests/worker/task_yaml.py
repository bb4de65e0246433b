"""What the worker tests need from a task.yaml, read without PyYAML (the worker's venv does not have it):
the entry function, the dtypes, and the entry parameters that are Python numbers (`value:`)."""
from __future__ import annotations

import re
from pathlib import Path


def read_task(folder: Path) -> dict:
    text = (folder / "task.yaml").read_text()
    entry = re.search(r"^entry:\s*\n(?:\s+.*\n)*?\s+function:\s*(\w+)", text, re.M)
    dtypes = re.search(r"^dtypes:\s*\[([^\]]*)\]", text, re.M)
    scalars = re.findall(r"\{\s*name:\s*(\w+)\s*,\s*value:", text)
    return {"entry": entry.group(1) if entry else "",
            "dtypes": [d.strip() for d in dtypes.group(1).split(",")] if dtypes else [],
            "scalars": scalars}
