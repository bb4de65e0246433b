"""provenance: real kernel names from cuBLAS, ATen, NCCL, torch.compile, flash attention, and Triton kernels."""
import pytest

from tritongym_worker.provenance import is_library_kernel, library_family, summarize

# Names as profilers reported them in public traces (nsys / torch.profiler / nvprof), mangled and demangled.
LIBRARY = {
    "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas":
        "cublas",
    "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT": "cublas",
    "nvjet_tst_192x192_64x3_2x1_v_bz_coopB_NTN": "cublas",
    "nvjet_sm90_hss_320x128": "cublas",
    "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_nn": "cublas",
    "ampere_bf16_s1688gemm_bf16_128x128_ldg8_f2f_stages_32x1_nn": "cublas",
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(float)": "cublas",
    "void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_f16_256x128_32x3_nn_align8>(Params)": "cutlass",
    "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)": "aten",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)": "aten",
    "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14"
    "TensorIteratorEEUlffE_EEjfLi4EEEEEvT1_": "aten",
    "_ZN2at6native6modern18elementwise_kernelILi4ELi64ELi4EZZZNS0_15add_kernel_cudaERNS_14TensorIteratorEN3c106"
    "ScalarEENKUlvE_clEvENKUlvE2_clEvEUlffE_NS_6detail5ArrayIPcLi3EEEEEviT2_T3_": "aten",
    "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<...>>": "aten",
    "void at::native::vectorized_gather_kernel<16, long>": "aten",
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>": "aten",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>": "aten",
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*)":
        "aten",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)": "nccl",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)": "nccl",
    "triton_poi_fused_add_0": "torch.compile",
    "triton_red_fused_sum_0": "torch.compile",
    "triton_per_fused__softmax_0": "torch.compile",
    "triton_tem_fused_mm_0": "torch.compile",
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t>>":
        "flash-attention",
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<(int)32, (int)128, (int)128, (int)4, (bool)0>>(Flash_fwd_params)":
        "flash-attention",
    "fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t>::Params)":
        "flash-attention",
    "sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_"
    "g1_tensor16x8x16_execute_kernel__5x_cudnn": "cudnn",
    "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams)":
        "cudnn",
    "void at_cuda_detail::cub::DeviceScanKernel<at_cuda_detail::cub::DeviceScanPolicy<float>::Policy900>": "cub",
    "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<float, int>>": "cub",
}

# What Triton reports for kernels a candidate writes: its Python function's name.
CANDIDATE = ["_add_kernel", "add_kernel", "_matmul_kernel", "matmul_kernel_persistent", "_fp8_matmul_kernel",
             "flash_fwd_kernel", "_attn_fwd", "reduce_kernel", "softmax_warp_forward", "winograd_conv",
             "_layer_norm_fwd", "gemm_kernel", "elementwise_kernel", "_pad_rows_kernel", "dot_kernel"]


@pytest.mark.parametrize("name,family", list(LIBRARY.items()))
def test_library_names(name, family):
    assert library_family(name) == family
    assert is_library_kernel(name, [])


@pytest.mark.parametrize("name", CANDIDATE)
def test_candidate_names(name):
    assert library_family(name) is None
    assert not is_library_kernel(name, [])


def test_allowed_by_family_or_glob():
    name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 2ul>>"
    assert is_library_kernel(name, [])
    assert not is_library_kernel(name, ["aten"])
    assert not is_library_kernel(name, ["*FillFunctor*"])
    assert is_library_kernel(name, ["cublas", "*splitKreduce*"])


def test_summary_of_a_kernel_solution():
    summary = summarize([{"name": "_add_kernel", "duration_ns": 9000},
                         {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
                          "duration_ns": 1000}])
    assert summary["kernel_solution"] and summary["reason"] == ""
    assert summary["library_fraction"] == pytest.approx(0.1)
    assert summary["candidate_kernel_count"] == 1 and summary["library_launches"] == 1


def test_summary_of_a_library_call():
    summary = summarize([{"name": "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "duration_ns": 50_000}] * 3)
    assert not summary["kernel_solution"]
    assert summary["candidate_kernel_count"] == 0
    assert "no kernel written by the candidate ran" in summary["reason"]
    assert summary["kernels"][0]["launches"] == 3


def test_summary_of_a_decoy_kernel():
    summary = summarize([("_warmup_kernel", 2_000),
                         ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                          "std::array<char*, 3ul> >", 98_000)])
    assert not summary["kernel_solution"]
    assert "98% of the GPU time is in library kernels" in summary["reason"]


def test_summary_when_nothing_ran():
    summary = summarize([])
    assert not summary["kernel_solution"]
    assert "no kernel ran in the timed call" in summary["reason"]


def test_allowed_library_time_does_not_count():
    kernels = [("_matmul_kernel", 10.0), ("void cublasLt::splitKreduce_kernel<32, 16, int, float>", 30.0)]
    assert not summarize(kernels)["kernel_solution"]
    allowed = summarize(kernels, allowed=["cublas"])
    assert allowed["kernel_solution"] and allowed["allowed_ns"] == 30.0


def test_foreign_kernels_with_candidate_names():
    kernels = [("_add_kernel", 1.0), ("my_inline_cuda_add", 9.0)]
    assert summarize(kernels)["kernel_solution"]  # without names, an unknown kernel is the candidate's
    foreign = summarize(kernels, candidate_names={"_add_kernel"})
    assert not foreign["kernel_solution"] and foreign["foreign_ns"] == 9.0


def test_durations_in_other_units():
    summary = summarize([{"name": "_add_kernel", "seconds": 1e-6}, {"name": "_add_kernel", "start": 10, "end": 30}])
    assert summary["candidate_ns"] == pytest.approx(1020.0)
