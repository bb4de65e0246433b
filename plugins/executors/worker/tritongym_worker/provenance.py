"""Which kernels ran, and whose they are: the candidate's own, or a library's (cuBLAS, cuDNN, ATen, ...).

API (pure; no torch, no CUDA):

    library_family(name: str) -> str | None
        "cublas", "cutlass", "cudnn", "aten", "cub", "nccl", "flash-attention", "cufft", "curand" or
        "torch.compile" for a kernel name (mangled as CUPTI reports it, or demangled as nsys/ncu show it);
        None for anything else (a Triton kernel's name is its Python function's name: `_add_kernel`).
    is_library_kernel(name: str, allowed: Sequence[str] = ()) -> bool
        True for a library kernel the task does not allow. `allowed` holds family names ("cublas",
        "aten", ...) or fnmatch globs on the kernel name ("*splitKreduce*").
    summarize(kernels, allowed=(), candidate_names=None, max_library_fraction=0.5) -> dict
        kernels: an iterable of mappings {"name": str, "duration_ns": int|float} (also accepted:
        "ns"/"duration"/"seconds" keys, or (name, duration_ns) pairs): every kernel CUPTI recorded in
        the timed window, every launch (one record per launch).
        candidate_names: the names of the kernels the candidate's module compiled (diagnostics'
        compiled_kernels); when given, a kernel that is neither a library's nor in this set is
        "foreign" (e.g. from inline CUDA) and counts like library time.
        Returns {"total_ns", "candidate_ns", "library_ns", "allowed_ns", "foreign_ns",
                 "library_fraction", "candidate_kernel_count", "candidate_launches", "library_launches",
                 "kernels": [{"name", "family", "kind", "launches", "ns"}...] (by time, at most 20),
                 "kernel_solution": bool, "reason": str}
        `reason` is "" for a kernel solution, else it starts with "not a kernel solution: " and then
        either "no kernel ran in the timed call" / "no kernel written by the candidate ran" or
        "NN% of the GPU time is in library kernels".

Names come from real profiles (cuBLAS `sm90_xmma_gemm_..._cublas`, `nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT`,
`ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_nn`; ATen `void at::native::vectorized_elementwise_kernel
<4, at::native::CUDAFunctor_add<float>, ...>` and `_ZN2at6native13reduce_kernelILi512ELi1E...`; NCCL
`ncclDevKernel_AllReduce_Sum_bf16_RING_LL`; torch.compile `triton_poi_fused_add_0`). A candidate that names its
own Triton kernel like a library kernel (`cutlass_gemm`, `triton_poi_x`) is counted as library: the patterns
win, so a disguise can only hurt the candidate. Plain words a candidate may well use (`flash_fwd`, `winograd`,
`reduce_kernel`) count as library only in C++ names (mangled, or with `<`, `::`, `(`), which a Triton kernel's
name never is.
"""
from __future__ import annotations

import fnmatch
import re
from typing import Any, Collection, Iterable, Mapping, Optional, Sequence

# (family, pattern, cpp_only). Searched anywhere in the name; the first match decides the family. A cpp_only
# pattern is a plain word a candidate could also use for its own Triton kernel (`flash_fwd`, `winograd`): it applies
# only to C++ names (mangled `_Z...`, or demangled with `<`, `::`, `(` or a space), which a Triton kernel's name,
# a Python identifier, never is.
_PATTERNS: tuple[tuple[str, re.Pattern[str], bool], ...] = tuple(
    (family, re.compile(pattern), cpp_only) for family, pattern, cpp_only in (
        # torch.compile / Inductor-generated Triton kernels (and Inductor's templates: mm, bmm, flex attention)
        ("torch.compile", r"^triton_(poi|red|per|tem|for|mm|bmm|spl|unk|fused|tma)_", False),
        ("nccl", r"^nccl|ncclDevKernel|ncclKernel", False),
        # cuDNN (before cuBLAS/CUTLASS: its names carry xmma and cutlass too)
        ("cudnn", r"cudnn|xmma_(fprop|dgrad|wgrad)|fprop_implicit_gemm", False),
        ("cudnn", r"implicit_convolve_sgemm|dgrad_engine|wgrad_alg|winograd|fft2d_r2c|fft2d_c2r|"
                  r"conv2d_grouped_direct_kernel|precomputed_convolve_sgemm|explicit_convolve_sgemm|"
                  r"generateWinogradTilesKernel|nchwToNhwcKernel|nhwcToNchwKernel", True),
        # flash / memory-efficient attention shipped with PyTorch or flash-attn
        ("flash-attention", r"pytorch_flash|fmha_cutlass|PyTorchMemEffAttention", False),
        ("flash-attention", r"flash_fwd|flash_bwd|fmha_|attention_kernel_batched|FlashAttn|flash::", True),
        # cuBLAS / cuBLASLt: Hopper nvjet, xmma, architecture-prefixed gemm kernels, legacy level-1/2/3 kernels
        ("cublas", r"cublas|nvjet|xmma|^(void )?(sm\d{2,3}|ampere|volta|turing|maxwell|hopper|ada|blackwell|kepler)_"
                   r".*(gemm|gemv|tensorop|s1688|s16816|h1688|h16816|i8816|trsm|syrk|herk)", False),
        ("cublas", r"gemv2[NT]_kernel|gemvx|gemvNSP|gemmk1_kernel|splitKreduce_kernel|gemmSN_[NT][NT]_kernel|"
                   r"reduce_1Block_kernel|dot_kernel|scal_kernel|axpy_kernel|magma_", True),
        # CUTLASS (also what cuBLASLt and PyTorch's fp8, grouped and rowwise-scaled gemms run)
        ("cutlass", r"cutlass|Cutlass|CUTLASS", False),
        # CUB / Thrust (torch.sort, cumsum, unique, topk and friends)
        ("cub", r"(^|[^a-zA-Z])cub[0-9]*::|at_cuda_detail.*cub|3cub|thrust::|6thrust", False),
        ("cub", r"DeviceScanKernel|DeviceRadixSort|DeviceReduceKernel|DeviceSegmentedRadixSort|DeviceSelectSweepKernel|"
                r"DeviceReduceSingleTileKernel|DeviceScanInitKernel|DeviceSegmentedReduceKernel", True),
        ("cufft", r"cufft", False),
        ("cufft", r"regular_fft|vector_fft|fft_kernel_r2c|fft_kernel_c2r|dpRadix", True),
        ("curand", r"curand", False),
        ("curand", r"philox|Philox", True),
        # ATen / PyTorch native kernels: namespaces at:: and c10:: (mangled _ZN2at, _ZN3c10), and PyTorch kernels
        # with well-known names that live in anonymous namespaces
        ("aten", r"at::|_ZN2at|2at6native|_ZN3c10|c10::|at_cuda_detail", False),
        ("aten", r"vectorized_elementwise_kernel|unrolled_elementwise_kernel|elementwise_kernel|"
                 r"index_elementwise_kernel|reduce_kernel|softmax_warp_forward|softmax_warp_backward|cunn_SoftMax|"
                 r"cunn_ClassNLLCriterion|CatArrayBatchedCopy|vectorized_layer_norm_kernel|RowwiseMomentsCUDAKernel|"
                 r"LayerNormForwardCUDAKernel|batch_norm_collect_statistics|batch_norm_transform|upsample_|"
                 r"max_pool_forward|avg_pool2d_out_cuda|im2col_kernel|col2im_kernel|indexSelectLargeIndex|"
                 r"indexSelectSmallIndex|embedding_backward|scatter_gather_elementwise_kernel|radixSortKVInPlace|"
                 r"gatherTopK|sortKeyValueInplace|bitonicSortKVInPlace|tensor_kernel_scan|"
                 r"distribution_elementwise_grid_stride_kernel|fused_dropout_kernel|multi_tensor_apply_kernel|"
                 r"CUDAFunctor|FillFunctor|direct_copy_kernel|f8f8bf16", True),
    ))


def _looks_cpp(name: str) -> bool:
    return name.startswith("_Z") or any(mark in name for mark in ("<", "::", "(", " "))


def library_family(name: str) -> Optional[str]:
    """The library a kernel name belongs to, or None (the candidate's own, or unknown)."""
    cpp = _looks_cpp(name)
    for family, pattern, cpp_only in _PATTERNS:
        if (cpp or not cpp_only) and pattern.search(name):
            return family
    return None


def _allowed(name: str, family: Optional[str], allowed: Sequence[str]) -> bool:
    for entry in allowed:
        if family is not None and entry.lower() == family:
            return True
        if any(ch in entry for ch in "*?[") and fnmatch.fnmatchcase(name, entry):
            return True
        if entry == name:
            return True
    return False


def is_library_kernel(name: str, allowed: Sequence[str] = ()) -> bool:
    """True for a library kernel that the task does not allow."""
    family = library_family(name)
    return family is not None and not _allowed(name, family, allowed)


def _record(kernel: Any) -> tuple[str, float]:
    if isinstance(kernel, Mapping):
        name = str(kernel.get("name", "?"))
        for key, scale in (("duration_ns", 1.0), ("ns", 1.0), ("duration", 1.0), ("seconds", 1e9), ("us", 1e3)):
            if key in kernel and kernel[key] is not None:
                return name, float(kernel[key]) * scale
        if "start" in kernel and "end" in kernel:
            return name, float(kernel["end"]) - float(kernel["start"])
        return name, 0.0
    name, duration = kernel
    return str(name), float(duration)


def summarize(kernels: Iterable[Any], allowed: Sequence[str] = (), candidate_names: Optional[Collection[str]] = None,
              max_library_fraction: float = 0.5) -> dict[str, Any]:
    """Time per kind of kernel, and whether this is a kernel solution (module docstring)."""
    per_name: dict[str, dict[str, Any]] = {}
    totals = {"candidate": 0.0, "library": 0.0, "allowed": 0.0, "foreign": 0.0}
    launches = {"candidate": 0, "library": 0, "allowed": 0, "foreign": 0}
    names = set(candidate_names) if candidate_names is not None else None
    for kernel in kernels:
        name, ns = _record(kernel)
        family = library_family(name)
        if family is not None:
            kind = "allowed" if _allowed(name, family, allowed) else "library"
        elif names is not None and name not in names and not _allowed(name, None, allowed):
            kind = "foreign"
        else:
            kind = "candidate"
        entry = per_name.setdefault(name, {"name": name, "family": family, "kind": kind, "launches": 0, "ns": 0.0})
        entry["launches"] += 1
        entry["ns"] += ns
        totals[kind] += ns
        launches[kind] += 1
    total = sum(totals.values())
    not_candidate = totals["library"] + totals["foreign"]
    fraction = not_candidate / total if total > 0 else 0.0
    candidate_kernels = sum(1 for e in per_name.values() if e["kind"] == "candidate")
    listing = sorted(per_name.values(), key=lambda e: -e["ns"])
    reason = ""
    if not per_name:
        reason = "not a kernel solution: no kernel ran in the timed call (a result computed or cached elsewhere)"
    elif candidate_kernels == 0:
        top = ", ".join(f"{_short(e['name'])} ({e['family'] or e['kind']})" for e in listing[:3]
                        if e["kind"] in ("library", "foreign"))
        reason = "not a kernel solution: no kernel written by the candidate ran" + (f"; only {top}" if top else "")
    elif total > 0 and fraction > max_library_fraction:
        top = ", ".join(f"{_short(e['name'])} ({e['family'] or e['kind']}, {100 * e['ns'] / total:.0f}%)"
                        for e in listing[:3] if e["kind"] in ("library", "foreign"))
        reason = (f"not a kernel solution: {100 * fraction:.0f}% of the GPU time is in library kernels"
                  + (f": {top}" if top else ""))
    return {
        "total_ns": total, "candidate_ns": totals["candidate"], "library_ns": totals["library"],
        "allowed_ns": totals["allowed"], "foreign_ns": totals["foreign"], "library_fraction": fraction,
        "candidate_kernel_count": candidate_kernels, "candidate_launches": launches["candidate"],
        "library_launches": launches["library"] + launches["foreign"],
        "kernels": [{**e, "ns": e["ns"]} for e in listing[:20]],
        "kernel_solution": not reason, "reason": reason,
    }


def _short(name: str, limit: int = 80) -> str:
    return name if len(name) <= limit else name[:limit - 3] + "..."
