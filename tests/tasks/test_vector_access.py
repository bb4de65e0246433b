"""Oracles of memory-bound tasks keep 16-byte global accesses at their held-out shapes, checked without a GPU:
each kernel is compiled for sm_90 (PTX, through Triton's bundled ptxas) with the specialisation a launch at
that shape gets, and the PTX is searched for its global loads and stores.

Why: on the H200 (2026-11-30) the embedding oracle ran 0.22x of eager at D = 3000. A runtime integer that is
not a multiple of 16 is not specialised, a mask against it cannot be proven aligned, and every access became
a 2-byte one. The same held for vector-add and sgd-momentum-step at their odd held-out sizes, and for the
row kernels of l2-normalize-rows, quantize-int8-rows, softmax and logsumexp at rows of 3000 or 1000 elements,
and for transpose-2d's stores into rows of 1000 (runtime row lengths and strides; the oracles now make them
compile-time constants), and for mse-loss-grad and adam-step at their odd held-out sizes (full blocks now
unmasked)."""
import importlib.util
import os
import re

import pytest

triton = pytest.importorskip("triton")
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

TASKS = os.path.join(os.path.dirname(__file__), "..", "..", "tasks")
SM90 = GPUTarget("cuda", 90, 32)


def oracle(task):
    spec = importlib.util.spec_from_file_location(task.replace("/", "_"), os.path.join(TASKS, task, "oracle.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_ptx(kernel, types, values):
    """The PTX of `kernel` for sm_90, specialised as a launch with these argument `values` would be: each
    parameter the kernel declares constexpr gets its value; pointers are 16-byte aligned; an integer is
    known divisible by 16 only if its value is. `types` gives the Triton type of each runtime argument."""
    fn = kernel.fn if isinstance(kernel, triton.runtime.Autotuner) else kernel  # autotuned: the JIT function inside
    signature, constexprs, attrs = {}, {}, {}
    for index, param in enumerate(fn.params):
        name = param.name
        if param.is_constexpr:
            signature[name], constexprs[name] = "constexpr", values[name]
            continue
        signature[name] = types[name]
        if types[name].startswith("*") or (types[name].startswith("i") and values.get(name, 1) % 16 == 0):
            attrs[(index,)] = [["tt.divisibility", 16]]
    try:
        compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs),
                                  target=SM90)
    except Exception as error:
        if "ptxas" in str(error) or "backend" in str(error).lower():  # this Triton cannot target CUDA here
            pytest.skip(f"cannot compile for sm_90 here: {type(error).__name__}: {str(error)[:200]}")
        raise
    return compiled.asm["ptx"]


def vector_forms(ptx):
    return set(re.findall(r"\b(?:ld|st)\.global(?:\.[A-Za-z0-9_:]+)*\.v4\.b32", ptx))


def assert_vector_loads_and_stores(ptx):
    forms = vector_forms(ptx)
    assert any(form.startswith("ld.") for form in forms), f"no 16-byte load: {sorted(forms)}"
    assert any(form.startswith("st.") for form in forms), f"no 16-byte store: {sorted(forms)}"


def test_vector_add_at_an_odd_size_loads_and_stores_16_bytes_at_a_time():
    types = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"}
    assert_vector_loads_and_stores(compile_ptx(oracle("standard/vector-add")._add_kernel, types,
                                               {"n_elements": 16777259, "BLOCK": 4096}))


def test_sgd_momentum_step_at_an_odd_size_loads_and_stores_16_bytes_at_a_time():
    types = {"param_ptr": "*fp32", "grad_ptr": "*fp32", "buf_ptr": "*fp32", "new_param_ptr": "*fp32",
             "new_buf_ptr": "*fp32", "n": "i32", "lr": "fp32", "momentum": "fp32", "weight_decay": "fp32"}
    assert_vector_loads_and_stores(compile_ptx(oracle("standard/sgd-momentum-step")._sgd_kernel, types,
                                               {"n": 50000017, "BLOCK": 2048}))


@pytest.mark.parametrize("task,kernel_name", [("standard/gelu", "_gelu_kernel"),
                                              ("standard/leaky-relu-scale", "_leaky_relu_scale_kernel")])
def test_elementwise_oracles_at_an_odd_size_load_and_store_16_bytes_at_a_time(task, kernel_name):
    types = {"x_ptr": "*fp16", "out_ptr": "*fp16", "n_elements": "i32", "slope": "fp32", "scale": "fp32"}
    assert_vector_loads_and_stores(compile_ptx(getattr(oracle(task), kernel_name), types,
                                               {"n_elements": 9973 * 4099, "BLOCK": 8192}))


def test_mse_loss_grad_at_an_odd_size_loads_and_stores_16_bytes_at_a_time():
    types = {"pred_ptr": "*fp32", "target_ptr": "*fp32", "grad_ptr": "*fp32", "partial_ptr": "*fp32", "n": "i32",
             "grad_scale": "fp32"}
    assert_vector_loads_and_stores(compile_ptx(oracle("standard/mse-loss-grad")._mse_grad_kernel, types,
                                               {"n": 8191 * 3001, "BLOCK": 4096}))


def test_adam_step_at_an_odd_size_loads_and_stores_16_bytes_at_a_time():
    names = ["p_ptr", "g_ptr", "m_ptr", "v_ptr", "p_out", "m_out", "v_out"]
    scalars = ["decay", "beta1", "one_minus_beta1", "beta2", "one_minus_beta2", "step_size", "inv_sqrt_bias2", "eps"]
    types = {**{name: "*fp32" for name in names}, "n": "i32", **{name: "fp32" for name in scalars}}
    assert_vector_loads_and_stores(compile_ptx(oracle("standard/adam-step")._adamw_kernel, types,
                                               {"n": 25000003, "BLOCK": 2048}))


def test_embedding_with_a_row_length_that_is_not_a_multiple_of_16_copies_16_bytes_at_a_time():
    types = {"idx_ptr": "*i64", "w_ptr": "*fp16", "out_ptr": "*fp16", "T": "i32", "D": "i32"}
    ptx = compile_ptx(oracle("standard/embedding")._embedding_kernel, types,
                      {"T": 7 * 4097, "D": 3000, "BLOCK_R": 4, "BLOCK_D": 1024, "ALIGN": 8})
    assert_vector_loads_and_stores(ptx)
    assert not re.search(r"\bst\.global(?:\.[A-Za-z0-9_:]+)*\.b16\b", ptx), "2-byte stores"


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
def test_l2_normalize_rows_of_3000_elements_load_and_store_16_bytes_at_a_time(dtype):
    types = {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "n_cols": "i32", "eps": "fp32"}
    assert_vector_loads_and_stores(compile_ptx(oracle("standard/l2-normalize-rows")._l2_normalize_kernel, types,
                                               {"n_cols": 3000, "BLOCK": 4096}))


def test_quantize_int8_rows_of_3000_elements_loads_16_bytes_and_stores_8_at_a_time():
    types = {"x_ptr": "*fp16", "q_ptr": "*i8", "scale_ptr": "*fp32", "N": "i32"}
    ptx = compile_ptx(oracle("standard/quantize-int8-rows")._quantize_rows_kernel, types, {"N": 3000, "BLOCK": 4096})
    assert any(form.startswith("ld.") for form in vector_forms(ptx)), sorted(vector_forms(ptx))
    assert re.search(r"\bst\.global(?:\.[A-Za-z0-9_:]+)*\.v2\.b32", ptx), "the int8 row is stored byte by byte"


def test_softmax_rows_of_3000_elements_load_and_store_16_bytes_at_a_time():
    types = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "x_row_stride": "i32", "out_row_stride": "i32"}
    assert_vector_loads_and_stores(compile_ptx(oracle("standard/softmax")._softmax_kernel, types,
                                               {"n_cols": 3000, "x_row_stride": 3000, "out_row_stride": 3000,
                                                "BLOCK": 4096}))


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
def test_logsumexp_rows_of_1000_elements_load_16_bytes_at_a_time(dtype):
    types = {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "n_rows": "i32", "n_cols": "i32"}
    ptx = compile_ptx(oracle("standard/logsumexp")._lse_tile_kernel, types,
                      {"n_rows": 24577, "n_cols": 1000, "BLOCK_M": 4, "BLOCK_N": 1024})
    assert any(form.startswith("ld.") for form in vector_forms(ptx)), sorted(vector_forms(ptx))


def test_transpose_into_rows_of_1000_elements_stores_16_bytes_at_a_time():
    # The input rows (30011 elements) cannot be read in vectors; the output rows (M = 1000) can be written so.
    ptx = compile_ptx(oracle("standard/transpose-2d")._transpose_kernel,
                      {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32"},
                      {"M": 1000, "N": 30011, "BLOCK_M": 64, "BLOCK_N": 64})
    assert any(form.startswith("st.") for form in vector_forms(ptx)), sorted(vector_forms(ptx))
