"""A candidate fork server on the CPU and a request of one case (8 floats, entry `double`), for the tests that run
real children through CandidateRole."""
import torch

from tritongym_worker.candidate import CandidateRole


def role(tmp_path):
    return CandidateRole("cpu", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0)


def request(tmp_path, code, timeout_s=30.0):
    inputs = tmp_path / "inputs" / "case.pt"
    if not inputs.exists():
        inputs.parent.mkdir()
        torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    return {"code": code, "entry": "double", "timeout_s": timeout_s,
            "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]}
