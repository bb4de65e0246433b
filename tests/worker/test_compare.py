"""The reference worker's elementwise comparison (reference._compare_tensors), slice by slice: the
verdict, the first mismatch and the counts must not depend on where the slices fall."""
import math

import pytest
import torch

from tritongym_worker import reference


@pytest.fixture(params=[1 << 24, 7], ids=["one-slice", "many-slices"])
def chunk(request, monkeypatch):
    monkeypatch.setattr(reference, "COMPARE_CHUNK", request.param)
    return request.param


def test_equal_tensors_pass_with_zero_error(chunk):
    want = torch.randn(5, 9)
    verdict = reference._compare_tensors(want.clone(), want, 1e-5, 1e-5)
    assert verdict == {"max_abs": 0.0, "max_rel": 0.0, "mismatch": ""}


def test_the_first_mismatch_and_the_count_span_every_slice(chunk):
    want = torch.zeros(4, 10)
    got = want.clone()
    got[1, 3] = 0.5   # flat index 13: the second slice of 7
    got[3, 9] = -2.0  # flat index 39: the last slice
    verdict = reference._compare_tensors(got, want, 1e-3, 1e-3)
    assert verdict["mismatch"].startswith("[1, 3] = 0.5, expected 0 (2 of 40 elements outside")
    assert verdict["max_abs"] == 2.0


def test_within_tolerance_passes_and_reports_the_error(chunk):
    want = torch.ones(100)
    got = want + 1e-4
    verdict = reference._compare_tensors(got, want, 1e-3, 0.0)
    assert verdict["mismatch"] == ""
    assert verdict["max_abs"] == pytest.approx(1e-4, rel=1e-2)
    assert verdict["max_rel"] == pytest.approx(1e-4, rel=1e-2)


def test_nan_fails_unless_the_reference_has_it_too(chunk):
    want = torch.tensor([1.0, math.nan, math.inf, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    got = want.clone()
    assert reference._compare_tensors(got, want, 0.0, 0.0)["mismatch"] == ""
    got[8] = math.nan
    verdict = reference._compare_tensors(got, want, 1.0, 1.0)
    assert verdict["mismatch"].startswith("[8] = nan, expected 9")
    assert verdict["max_abs"] == math.inf


def test_integers_compare_exactly(chunk):
    want = torch.arange(30, dtype=torch.int32)
    got = want.clone()
    got[20] = 0
    verdict = reference._compare_tensors(got, want, 1e9, 1e9)  # tolerances do not apply to integers
    assert verdict["mismatch"] == "[20] = 0, expected 20"
    assert verdict["max_abs"] == 20.0


def test_half_precision_is_compared_in_double(chunk):
    want = torch.full((16,), 1024.0, dtype=torch.bfloat16)
    got = want.clone()
    got[15] = 1032.0  # one bf16 step above 1024
    verdict = reference._compare_tensors(got, want, 0.0, 1e-2)
    assert verdict["mismatch"] == "" and verdict["max_abs"] == 8.0
    assert reference._compare_tensors(got, want, 0.0, 1e-3)["mismatch"].startswith("[15] = 1032")


def test_an_output_file_that_is_a_link_is_not_read(tmp_path):
    # The files data plane: the candidate's output file sits in its own folder, where its code could replace it with
    # a link to the expected outputs (whose name it can guess from its inputs') and be compared with them.
    from tritongym_worker.reference import ReferenceRole

    expected = torch.arange(6.0)
    reference, inputs = tmp_path / "expected.pt", tmp_path / "inputs.pt"
    torch.save({"outputs": [expected]}, reference)
    torch.save({"inputs": [expected.clone()]}, inputs)
    folder = tmp_path / "candidate"
    folder.mkdir()
    case = {"key": "s/seed-0", "reference": str(reference), "inputs": str(inputs), "output": str(folder / "out-0.pt"),
            "dtype": "float32"}
    role = ReferenceRole("cpu")
    torch.save({"outputs": [expected.clone()], "inputs_unchanged": True}, folder / "out-0.pt")
    assert role.compare({"cases": [case]})["cases"][0]["passed"] is True  # a plain file is read
    (folder / "out-0.pt").unlink()
    (folder / "out-0.pt").symlink_to(reference)
    linked = role.compare({"cases": [case]})["cases"][0]
    assert linked["passed"] is False
    assert "could not be read" in linked["problem"]
