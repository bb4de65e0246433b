import torch
import triton
import triton.language as tl


# Grouped GEMM over the block-padded layout: one program per (row block of BLOCK_M slots, column block of
# BLOCK_N). BLOCK_M divides the alignment block BS, so a row block belongs to one expert. A rows are
# gathered by token (f // K), the expert's weight tile is read as a (BLOCK_K, BLOCK_N) view of w[e]^T, and
# tl.dot accumulates in float32; padding slots load zeros and are not stored. Programs are ordered in
# groups of GROUP_M row blocks per column block, so a weight tile is reused from L2 by the row blocks of its
# expert. Row blocks past the end (expert -1) exit at once.
def _fit(configs, args):
    """configs whose BLOCK_M divides the alignment block; for a small BS (the interpreter's shapes), one
    config with BLOCK_M = BS."""
    bs = args["BS"]
    fit = [c for c in configs if bs % c.kwargs["BLOCK_M"] == 0]
    if fit:
        return fit
    small = configs[0]
    return [triton.Config({**small.kwargs, "BLOCK_M": bs, "BLOCK_N": 32, "BLOCK_K": 32}, num_warps=4, num_stages=2)]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 16}, num_warps=4, num_stages=3),
    ],
    key=["N", "D", "BS", "n_align_blocks"],
    prune_configs_by={"early_config_prune": lambda configs, named_args, **kw: _fit(configs, {**named_args, **kw})},
)
@triton.jit
def _fused_moe_kernel(a_ptr, w_ptr, ids_ptr, eid_ptr, out_ptr, M, P, n_align_blocks,
                      N: tl.constexpr, D: tl.constexpr, K: tl.constexpr, BS: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_row_blocks = n_align_blocks * (BS // BLOCK_M)
    n_blocks_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * n_blocks_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_size = tl.minimum(num_row_blocks - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_size
    pid_n = (pid % per_group) // group_size
    expert = tl.load(eid_ptr + (pid_m * BLOCK_M) // BS)
    if expert < 0:
        return
    slots = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    f = tl.load(ids_ptr + slots, mask=slots < P, other=M)
    valid = f < M
    tok = tl.where(valid, f // K, 0).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + tok[:, None] * D + ks[None, :]
    w_ptrs = w_ptr + expert.to(tl.int64) * N * D + cols[None, :].to(tl.int64) * D + ks[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in range(0, D, BLOCK_K):
        kmask = (k0 + ks) < D
        av = tl.load(a_ptrs, mask=valid[:, None] & kmask[None, :], other=0.0)
        wv = tl.load(w_ptrs, mask=kmask[:, None] & cmask[None, :], other=0.0)
        acc = tl.dot(av, wv, acc)
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    out_ptrs = out_ptr + f.to(tl.int64)[:, None] * N + cols[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=valid[:, None] & cmask[None, :])


def fused_moe_gemm(a, w, sorted_token_ids, expert_ids, top_k, block_size):
    t, d = a.shape
    e, n, _ = w.shape
    m = t * top_k
    p = sorted_token_ids.numel()
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    n_align_blocks = expert_ids.numel()

    def grid(meta):
        return (n_align_blocks * (block_size // meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    _fused_moe_kernel[grid](a, w, sorted_token_ids, expert_ids, out, m, p, n_align_blocks, N=n, D=d, K=top_k,
                            BS=block_size)
    return out
