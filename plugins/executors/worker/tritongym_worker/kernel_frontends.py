"""Which frontend each kernel the candidate ran came from, for the task's DSL rule at run time
(docs/candidate-contract.md, "The task's DSL").

A DSL plugin names the frontend its kernels must come from (Dsl::required_kernel_frontend: "gluon" for Gluon);
the executor passes it in the run request as `kernel_frontend`. The source text cannot settle it: `from triton
import jit`, `import triton as t; t.jit`, `triton.jit(fn)` called as a function and a kernel made in exec'd code
all make plain Triton kernels that no pattern over the text sees. So the child records the kernels themselves,
through what every one of them goes through, wrapped before the candidate is imported:

- `JITFunction.run`: every launch and warm-up of a @triton.jit or @gluon.jit kernel (an autotuner's and a
  heuristic's launches end there too), however the decorator was spelt or imported; on the interpreter,
  `InterpretedFunction.run`, which @triton.jit makes there. The frontend is the kernel's class:
  `triton.experimental.gluon._runtime.GluonJITFunction` (or a subclass) is Gluon, any other is plain Triton.
- `triton.compiler.compile` (the package's, which JITFunction reads, and the module's): every compile, by the
  language of its source (`GluonASTSource.language` is Language.GLUON, `ASTSource`'s Language.TRITON, an IR file
  is hand-written IR). It sees a kernel compiled without a launch through `run` (triton.compile of an ASTSource,
  a kernel class that overrides run), and it is the compiled form that counts: a class made to look like Gluon
  that compiles plain Triton is plain Triton.
- The module's JIT functions (diagnostics' walk) with a compiled kernel: one compiled by a path that passed both.

The wrappers are the integrity snapshot's (integrity.WATCHED): a candidate that puts the originals back is
flagged in a timed run, and `replaced()` says so in any run, which fails a candidate held to a frontend. Candidate
code runs in this very process, so a determined one can still reach the originals (docs/anti-cheat.md, "What
cannot be caught"); kernels of other compilers (CUDA C through torch's inline loader, ...) are not Triton kernels
and are not seen here: the CUPTI records of a timed run list every kernel."""
from __future__ import annotations

import inspect
import os
import threading
from typing import Any

# Each frontend a kernel can come from: how the model reads it, and how a kernel of it is written.
FRONTENDS: dict[str, tuple[str, str]] = {
    "triton": ("plain Triton", "@triton.jit"),
    "gluon": ("Gluon", "@gluon.jit"),
    "ir": ("hand-written IR", "triton.compile of an IR file"),
}
# What a DSL may require; "ir" is only ever found.
REQUIRABLE = ("triton", "gluon")


class KernelFrontends:
    """Records, from install() on, each kernel launched or compiled in this process and its frontend."""

    def __init__(self) -> None:
        # (kernel name, frontend) -> launched (True) or only compiled (False), in the order first seen.
        self.kernels: dict[tuple[str, str], bool] = {}
        self._lock = threading.Lock()
        # Triton's classes, taken now (before the candidate is imported: it may rebind their names later).
        self._gluon_class: Any = None
        self._gluon_source: Any = None
        self._gluon_language: Any = None
        self._ast_source: Any = None
        self._jit_class: Any = None
        try:
            from triton.compiler.compiler import ASTSource
            from triton.runtime.jit import JITFunction
            self._ast_source, self._jit_class = ASTSource, JITFunction
            from triton.backends.compiler import Language
            from triton.experimental.gluon._runtime import GluonASTSource, GluonJITFunction
            self._gluon_class, self._gluon_source, self._gluon_language = GluonJITFunction, GluonASTSource, Language.GLUON
        except ImportError:  # no Triton (nothing to record), or one without Gluon (every kernel is plain Triton)
            pass
        self._wrappers: list[tuple[str, Any, str, Any, Any]] = []  # (label, owner, attribute, wrapper, its code)
        self._installed = False

    def install(self) -> bool:
        """Wraps the launch and compile entry points. Before the candidate is imported and before the integrity
        snapshot (which then holds the wrappers). False if Triton is missing (nothing to record)."""
        if self._installed:
            return True
        if self._jit_class is None:
            return False
        import triton.compiler
        import triton.compiler.compiler

        self._wrap_run(self._jit_class, "triton.runtime.jit.JITFunction.run")
        if os.environ.get("TRITON_INTERPRET") == "1":
            from triton.runtime.interpreter import InterpretedFunction
            self._wrap_run(InterpretedFunction, "triton.runtime.interpreter.InterpretedFunction.run")
        self._wrap_compile(triton.compiler, "triton.compiler.compile")
        self._wrap_compile(triton.compiler.compiler, "triton.compiler.compiler.compile")
        self._installed = True
        return True

    def frontend_of(self, function: Any) -> str:
        """A JIT function's frontend by its class (type(), which a candidate's object cannot fake as __class__)."""
        if self._gluon_class is not None and issubclass(type(function), self._gluon_class):
            return "gluon"
        return "triton"

    def note(self, name: str, frontend: str, launched: bool) -> None:
        with self._lock:
            self.kernels[(name, frontend)] = self.kernels.get((name, frontend), False) or launched

    def sweep(self, module: Any) -> None:
        """The module's JIT functions (under autotuners and heuristics too) that hold a compiled kernel."""
        if self._jit_class is None:
            return
        from .diagnostics import _wrapped

        for function in _wrapped(module, self._jit_class):
            caches = getattr(function, "device_caches", None) or {}
            if any(isinstance(cache, tuple) and cache and cache[0] for cache in list(caches.values())):
                self.note(_name_of(function), self.frontend_of(function), False)

    def report(self) -> list[dict[str, Any]]:
        """What the record keeps: [{name, frontend, launched}]."""
        with self._lock:
            return [{"name": name, "frontend": frontend, "launched": launched}
                    for (name, frontend), launched in self.kernels.items()]

    def replaced(self) -> list[str]:
        """The entry points whose wrapper is no longer in place (the candidate put something else there)."""
        found = []
        for label, owner, attribute, wrapper, code in self._wrappers:
            try:
                current = inspect.getattr_static(owner, attribute)
            except AttributeError:
                current = None
            if current is not wrapper or wrapper.__code__ is not code:
                found.append(label)
        return found

    def violation(self, required: str) -> str:
        """"" when every kernel recorded came from `required` and at least one of them ran; else the reason the
        model reads. `required` is one of REQUIRABLE."""
        with self._lock:
            kernels = list(self.kernels.items())
        label, decorator = FRONTENDS[required]
        for (name, frontend), launched in kernels:
            if frontend != required:
                other_label, other_decorator = FRONTENDS[frontend]
                how = "ran" if launched else "was compiled"
                return (f"this task is in {label}: the kernel `{name}` {how} as {other_label} ({other_decorator}); "
                        f"write every kernel with {decorator}")
        if not any(launched for (_, frontend), launched in kernels if frontend == required):
            return (f"this task is in {label}: no {decorator} kernel ran; the computation must happen in kernels "
                    f"written with {decorator}")
        return ""

    def compiled(self, src: Any) -> tuple[str, str]:
        """(name, frontend) of what triton.compiler.compile was handed: a GluonASTSource of the Gluon language is
        Gluon, any other ASTSource plain Triton, anything else (an IR file's path, an IRSource) hand-written IR."""
        name = getattr(src, "name", None)
        if self._ast_source is not None and isinstance(src, self._ast_source):
            gluon = (self._gluon_source is not None and issubclass(type(src), self._gluon_source)
                     and getattr(src, "language", None) is self._gluon_language)
            return (name if isinstance(name, str) else _name_of(src)), "gluon" if gluon else "triton"
        return str(name or (src if isinstance(src, str) else type(src).__name__)), "ir"

    # The wrappers copy the original's name and doc, not `__wrapped__`: the original is not handed out.
    def _wrap_run(self, kind: type, label: str) -> None:
        original = kind.run
        recorder = self

        def run(function: Any, *args: Any, **kwargs: Any) -> Any:
            recorder.note(_name_of(function), recorder.frontend_of(function), not kwargs.get("warmup", False))
            return original(function, *args, **kwargs)

        run.__name__, run.__qualname__, run.__doc__ = "run", f"{kind.__qualname__}.run", original.__doc__
        kind.run = run
        self._wrappers.append((label, kind, "run", run, run.__code__))

    def _wrap_compile(self, module: Any, label: str) -> None:
        original = module.compile
        recorder = self

        def compile(src: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A001  (the name Triton looks up)
            try:
                name, frontend = recorder.compiled(src)
            except Exception:  # noqa: BLE001  (whatever the candidate handed it: Triton says what is wrong)
                name, frontend = "?", "ir"
            recorder.note(name, frontend, False)
            return original(src, *args, **kwargs)

        compile.__name__, compile.__qualname__, compile.__doc__ = "compile", "compile", original.__doc__
        module.compile = compile
        self._wrappers.append((label, module, "compile", compile, compile.__code__))


def _name_of(function: Any) -> str:
    name = getattr(getattr(function, "fn", None), "__name__", None)
    return name if isinstance(name, str) else type(function).__name__
