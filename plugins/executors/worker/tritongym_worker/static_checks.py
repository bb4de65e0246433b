"""Static (AST) checks of a candidate's source: warnings for the result, never a verdict.

API (pure: no import of torch or triton, no execution of the candidate):

    check_source(source: str, entry: str, dtypes: Sequence[str] | None = None,
                 scalars: Sequence[str] = ()) -> list[Finding]
    check_file(path: str, entry: str, dtypes: Sequence[str] | None = None,
               scalars: Sequence[str] = ()) -> list[Finding]
    Finding(code: str, line: int, message: str)       # frozen dataclass; .as_dict() for JSON
    CODES: dict[str, str]                              # every code and what it means

`dtypes` are the task's dtypes (task.yaml `dtypes:`, e.g. ["float32"]); with them, a cast inside a Triton
kernel to a float type of lower precision than every task dtype is reported too. `scalars` are the entry parameters that are Python numbers
(task.yaml inputs with `value:`); every other entry parameter is taken to be a tensor, so `x + y` in the
entry is reported and `1 - beta1 ** step` is not. A source that does not
parse gives no finding; answer() then says what the import would (diagnostics.syntax_error_of).

What is analysed:
  * "host code": the entry function and every module-level function, nested function, lambda or class
    method it reaches through calls by name (flow-insensitive), excluding @triton.jit / @gluon.jit kernel
    bodies (a `.sum()` or `.to(tl.float16)` inside a kernel is the kernel's own business);
  * the whole file for what is suspicious wherever it is: stream/thread/process creation, monkeypatching,
    persisting-L2 and native CUDA access (ctypes, cuda-python, cupy, load_inline, ...), signals and other
    processes' /proc entries.

Import aliases are resolved (`import torch.nn.functional as F`, `from threading import Thread`,
`from time import perf_counter as pc`, module-level `E = torch.cuda.Event`), so `F.softmax` is reported as
torch.nn.functional.softmax. Names hidden behind getattr(), eval() or exec() cannot be resolved: a call of
getattr/eval/exec/compile/__import__/importlib on a module is itself reported as `dynamic-access`.
"""
from __future__ import annotations

import ast
from dataclasses import asdict, dataclass
from typing import Iterable, Optional, Sequence

from .diagnostics import syntax_error_of

CODES = {
    "torch-compute": "a PyTorch compute op (torch.*, torch.nn.functional, torch.ops, a tensor method or operator) "
                     "in the entry's call path: the computation must happen in the candidate's kernels",
    "try-fallback": "a try/except in the entry's call path whose handler does not re-raise: a fallback path "
                    "(typically to PyTorch) when the kernel fails",
    "stream": "a CUDA stream is created or selected (work on a side stream escapes a timer on the default stream)",
    "thread": "a thread, process, executor or event loop is created (work that finishes after the timer)",
    "monkeypatch": "an attribute of torch, time, triton, statistics, builtins or another harness module is "
                   "assigned or deleted (timers, events, comparisons can be replaced)",
    "dynamic-access": "getattr/setattr/eval/exec/__import__/importlib on names the static checks cannot follow, or "
                      "other objects of the process reached through gc or stack frames",
    "precision-cast": "a cast to a lower-precision float type (half, bfloat16, float8) in host code, or in a "
                      "kernel below the task's dtypes: computing at lower precision and casting back",
    "cache": "state kept across calls (a module-level container or function attribute written in the entry's "
             "path, functools.cache/lru_cache, a mutable default argument): results may be replayed",
    "l2-persist": "persisting-L2 / access-policy-window / stream-attribute / device-limit manipulation",
    "native-access": "ctypes, cffi, cuda-python, cupy, pycuda, numba, torch.cuda.cudart or inline C++/CUDA "
                     "compilation: code the Triton checks cannot see",
    "process-access": "a signal sent to a process (os.kill, os.killpg, a pidfd) or another process's /proc entry "
                      "named: the harness's own processes (the GPU's sampler, the workers) run under the same user",
    "network": "a network or socket module is imported (socket, http, urllib.request, requests, ...): the sandbox "
               "refuses the network, and a candidate that tries fails",
}


@dataclass(frozen=True)
class Finding:
    code: str
    line: int
    message: str

    def as_dict(self) -> dict:
        return asdict(self)


# --- what counts as what -------------------------------------------------------------------------------

# torch.<name>(...) calls that only allocate, describe or configure: allowed by the candidate contract.
_TORCH_ALLOWED = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "tensor", "as_tensor", "from_numpy", "device", "dtype", "finfo", "iinfo", "Size", "is_tensor",
    "is_floating_point", "is_complex", "numel", "no_grad", "inference_mode", "enable_grad", "set_grad_enabled",
    "broadcast_shapes", "promote_types", "result_type", "get_default_dtype", "can_cast", "Generator",
    "manual_seed", "get_device", "is_grad_enabled", "as_strided", "view_as_real", "view_as_complex",
    "Tensor", "jit", "library",
}
# torch.cuda.* calls that are harmless (queries, synchronisation, allocation housekeeping).
_TORCH_CUDA_ALLOWED = {
    "current_device", "device_count", "get_device_properties", "get_device_capability", "get_device_name",
    "is_available", "synchronize", "current_stream", "default_stream", "device", "set_device", "mem_get_info",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "empty_cache", "is_initialized", "init",
    "Event", "get_arch_list", "utilization",
}
_TORCH_STREAM_CALLS = {"torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.cuda.set_stream",
                       "torch.cuda.StreamContext", "torch.Stream", "torch.cuda.graph", "torch.cuda.CUDAGraph",
                       "torch.cuda.make_graphed_callables", "torch.cuda.graphs.CUDAGraph"}
# Tensor methods that launch compute (allocation, views and metadata are not listed).
_TENSOR_COMPUTE_METHODS = {
    "sum", "mean", "nansum", "prod", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "softmax",
    "log_softmax", "matmul", "mm", "bmm", "mv", "dot", "addmm", "addmv", "baddbmm", "addbmm", "einsum", "exp",
    "exp2", "expm1", "log", "log2", "log1p", "sqrt", "rsqrt", "pow", "square", "abs", "neg", "reciprocal",
    "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "true_divide", "floor_divide", "remainder",
    "fmod", "max", "min", "amax", "amin", "maximum", "minimum", "argmax", "argmin", "aminmax", "logsumexp",
    "sort", "argsort", "topk", "kthvalue", "median", "mode", "relu", "relu_", "gelu", "silu", "sigmoid",
    "tanh", "sin", "cos", "erf", "clamp", "clamp_", "clip", "norm", "var", "std", "var_mean", "where",
    "masked_fill", "masked_fill_", "masked_scatter", "index_select", "index_add", "index_add_", "index_copy",
    "index_put", "index_put_", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce",
    "copy_", "clone", "lerp", "addcmul", "addcdiv", "outer", "cross", "tril", "triu", "flip", "roll", "cat",
    "repeat", "repeat_interleave", "unique", "nonzero", "any", "all", "eq", "ne", "lt", "le", "gt", "ge",
    "equal", "allclose", "isclose", "nan_to_num", "round", "floor", "ceil", "trunc", "sign", "signbit",
    "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_not", "count_nonzero",
    "histc", "bincount", "conv2d", "linear", "layer_norm", "rms_norm", "group_norm", "batch_norm",
    "cross_entropy", "nll_loss", "mse_loss", "dropout", "embedding", "softplus", "hardtanh", "leaky_relu",
    "elu", "selu", "mish", "hardswish", "glu", "normalize", "pad", "interpolate", "unfold", "fold",
    "sum_to_size", "renorm", "diff", "trace", "diag", "kron", "tensordot", "lstsq", "cholesky", "inverse",
}
_METADATA_METHODS = {"shape", "size", "numel", "dim", "ndim", "stride", "data_ptr", "element_size", "dtype",
                     "device", "is_contiguous", "storage_offset", "nbytes", "itemsize", "untyped_storage",
                     "is_cuda", "get_device", "item", "tolist"}
_TORCH_FUNCTIONAL_PREFIXES = ("torch.nn.functional.", "torch.ops.", "torch._C.", "torch.linalg.", "torch.fft.",
                              "torch.special.", "torch.nn.", "torch._refs.", "torch._prims.", "torch._ops.",
                              "torch.sparse.", "torch.nested.", "torch.compile", "torch._dynamo", "torch._inductor",
                              "torch.func.", "torch.vmap", "torch.autograd.", "torch.distributed.")
_THREAD_MODULES = ("threading.", "_thread.", "concurrent.futures.", "multiprocessing.", "asyncio.", "subprocess.",
                   "torch.multiprocessing.", "sched.", "signal.")
_THREAD_CALLS = {"os.fork", "os.forkpty", "os.spawnl", "os.spawnv", "os.spawnve", "os.spawnlp", "os.posix_spawn",
                 "os.posix_spawnp", "os.system", "os.popen", "os.execv", "os.execve", "os.register_at_fork",
                 "threading.Thread", "threading.Timer"}
_THREAD_HARMLESS = {"threading.get_ident", "threading.current_thread", "threading.main_thread",
                    "threading.active_count", "threading.enumerate", "threading.Lock", "threading.RLock",
                    "threading.local", "signal.getsignal"}
_PATCH_MODULES = {"torch", "time", "triton", "statistics", "builtins", "math", "numpy", "functools", "gc",
                  "sys", "os", "threading", "importlib", "tritongym_native", "tritongym_worker", "random",
                  "operator", "inspect", "traceback", "json", "pickle", "copyreg", "ctypes", "atexit", "signal",
                  "select", "io", "types", "contextlib", "warnings", "logging", "__builtins__", "_thread"}
_NETWORK_MODULES = ("socket", "_socket", "ssl", "socketserver", "http", "urllib.request", "urllib3", "requests",
                    "httpx", "aiohttp", "ftplib", "smtplib", "xmlrpc", "websocket", "websockets", "grpc", "zmq")
_NATIVE_MODULES = ("ctypes", "_ctypes", "cffi", "cuda", "cupy", "pycuda", "numba", "cupyx", "nvmath", "cutlass",
                   "cuda_bindings", "torch.utils.cpp_extension", "torch.cuda.cudart", "torch.cuda._utils",
                   "torch._C._cuda", "tritongym_native", "mmap", "tvm", "tilelang", "thunderkittens")
_L2_WORDS = ("persisting", "accesspolicywindow", "access_policy_window", "streamsetattribute",
             "stream_set_attribute", "cudalimitpersistingl2cachesize", "cudadevicesetlimit",
             "cuctxsetlimit", "persistingl2", "hitratio", "hitprop", "cudaaccessproperty", "cuaccessproperty",
             "set_per_process_memory_fraction", "cudacachepreference", "cufuncsetcacheconfig",
             "stream_attribute", "cudevicesetlimit")
_PROCESS_CALLS = {"os.kill", "os.killpg", "os.pidfd_open", "signal.pidfd_send_signal"}
_DYNAMIC_CALLS = {"getattr", "setattr", "delattr", "eval", "exec", "compile", "__import__", "vars", "globals",
                  "importlib.import_module", "importlib.reload", "importlib.util.spec_from_file_location",
                  "object.__setattr__", "type.__setattr__",
                  # other objects of the process reached through the collector or the stack: the harness's own
                  "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._getframe", "inspect.currentframe",
                  "inspect.stack"}
_LOW_FLOATS = {"float16": 2, "half": 2, "bfloat16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1,
               "float8_e5m2fnuz": 1, "float8e4nv": 1, "float8e5": 1, "float8e4b15": 1, "float8e4b8": 1,
               "float8e5b16": 1, "fp16": 2, "bf16": 2, "fp8e4nv": 1, "fp8e5": 1, "float8_e8m0fnu": 1,
               "float4_e2m1fn_x2": 0}
_FLOAT_RANK = {**_LOW_FLOATS, "float32": 3, "float": 3, "tf32": 3, "float64": 4, "double": 4, "fp32": 3}
_CAST_METHODS = {"half": "float16", "bfloat16": "bfloat16"}
_UPCAST_METHODS = {"float": "float32", "double": "float64"}
_JIT_DECORATORS = {"jit", "autotune", "heuristics", "kernel", "constexpr_function", "builtin", "must_use_result"}


# --- the analysis --------------------------------------------------------------------------------------

def check_file(path: str, entry: str, dtypes: Optional[Sequence[str]] = None,
               scalars: Sequence[str] = ()) -> list[Finding]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return check_source(handle.read(), entry, dtypes, scalars)


def answer(request: dict) -> dict:
    """The worker protocol's `static_check` request ({code, entry, dtypes?, scalars?}): either role answers it, in
    its own process; the source is compiled, never run. A source the import of candidate.py would refuse is
    answered with `syntax_error`, the message the child would give: the executor ends the evaluation there."""
    findings = check_source(request["code"], request["entry"], request.get("dtypes"), request.get("scalars") or ())
    reply = {"ok": True, "findings": [finding.as_dict() for finding in findings]}
    refused = syntax_error_of(request["code"])
    if refused is not None:
        reply["syntax_error"] = refused
    return reply


def check_source(source: str, entry: str, dtypes: Optional[Sequence[str]] = None,
                 scalars: Sequence[str] = ()) -> list[Finding]:
    """The findings, sorted by line, one per (code, line)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return _Analysis(tree, entry, dtypes, scalars).run()


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_jit(function: ast.AST) -> bool:
    for decorator in getattr(function, "decorator_list", []):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = _dotted(target) or ""
        if name.split(".")[-1] in _JIT_DECORATORS and (name.split(".")[0] in {"triton", "tl", "gluon", "ttgl"}
                                                      or name in {"jit", "autotune", "heuristics"}
                                                      or ".jit" in name or "gluon" in name or "triton" in name):
            return True
    return False


class _Analysis:
    def __init__(self, tree: ast.Module, entry: str, dtypes: Optional[Sequence[str]], scalars: Sequence[str]) -> None:
        self.tree = tree
        self.scalars = set(scalars)
        self.entry = entry
        self.task_rank = min((_FLOAT_RANK[d] for d in (dtypes or []) if d in _FLOAT_RANK), default=None)
        self.findings: dict[tuple[str, int], Finding] = {}
        self.aliases: dict[str, str] = {}       # local name -> dotted module path
        self.functions: dict[str, list[ast.AST]] = {}  # name -> defs (functions and classes)
        self.module_containers: set[str] = set()  # module-level names bound to dict/list/set/OrderedDict
        self.module_names: set[str] = set()
        self.jit_nodes: set[int] = set()
        self.keys: set[tuple[str, str]] = set()

    # helpers
    def add(self, code: str, node: ast.AST, message: str, key: Optional[str] = None) -> None:
        """One finding per (code, line); with a key, one per (code, key) in the whole file."""
        if key is not None:
            if (code, key) in self.keys:
                return
            self.keys.add((code, key))
        line = getattr(node, "lineno", 0)
        self.findings.setdefault((code, line), Finding(code, line, message))

    def resolve(self, node: ast.AST) -> Optional[str]:
        """The dotted name with import aliases resolved: F.softmax -> torch.nn.functional.softmax."""
        name = _dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
            return base + ("." + rest if rest else "")
        return name

    def is_module_ref(self, node: ast.AST) -> bool:
        name = _dotted(node)
        return name is not None and name.split(".")[0] in self.aliases

    # passes
    def run(self) -> list[Finding]:
        self.collect_module()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_jit(node):
                for inner in ast.walk(node):
                    self.jit_nodes.add(id(inner))
        self.whole_file_checks()
        host = self.reachable()
        for function in host:
            self.host_checks(function, is_entry=getattr(function, "name", None) == self.entry)
        if self.task_rank is not None:
            self.kernel_cast_checks()
        return sorted(self.findings.values(), key=lambda f: (f.line, f.code))

    def collect_module(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        self.aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.module_names.add(target.id)
                        if value is not None and _is_container(value):
                            self.module_containers.add(target.id)
                        elif value is not None and isinstance(value, (ast.Attribute, ast.Name)) \
                                and self.is_module_ref(value) and target.id not in self.aliases:
                            self.aliases[target.id] = self.resolve(value)  # E = torch.cuda.Event
        # nested defs and methods are reachable through their parents; index them by name too
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node not in self.tree.body:
                self.functions.setdefault(node.name, []).append(node)

    def reachable(self) -> list[ast.AST]:
        """The entry function and every def/class it reaches by name, plus what module-level code calls."""
        roots: list[ast.AST] = list(self.functions.get(self.entry, []))
        module_code = [n for n in self.tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                       ast.ClassDef, ast.Import, ast.ImportFrom))]
        seen: set[int] = set()
        order: list[ast.AST] = []
        pending = roots + [_names_in(module_code, self)]
        while pending:
            node = pending.pop()
            if isinstance(node, set):  # names referenced by module-level code
                for name in node:
                    pending.extend(self.functions.get(name, []))
                continue
            if id(node) in seen or id(node) in self.jit_nodes or _is_jit(node):
                continue
            seen.add(id(node))
            order.append(node)
            for name in _names_in([node], self):
                pending.extend(self.functions.get(name, []))
        return order

    def whole_file_checks(self) -> None:
        docstrings = set()
        for node in ast.walk(self.tree):
            body = getattr(node, "body", None)
            for statement in body if isinstance(body, list) else []:
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    docstrings.add(id(statement.value))  # docstrings and bare strings do nothing
        for node in ast.walk(self.tree):
            if id(node) in docstrings:
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if isinstance(node, ast.ImportFrom):
                    modules += [f"{node.module}.{a.name}" for a in node.names]
                for module in modules:
                    if any(module == m or module.startswith(m + ".") for m in _NATIVE_MODULES):
                        self.add("native-access", node, f"imports {module}: native code the Triton checks cannot see")
                        break
                for module in modules:
                    if any(module == m or module.startswith(m + ".") for m in _NETWORK_MODULES):
                        self.add("network", node, f"imports {module}: the network is refused to candidates")
                        break
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                lowered = node.value.lower()
                if any(word in lowered for word in _L2_WORDS):
                    self.add("l2-persist", node, f"string {node.value[:60]!r} names L2 persistence or a stream "
                                                 "attribute", key="strings")
                if ".so" in lowered and ("cuda" in lowered or "cudart" in lowered or "cublas" in lowered):
                    self.add("native-access", node, f"loads the native library {node.value[:60]!r}",
                             key=node.value)
                if (node.value.rstrip("/") == "/proc" or node.value.startswith("/proc/")) \
                        and not node.value.startswith(("/proc/self", "/proc/thread-self")):
                    self.add("process-access", node, f"string {node.value[:60]!r} names other processes' /proc "
                                                     "entries", key="strings")
            if isinstance(node, (ast.Attribute, ast.Name)):
                name = (node.attr if isinstance(node, ast.Attribute) else node.id).lower()
                if any(word in name for word in _L2_WORDS):
                    self.add("l2-persist", node, f"uses {self.resolve(node) or name}: L2 persistence or a stream "
                                                 "attribute changes what the timer measures", key=name)
                resolved = self.resolve(node) if isinstance(node, ast.Attribute) else None
                if resolved and any(resolved == m or resolved.startswith(m + ".") for m in _NATIVE_MODULES) \
                        and resolved.split(".")[0] in self.aliases:
                    self.add("native-access", node, f"uses {resolved}", key=resolved.split(".")[0])
            if isinstance(node, ast.Call):
                self.call_checks_everywhere(node)
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for target in targets:
                    for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                        self.patch_target(element, node)

    def patch_target(self, target: ast.AST, node: ast.AST) -> None:
        if isinstance(target, ast.Attribute):
            resolved = self.resolve(target)
            base = self.resolve(target.value)
            if resolved and base and resolved.split(".")[0] in _PATCH_MODULES and \
                    target.value and _dotted(target.value) and _dotted(target.value).split(".")[0] in self.aliases:
                verb = "deletes" if isinstance(node, ast.Delete) else "replaces"
                self.add("monkeypatch", node, f"{verb} {resolved}")
        elif isinstance(target, ast.Subscript):
            base = self.resolve(target.value) or ""
            if base in {"sys.modules", "__builtins__", "builtins.__dict__"} or base.endswith(".__dict__") \
                    and base.split(".")[0] in _PATCH_MODULES:
                self.add("monkeypatch", node, f"writes {base}[...]")

    def call_checks_everywhere(self, node: ast.Call) -> None:
        name = self.resolve(node.func) or ""
        if name in _TORCH_STREAM_CALLS or (name.startswith("torch.") and name.endswith("Stream")):
            self.add("stream", node, f"{name}(): work on another stream (or a CUDA graph) can escape the timer")
        elif name in _THREAD_CALLS or (name.startswith(_THREAD_MODULES) and name not in _THREAD_HARMLESS):
            self.add("thread", node, f"{name}(): work in another thread or process can finish after the timer")
        elif name in _PROCESS_CALLS:
            self.add("process-access", node, f"{name}(): a signal can reach any process of the same user")
        elif name in _DYNAMIC_CALLS or name.startswith("importlib."):
            if name in {"getattr", "vars"} and not self._touches_module(node):
                return
            if name in {"setattr", "delattr"} and self._touches_module(node):
                attribute = _short(node.args[1]) if len(node.args) > 1 else "?"
                self.add("monkeypatch", node, f"{name}({self.resolve(node.args[0])}, {attribute}): "
                                              f"replaces {self.resolve(node.args[0])}.{attribute.strip(chr(39) + chr(34))}")
                return
            if name in {"setattr", "delattr", "globals"}:
                return
            self.add("dynamic-access", node, f"{name}(): names the static checks cannot follow")
        if name.startswith("torch.cuda.") and any(w in name.lower() for w in ("cudart", "_utils", "_C")):
            self.add("native-access", node, f"{name}(): the CUDA runtime directly")

    def _touches_module(self, node: ast.Call) -> bool:
        if not node.args:
            return False
        first = node.args[0]
        resolved = self.resolve(first) if isinstance(first, (ast.Name, ast.Attribute)) else None
        return bool(resolved and self.is_module_ref(first) and resolved.split(".")[0] in _PATCH_MODULES)

    def host_checks(self, function: ast.AST, is_entry: bool) -> None:
        if isinstance(function, ast.ClassDef):
            return  # its methods are visited on their own
        tensors = _tensor_names(function, self, is_entry)
        has_down, upcasts = False, []
        for decorator in getattr(function, "decorator_list", []):
            name = self.resolve(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
            if name.split(".")[-1] in {"cache", "lru_cache", "cached_property", "cached"}:
                self.add("cache", decorator, f"@{name} on {function.name}: results kept across calls")
        for default in getattr(getattr(function, "args", None), "defaults", []) or []:
            if _is_container(default):
                self.add("cache", default, f"mutable default argument of {function.name}: state kept across calls")
        global_names: set[str] = set()
        for node in _walk_host(function, self.jit_nodes):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                global_names.update(node.names)
                self.add("cache", node, f"`{type(node).__name__.lower()} {', '.join(node.names)}` in "
                                        f"{function.name}: state kept across calls")
            elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                self.try_check(node)
            elif isinstance(node, ast.With):
                for item in node.items:
                    expr = item.context_expr
                    name = self.resolve(expr.func if isinstance(expr, ast.Call) else expr) or ""
                    if name in {"contextlib.suppress", "suppress"}:
                        self.add("try-fallback", node, "contextlib.suppress() hides a failing launch")
            elif isinstance(node, ast.BinOp) and (_tensorish(node.left, tensors, self)
                                                  or _tensorish(node.right, tensors, self)):
                if isinstance(node.op, ast.MatMult) or not _maybe_scalar(node, tensors, is_entry, function):
                    self.add("torch-compute", node, f"tensor arithmetic `{_short(node)}` in host code: a PyTorch "
                                                    "kernel, not yours" + (" (cuBLAS)" if isinstance(node.op, ast.MatMult)
                                                                           else ""))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in tensors:
                self.add("torch-compute", node, f"in-place tensor arithmetic on `{node.target.id}` in host code")
            elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in tensors \
                    and all(_tensorish(c, tensors, self) for c in node.comparators):
                self.add("torch-compute", node, f"tensor comparison `{_short(node)}` in host code")
            elif isinstance(node, ast.Call):
                kind = self.host_call(node, tensors)
                if kind == "down":
                    has_down = True
                elif kind == "up":
                    upcasts.append(node)
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    self.cache_target(target, node, function, global_names)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in {"setdefault", "update", "append", "__setitem__", "add", "extend", "insert"}:
                base = node.func.value
                if isinstance(base, ast.Name) and base.id in self.module_containers:
                    self.add("cache", node, f"{base.id}.{node.func.attr}(...) in {function.name}: a module-level "
                                            "container written on every call" + _key_hint(node.args, self))
        if has_down:
            for node in upcasts:
                self.add("precision-cast", node, f"`{_short(node)}` casts back up after a lower-precision step")

    def cache_target(self, target: ast.AST, node: ast.AST, function: ast.AST, global_names: set[str]) -> None:
        if isinstance(target, ast.Subscript):
            base = target.value
            if isinstance(base, ast.Name) and (base.id in self.module_containers or base.id in global_names):
                self.add("cache", node, f"{base.id}[...] = ... in {function.name}: a module-level container "
                                        "written on every call" + _key_hint(_key_sources(target.slice, function),
                                                                            self))
            elif isinstance(base, ast.Attribute) and _dotted(base) and _dotted(base).split(".")[0] in self.functions:
                self.add("cache", node, f"{_dotted(base)}[...] written in {function.name}: state kept across calls"
                         + _key_hint([target.slice], self))
        elif isinstance(target, ast.Attribute):
            root = _dotted(target)
            if root and root.split(".")[0] in self.functions and root.split(".")[0] not in self.aliases:
                self.add("cache", node, f"{root} = ... in {function.name}: a function attribute kept across calls")

    def try_check(self, node: ast.AST) -> None:
        handlers = getattr(node, "handlers", [])
        for handler in handlers:
            body = [s for s in handler.body if not isinstance(s, (ast.Pass, ast.Expr)) or
                    (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call))]
            reraises = any(isinstance(s, ast.Raise) for s in ast.walk(handler))
            if not reraises:
                caught = _short(handler.type) if handler.type is not None else "everything"
                self.add("try-fallback", handler, f"`except {caught}` does not re-raise: a fallback when the "
                                                  "kernel fails" + (" (it swallows the error)" if not body else ""))

    def host_call(self, node: ast.Call, tensors: set[str]) -> str:
        """Reports a PyTorch compute call; returns "down"/"up" for precision casts."""
        name = self.resolve(node.func) or ""
        if name.startswith("torch."):
            rest = name[len("torch."):]
            if name in _TORCH_STREAM_CALLS:
                return ""
            if rest.startswith("cuda."):
                if rest[len("cuda."):].split(".")[0] not in _TORCH_CUDA_ALLOWED and not rest.startswith("cuda.Stream"):
                    self.add("torch-compute", node, f"{name}() in host code")
                return ""
            if name.startswith(_TORCH_FUNCTIONAL_PREFIXES) or "." not in rest and rest not in _TORCH_ALLOWED:
                if name.startswith("torch.nn.") and not name.startswith("torch.nn.functional"):
                    message = f"{name}(): a PyTorch module computes in host code"
                else:
                    message = f"{name}(): PyTorch computes this, not the candidate's kernel"
                if name.split(".")[-1] in {"_scaled_mm", "mm", "bmm", "matmul", "addmm", "baddbmm", "linear",
                                           "einsum", "tensordot", "_int_mm", "_grouped_mm", "_scaled_grouped_mm"}:
                    message += " (cuBLAS)"
                self.add("torch-compute", node, message)
                return ""
            return ""
        if not isinstance(node.func, ast.Attribute) or self.is_module_ref(node.func.value):
            return ""
        method = node.func.attr
        receiver = node.func.value
        tensor_receiver = _tensorish(receiver, tensors, self) or _dotted(receiver) is None \
            or (isinstance(receiver, ast.Name) and receiver.id in tensors)
        if method in _CAST_METHODS:
            self.add("precision-cast", node, f"`.{method}()` casts to {_CAST_METHODS[method]} in host code")
            return "down"
        if method in _UPCAST_METHODS:
            return "up"
        if method in {"to", "type"}:
            target = _cast_target(node, self)
            if target in _LOW_FLOATS:
                self.add("precision-cast", node, f"`{_short(node)}` casts to {target} in host code")
                return "down"
            if target in {"float32", "float", "float64", "double"}:
                return "up"
            return ""
        if method in _TENSOR_COMPUTE_METHODS and (tensor_receiver or isinstance(receiver, ast.Name)):
            if isinstance(receiver, ast.Name) and receiver.id not in tensors and method in {"add", "update", "append",
                                                                                            "insert", "sort", "count",
                                                                                            "index", "copy"}:
                return ""
            self.add("torch-compute", node, f"`.{method}()` on a tensor in host code: a PyTorch kernel, not yours")
        return ""

    def kernel_cast_checks(self) -> None:
        for node in ast.walk(self.tree):
            if id(node) not in self.jit_nodes or not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr in {"to", "cast"}:
                target = _cast_target(node, self)
                if target in _FLOAT_RANK and _FLOAT_RANK[target] < self.task_rank:
                    self.add("precision-cast", node, f"`{_short(node)}` in a kernel: {target} is below the task's "
                                                     "precision")


# --- small helpers ------------------------------------------------------------------------------------

def _is_container(node: ast.AST) -> bool:
    if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        name = _dotted(node.func) or ""
        return name.split(".")[-1] in {"dict", "list", "set", "OrderedDict", "defaultdict", "WeakValueDictionary",
                                       "WeakKeyDictionary", "deque", "Counter"}
    return False


def _maybe_scalar(node: ast.BinOp, tensors: set[str], is_entry: bool, function: ast.AST) -> bool:
    """`eps * 2` where eps is an unannotated entry parameter: a Python number as likely as a tensor."""
    sides = (node.left, node.right)
    if not any(_is_number(side) for side in sides):
        return False
    params = {a.arg: a for a in function.args.args} if is_entry else {}
    return any(isinstance(side, ast.Name) and side.id in params and params[side.id].annotation is None
               for side in sides)


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) or \
        isinstance(node, ast.UnaryOp) and _is_number(node.operand)


def _short(node: Optional[ast.AST]) -> str:
    if node is None:
        return ""
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover
        return type(node).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _key_hint(nodes: Iterable[ast.AST], analysis: "_Analysis") -> str:
    keys = set()
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "data_ptr":
                keys.add("data_ptr")
            elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in {"id", "hash"}:
                keys.add(inner.func.id)
            elif isinstance(inner, ast.Attribute) and inner.attr in {"shape", "size", "numel"}:
                keys.add("shape")
            elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in {"size",
                                                                                                             "numel"}:
                keys.add("shape")
    return f" (keyed on {', '.join(sorted(keys))})" if keys else ""


def _key_sources(key: ast.AST, function: ast.AST) -> list[ast.AST]:
    """The key expression, and what a key variable was assigned from in the function."""
    sources = [key]
    names = {n.id for n in ast.walk(key) if isinstance(n, ast.Name)}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
            sources.append(node.value)
    return sources


def _cast_target(node: ast.Call, analysis: "_Analysis") -> Optional[str]:
    candidates = list(node.args) + [k.value for k in node.keywords if k.arg in {"dtype", None}]
    for arg in candidates:
        name = analysis.resolve(arg) if isinstance(arg, (ast.Name, ast.Attribute)) else None
        if name:
            leaf = name.split(".")[-1]
            if leaf in _FLOAT_RANK:
                return leaf
            if leaf in {"HalfTensor"}:
                return "float16"
            if leaf in {"BFloat16Tensor"}:
                return "bfloat16"
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            leaf = arg.value.split(".")[-1]
            if leaf in _FLOAT_RANK:
                return leaf
    return None


def _walk_host(function: ast.AST, jit_nodes: set[int]):
    """Every node of a host function, not descending into kernels or into nested classes' jit bodies."""
    stack = [function]
    while stack:
        node = stack.pop()
        if id(node) in jit_nodes:
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _names_in(nodes: list[ast.AST], analysis: "_Analysis") -> set[str]:
    names = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)  # methods called through an instance: a class's method of that name
    return names


def _tensor_names(function: ast.AST, analysis: "_Analysis", is_entry: bool) -> set[str]:
    """Names that hold tensors: the entry's parameters (its inputs are tensors or numbers), parameters
    annotated torch.Tensor, and names assigned from tensor-valued expressions (flow-insensitive)."""
    tensors: set[str] = set()
    args = getattr(function, "args", None)
    if args is not None:
        for arg in args.posonlyargs + args.args + args.kwonlyargs + ([args.vararg] if args.vararg else []):
            annotation = analysis.resolve(arg.annotation) if arg.annotation is not None else None
            if annotation in {"torch.Tensor", "Tensor"} or (is_entry and annotation is None and arg.arg != "self"):
                tensors.add(arg.arg)
            if annotation in {"int", "float", "bool", "str"} or (is_entry and arg.arg in analysis.scalars):
                tensors.discard(arg.arg)
    assignments = [n for n in _walk_host(function, analysis.jit_nodes) if isinstance(n, ast.Assign)]
    changed = True
    while changed:
        changed = False
        for node in assignments:
            if _tensorish(node.value, tensors, analysis):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id not in tensors:
                        tensors.add(target.id)
                        changed = True
    return tensors


def _tensorish(node: ast.AST, tensors: set[str], analysis: "_Analysis") -> bool:
    if isinstance(node, ast.Name):
        return node.id in tensors
    if isinstance(node, ast.Subscript):
        return _tensorish(node.value, tensors, analysis)
    if isinstance(node, ast.BinOp):
        return _tensorish(node.left, tensors, analysis) or _tensorish(node.right, tensors, analysis)
    if isinstance(node, ast.UnaryOp):
        return _tensorish(node.operand, tensors, analysis)
    if isinstance(node, ast.Call):
        name = analysis.resolve(node.func) or ""
        if name.startswith("torch.") and name.split(".")[-1] not in {"Stream", "Event", "device", "dtype", "finfo",
                                                                      "iinfo", "Size", "no_grad", "inference_mode"} \
                and not name.startswith("torch.cuda."):
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr not in _METADATA_METHODS \
                and _tensorish(node.func.value, tensors, analysis):
            return True
    return False
