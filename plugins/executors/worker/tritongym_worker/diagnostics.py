"""What the model reads when its candidate fails: errors with line numbers of candidate.py, and the
registers, shared memory and spills of the kernels it compiled."""
from __future__ import annotations

import locale
import traceback
from typing import Any, Optional

MAX_MESSAGE_CHARS = 4000


def classify(error: BaseException, during_import: bool) -> str:
    """The verdict an exception earns: compile_error, oom or runtime_error."""
    name = type(error).__name__
    if during_import or isinstance(error, SyntaxError) or name in {"CompilationError", "CompileTimeAssertionFailure"}:
        return "compile_error"
    text = str(error)
    if isinstance(error, MemoryError) or name == "OutOfMemoryError" or "out of memory" in text \
            or "can't allocate memory" in text:
        return "oom"
    return "runtime_error"


def is_cuda_fault(error: BaseException) -> bool:
    """A sticky CUDA error (illegal address, launch failure): the process must exit afterwards."""
    text = str(error)
    return "CUDA error" in text or "illegal memory access" in text or "an illegal instruction" in text \
        or "unspecified launch failure" in text or "misaligned address" in text


def describe(error: BaseException, candidate_path: str) -> str:
    """The exception with the traceback frames inside candidate.py only (the harness's frames would
    only distract), its line numbers those of the file the model wrote."""
    lines: list[str] = []
    if isinstance(error, SyntaxError) and error.filename == candidate_path:
        lines.append(f"candidate.py, line {error.lineno}: {error.msg}")
        if error.text:
            lines.append("    " + error.text.rstrip())
    else:
        for frame in traceback.extract_tb(error.__traceback__):
            if frame.filename == candidate_path:
                lines.append(f"candidate.py, line {frame.lineno}, in {frame.name}")
                if frame.line:
                    lines.append("    " + frame.line)
        message = str(error).replace(candidate_path, "candidate.py")
        lines.append(f"{type(error).__name__}: {message}".rstrip())
    text = "\n".join(lines)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "\n... (truncated)"


def syntax_error_of(source: str) -> Optional[str]:
    """What importing candidate.py would say of `source` if it cannot be compiled at all, else None.

    The same compile the import makes: the bytes the candidate worker writes (open()'s default encoding, so a
    coding cookie counts as it would), compiled whole, so an error of the compiler proper ('return' outside a
    function) counts as well as one of the parser; the message is describe()'s. Anything else that stops the
    compile (a source that cannot be encoded, null bytes, too deep a nesting) is left to the import."""
    try:
        compile(source.encode(locale.getpreferredencoding(False)), "candidate.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        # An error of the compiler proper carries no line of text: the import reads it from the file, this
        # compile had none.
        lines = source.splitlines()
        if error.text is None and error.lineno and 0 < error.lineno <= len(lines):
            error.text = lines[error.lineno - 1] + "\n"
        return describe(error, "candidate.py")
    except (ValueError, RecursionError, MemoryError):  # UnicodeError is a ValueError
        return None
    return None


def compiled_kernels(module: Any) -> list[dict[str, Any]]:
    """Registers, spills and shared memory of every kernel the candidate's module compiled."""
    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    found: list[dict[str, Any]] = []
    for function in _wrapped(module, JITFunction):
        for device_cache in getattr(function, "device_caches", {}).values():
            kernel_cache = device_cache[0] if isinstance(device_cache, tuple) else {}
            for kernel in list(kernel_cache.values()):
                metadata = getattr(kernel, "metadata", None)
                found.append({
                    "name": getattr(metadata, "name", getattr(function, "__name__", "?")),
                    "registers": getattr(kernel, "n_regs", None),
                    "spills": getattr(kernel, "n_spills", None),
                    "shared_memory_bytes": getattr(metadata, "shared", None),
                    "num_warps": getattr(metadata, "num_warps", None),
                    "num_stages": getattr(metadata, "num_stages", None),
                })
    return found


def autotune_choices(module: Any) -> dict[str, dict[str, str]]:
    """The config Triton's autotuner chose for each key it tuned, per autotuned kernel of the candidate's module:
    {kernel: {key: config}}, the key as the autotuner forms it (the `key` arguments' values, then the tensor
    arguments' dtypes). Where two runs of the same candidate tuned the same keys, their choices can be compared
    (bench/eval_throughput.py compares the warm pool's with a cold process's)."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return {}
    found: dict[str, dict[str, str]] = {}
    for tuner in _wrapped(module, Autotuner):
        if not getattr(tuner, "cache", None):
            continue
        name = getattr(getattr(tuner, "base_fn", None), "__name__", "?")
        found[name] = {key_text(key): str(config) for key, config in list(tuner.cache.items())}
    return found


def _wrapped(module: Any, kind: type) -> list[Any]:
    """Each object of `kind` the module's globals are or wrap (Heuristics wrap an Autotuner, which wraps a
    JITFunction, each under `.fn`), once."""
    found: dict[int, Any] = {}
    for value in list(vars(module).values()):
        while value is not None and not isinstance(value, kind):
            value = getattr(value, "fn", None)
        if value is not None:
            found.setdefault(id(value), value)
    return list(found.values())


def key_text(key: Any) -> str:
    """An autotuner's key as the reports write it: its parts joined, dtypes without "torch."."""
    parts = key if isinstance(key, tuple) else (key,)
    return ", ".join(str(part).replace("torch.", "") for part in parts)

