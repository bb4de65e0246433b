"""Warming Triton's compiler in the candidate fork server (warmup.py): it compiles a kernel for an explicit
target without initialising CUDA, which would leave the fork server unable to fork children that use it, and
a child forked after it compiles its own kernels as before."""
import os

import torch

from tritongym_worker.warmup import warm_triton_compiler


def test_it_compiles_without_initialising_cuda(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    done = warm_triton_compiler()
    assert done.get("compiled") is True, done
    assert not torch.cuda.is_initialized()
    assert done["seconds"] > 0
    # The helper module needs the CUDA driver library: built where there is one, said where there is none.
    assert done.get("helper_module") is True or "helper_module_error" in done


def test_a_child_forked_after_it_compiles_its_own_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    warm_triton_compiler()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            import triton
            import triton.language as tl
            from triton.backends.compiler import GPUTarget
            from triton.compiler import ASTSource

            @triton.jit
            def negate(x_ptr, BLOCK: tl.constexpr):
                offsets = tl.arange(0, BLOCK)
                tl.store(x_ptr + offsets, -tl.load(x_ptr + offsets))

            compiled = triton.compile(ASTSource(negate, {"x_ptr": "*fp32", "BLOCK": "constexpr"}, {(1,): 64}),
                                      target=GPUTarget("cuda", 80, 32))
            code = 0 if "negate" in compiled.asm["ptx"] else 2
        finally:
            os.write(write_fd, bytes([code]))
            os._exit(0)
    os.close(write_fd)
    said = os.read(read_fd, 1)
    os.waitpid(pid, 0)
    assert said == bytes([0])
