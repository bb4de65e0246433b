"""The executor's structure in one tree, as issue 35 measures it: largest files, longest functions, include arrows.

    python bench/executor_structure.py TREE [--title TEXT] [--top 15]

TREE is a checkout of the project (a worktree of any commit will do; nothing in it is built or run). Printed, in
Markdown:
- the largest C++ and Python files under plugins/executors/ and sdk/, in lines;
- the longest functions in plugins/executors/**/*.cpp|hpp (Universal Ctags' function definitions with their end
  line; a lambda is counted inside the function that holds it, and the lambdas of each function are counted) and
  in plugins/executors/worker/**/*.py (the `ast` module: `def` line to end_lineno, decorators not counted, a nested
  function listed on its own as well as inside its parent);
- the `#include` arrows between top-level folders (core/<part>, sdk, plugins/<kind>), with counts, and every
  include from plugins/ or sdk/ of a header under core/ (core/ is not installed with the SDK);
- issue 35's done-when checks that need no GPU: the longest executor function against 120 lines,
  triton_executor.cpp against 500 lines, and the count of plugin includes of core/ headers (must be 0).

An include is resolved as the compiler would find it in this project: beside the including file first, else the one
file of core/, sdk/ or plugins/ whose path ends with the included path (`"process/subprocess.hpp"`,
`<tritongym/sdk/plugin.hpp>`); an include that matches no file of the tree (the standard library, Boost) is no
arrow, and one that matches several is reported as ambiguous. Needs `ctags` (Universal Ctags) on PATH.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Iterable

CPP_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".cu", ".cuh")
SOURCE_SUFFIXES = CPP_SUFFIXES + (".py",)
SKIPPED_DIRS = {"__pycache__", ".git", ".venv", "build"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
FUNCTION_LIMIT_LINES = 120
EXECUTOR_FILE = "plugins/executors/triton-common/triton_executor.cpp"
EXECUTOR_FILE_LIMIT_LINES = 500


@dataclass(frozen=True)
class Function:
    path: str  # relative to the tree
    name: str
    first_line: int
    last_line: int
    lambdas: int  # C++ only: lambdas inside it (0 for Python)

    @property
    def lines(self) -> int:
        return self.last_line - self.first_line + 1


def source_files(tree: str, roots: Iterable[str], suffixes: tuple[str, ...]) -> list[str]:
    """Paths relative to tree of the files under roots with one of suffixes, sorted."""
    found = []
    for root in roots:
        top = os.path.join(tree, root)
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("build-"))
            for name in files:
                if name.endswith(suffixes):
                    found.append(os.path.relpath(os.path.join(folder, name), tree))
    return sorted(found)


def line_count(tree: str, path: str) -> int:
    with open(os.path.join(tree, path), "rb") as handle:
        return sum(1 for _ in handle)


def cpp_functions(tree: str, paths: list[str]) -> list[Function]:
    """Function definitions of the C++ files, from Universal Ctags (kind f, with end lines); lambdas folded in."""
    if not paths:
        return []
    ctags = shutil.which("ctags")
    if ctags is None:
        raise SystemExit("executor_structure: needs Universal Ctags ('ctags' on PATH) to find C++ functions")
    done = subprocess.run([ctags, "--output-format=json", "--fields=+ne", "--kinds-C++=f", "--language-force=C++",
                           "-o", "-", *paths], cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"executor_structure: ctags failed in {tree}: {done.stderr.strip()}")
    named: list[Function] = []
    anonymous: list[tuple[str, int, int]] = []
    for row in done.stdout.splitlines():
        tag = json.loads(row)
        if tag.get("_type") != "tag" or tag.get("kind") != "function":
            continue
        if "end" not in tag:
            raise SystemExit(f"executor_structure: ctags gave no end line for {tag['name']} in {tag['path']}")
        if tag["name"].startswith("__anon"):
            anonymous.append((tag["path"], tag["line"], tag["end"]))
            continue
        scope = tag.get("scope", "")
        short_scope = scope.split("::")[-1] if scope and not scope.split("::")[-1].startswith("__anon") else ""
        name = f"{short_scope}::{tag['name']}" if short_scope else tag["name"]
        named.append(Function(tag["path"], name, tag["line"], tag["end"], 0))
    with_lambdas = []
    for function in named:
        inside = sum(1 for path, first, last in anonymous
                     if path == function.path and function.first_line < first and last <= function.last_line)
        with_lambdas.append(Function(function.path, function.name, function.first_line, function.last_line, inside))
    return with_lambdas


def python_functions(tree: str, paths: list[str]) -> list[Function]:
    """Every def (and async def) of the Python files, named Class.method or outer.inner."""
    functions: list[Function] = []
    for path in paths:
        with open(os.path.join(tree, path), encoding="utf-8") as handle:
            module = ast.parse(handle.read(), filename=path)

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = prefix + child.name
                    functions.append(Function(path, name, child.lineno, child.end_lineno or child.lineno, 0))
                    visit(child, name + ".")
                elif isinstance(child, ast.ClassDef):
                    visit(child, prefix + child.name + ".")
                else:
                    visit(child, prefix)

        visit(module, "")
    return functions


def folder_of(path: str) -> str:
    """core/<part>, sdk or plugins/<kind>: the top-level folder an arrow is drawn between."""
    parts = path.split("/")
    if parts[0] in ("core", "plugins") and len(parts) > 2:
        return f"{parts[0]}/{parts[1]}"
    return parts[0]


@dataclass(frozen=True)
class Include:
    source: str
    line: int
    text: str
    target: str | None  # None: no file of the tree
    candidates: tuple[str, ...]


def resolve_includes(tree: str, files: list[str]) -> list[Include]:
    """Every #include of files, resolved to a file of the tree where one matches (see the module's docstring)."""
    known = set(files)
    by_name: dict[str, list[str]] = collections.defaultdict(list)
    for path in files:
        by_name[os.path.basename(path)].append(path)
    includes = []
    for source in files:
        if not source.endswith(CPP_SUFFIXES):
            continue
        with open(os.path.join(tree, source), encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, start=1):
                match = INCLUDE.match(text)
                if match is None:
                    continue
                bracket, included = match.groups()
                beside = os.path.normpath(os.path.join(os.path.dirname(source), included))
                if bracket == '"' and beside in known:
                    includes.append(Include(source, number, included, beside, (beside,)))
                    continue
                if bracket == "<" and "/" not in included:
                    continue  # <vector>, <unistd.h>: the system's
                candidates = tuple(path for path in by_name.get(os.path.basename(included), [])
                                   if path == included or path.endswith("/" + included))
                target = candidates[0] if len(candidates) == 1 else None
                includes.append(Include(source, number, included, target, candidates))
    return includes


def markdown_table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def report(tree: str, title: str, top: int) -> str:
    out = [f"## {title}", ""]

    sized = [(line_count(tree, path), path) for path in source_files(tree, ["plugins/executors", "sdk"], SOURCE_SUFFIXES)]
    sized.sort(key=lambda item: (-item[0], item[1]))
    out += [f"### The {top} largest files under plugins/executors/ and sdk/ (C++ and Python, lines)", "",
            f"{len(sized)} files, {sum(n for n, _ in sized)} lines in all.", "",
            markdown_table(["lines", "file"], [[n, f"`{path}`"] for n, path in sized[:top]]), ""]

    cpp = cpp_functions(tree, source_files(tree, ["plugins/executors"], CPP_SUFFIXES))
    python = python_functions(tree, source_files(tree, ["plugins/executors/worker"], (".py",)))
    for label, functions, lambda_column in (("C++, plugins/executors/**/*.cpp|hpp", cpp, True),
                                            ("Python, plugins/executors/worker/**/*.py", python, False)):
        ranked = sorted(functions, key=lambda f: (-f.lines, f.path, f.first_line))
        over = [f for f in functions if f.lines > FUNCTION_LIMIT_LINES]
        header = ["lines", "function", "where"] + (["lambdas inside"] if lambda_column else [])
        rows = [[f.lines, f"`{f.name}`", f"`{f.path}:{f.first_line}-{f.last_line}`"]
                + ([f.lambdas] if lambda_column else []) for f in ranked[:top]]
        out += [f"### The {top} longest functions ({label})", "",
                f"{len(functions)} functions; {len(over)} over {FUNCTION_LIMIT_LINES} lines.", "",
                markdown_table(header, rows), ""]

    files = source_files(tree, ["core", "sdk", "plugins"], CPP_SUFFIXES)
    includes = resolve_includes(tree, files)
    arrows = collections.Counter((folder_of(i.source), folder_of(i.target)) for i in includes
                                 if i.target and folder_of(i.source) != folder_of(i.target))
    rows = [[f"`{a}`", f"`{b}`", count] for (a, b), count in sorted(arrows.items())]
    out += ["### Include arrows between top-level folders", "",
            "An arrow A -> B: include lines in A's C++ files that name a header of B (inside one folder not counted).",
            "", markdown_table(["from", "to", "includes"], rows), ""]
    ambiguous = [i for i in includes if i.target is None and len(i.candidates) > 1]
    if ambiguous:
        out += ["Includes that match several files of the tree (not counted):", ""]
        out += [f"- `{i.source}:{i.line}` `{i.text}`: " + ", ".join(f"`{c}`" for c in i.candidates) for i in ambiguous]
        out.append("")
    into_core = [i for i in includes if i.target and i.target.startswith("core/")
                 and i.source.split("/")[0] in ("plugins", "sdk")]
    out += ["Includes of a core/ header from plugins/ or sdk/:", ""]
    out += [f"- `{i.source}:{i.line}` includes `{i.target}`" for i in into_core] or ["- none"]
    out.append("")

    plugin_core = sum(1 for i in into_core if i.source.startswith("plugins/"))
    executor_lines = line_count(tree, EXECUTOR_FILE) if os.path.exists(os.path.join(tree, EXECUTOR_FILE)) else None
    checks = []
    for label, functions in (("C++", cpp), ("worker Python", python)):
        longest = max(functions, key=lambda f: f.lines, default=None)
        over = sum(f.lines > FUNCTION_LIMIT_LINES for f in functions)
        checks.append([f"longest {label} function in plugins/executors, limit {FUNCTION_LIMIT_LINES}",
                       f"{longest.lines} (`{longest.name}`); {over} over the limit" if longest else "no functions",
                       "met" if over == 0 else "not met"])
    checks += [
        [f"`{EXECUTOR_FILE}` lines, limit under {EXECUTOR_FILE_LIMIT_LINES}",
         executor_lines if executor_lines is not None else "no such file",
         "met" if executor_lines is not None and executor_lines < EXECUTOR_FILE_LIMIT_LINES else "not met"],
        ["include lines from plugins/ of a core/ header, must be 0", plugin_core, "met" if plugin_core == 0 else "not met"],
    ]
    out += ["### Issue 35's done-when checks measurable without a GPU", "",
            markdown_table(["check", "measured", "verdict"], checks), ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", help="a checkout of the project")
    parser.add_argument("--title", default=None, help="the report's heading (default: the tree's path)")
    parser.add_argument("--top", type=int, default=15, help="rows in each ranking (default 15)")
    args = parser.parse_args(argv)
    if not os.path.isdir(os.path.join(args.tree, "plugins", "executors")):
        parser.error(f"{args.tree} has no plugins/executors folder: not a checkout of this project")
    print(report(args.tree, args.title or args.tree, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
