"""A source that does not compile is judged by the static checks (static_check's `syntax_error`), before any case is
made or child forked: the message must be the one the child's import of candidate.py gives, for every kind of
error the import can meet, and a source the import accepts must not be refused."""
from __future__ import annotations

import importlib.util
import os

import pytest

from tritongym_worker import diagnostics
from tritongym_worker.static_checks import answer

REFUSED = {
    "a missing colon": "import torch\n\n\ndef vector_add(x, y)\n    return x + y\n",
    "an indentation error": "def vector_add(x, y):\nreturn x + y\n",
    "return outside a function (the compiler's, not the parser's)": "return 1\n",
    "nonlocal at module level": "nonlocal x\n",
    "a bad coding cookie": "# -*- coding: no-such-codec -*-\nx = 1\n",
    "an unterminated string": "x = 'abc\n",
    "a future feature that does not exist": "from __future__ import braces\n",
}
ACCEPTED = {
    "plain code": "def vector_add(x, y):\n    return x + y\n",
    "an error only when run": "def vector_add(x, y):\n    return undefined_name\n\nraise RuntimeError('at import')\n",
    "a latin-1 cookie over the written bytes": "# -*- coding: latin-1 -*-\nname = 'caf\u00e9'\n",
}


def import_message(source: str, folder: str) -> str | None:
    """What the candidate worker's child says when it imports `source`: the file written as the worker writes it,
    imported as the child imports it (candidate.py)."""
    path = os.path.join(folder, "candidate.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("candidate_under_test", path)
    try:
        spec.loader.get_code("candidate_under_test")  # the compile of exec_module, without running the module
    except BaseException as error:
        return diagnostics.describe(error, path)
    return None


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_source_that_does_not_compile_is_refused_with_the_childs_own_message(kind, tmp_path):
    source = REFUSED[kind]
    expected = import_message(source, str(tmp_path))
    assert expected is not None and expected.startswith("candidate.py")
    reply = answer({"code": source, "entry": "vector_add"})
    assert reply["ok"] and reply["syntax_error"] == expected


@pytest.mark.parametrize("kind", sorted(ACCEPTED))
def test_a_source_the_import_compiles_is_left_to_the_child(kind, tmp_path):
    source = ACCEPTED[kind]
    assert import_message(source, str(tmp_path)) is None
    assert "syntax_error" not in answer({"code": source, "entry": "vector_add"})


def test_the_fixture_the_executor_tests_use_names_its_line():
    fixture = os.path.join(os.path.dirname(__file__), "..", "fixtures", "candidates", "vector-add", "syntax_error.py")
    reply = answer({"code": open(fixture).read(), "entry": "vector_add"})
    assert reply["syntax_error"].startswith("candidate.py, line 4: ")
