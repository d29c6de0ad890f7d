"""Measured kernels against the scenario (Qt-free): the chip a file's device name stands
for, the op a kernel matches, and measured / T_lower."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofgui.model.catalog import Catalog
from roofgui.model.evaluate import evaluate_scenario
from roofgui.model.measured import Kernel, parse_measurements
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec
from roofgui.presentation.measured_match import (match_op, matmul_dims, place_kernels,
                                                 resolve_chip)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "measured"


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(user_dir=False)


@pytest.mark.parametrize("named, checked, chip, note", [
    ("NVIDIA A100-SXM4-80GB", ["a100-40gb", "a100-80gb"], "a100-80gb", ""),
    ("Tesla V100-DGXS-32GB", ["h100-sxm", "v100-sxm2"], "v100-sxm2", ""),
    ("h100-sxm", ["h100-pcie", "h100-sxm"], "h100-sxm", ""),
    ("AMD Instinct MI300X", ["mi300x"], "mi300x", ""),
    ("NVIDIA A100-SXM4-80GB", ["h100-sxm", "b200"], "h100-sxm",
     "NVIDIA A100-SXM4-80GB is a100-80gb, which is not checked: placed on h100-sxm"),
    ("Acme X9", ["b200"], "b200", "Acme X9 is not in the catalog: placed on b200"),
    (None, ["b200", "h100-sxm"], "b200",
     "the file names no chip: placed on the first checked chip, b200"),
])
def test_a_device_name_finds_its_chip(cat, named, checked, chip, note):
    got, said = resolve_chip(named, [cat.get(c) for c in checked], cat.chips.values())
    assert got.id == chip and said == note


def test_no_chip_checked_places_nothing(cat):
    assert resolve_chip("h100-sxm", [], cat.chips.values()) == (
        None, "no chip is checked: measured kernels are not placed")


def test_matmul_dims_from_recorded_shapes():
    assert matmul_dims("[[1024,512],[512,256]]") == [(1024, 512, 256)]  # mm
    assert matmul_dims("[[256],[8,1024],[1024,256]]") == [(8, 1024, 256)]  # addmm
    assert matmul_dims("[[4,8,64],[4,64,32]]") == [(32, 64, 32)]  # bmm: B = 4·8
    assert matmul_dims("[[8,64],[32,64],[32]]") == [(8, 64, 32)]  # linear: W[F, D]
    assert matmul_dims("[[8,64]]") == [] and matmul_dims(None) == [] and matmul_dims("[") == []


def _k(name, shape=None, op=None):
    return Kernel(name, 1, 1e-3, 1e9, 1e6, op=op, shape=shape)


def test_a_kernel_matches_by_name_then_by_shape():
    ops = [OpSpec("decode up-proj", "matmul", {"B": 16, "D": 64, "F": 32}),
           OpSpec("mm", "matmul", {"B": 8, "D": 64, "F": 32}),
           OpSpec("down", "matmul", {"B": 8, "D": 128, "F": 32},
                  shard=ShardSpec("D", 2, "scale-up"))]
    assert match_op(_k("Decode_Up_Proj_kernel"), ops) == (0, "name")
    assert match_op(_k("up"), ops) is None  # (a name under 3 characters matches nothing)
    assert match_op(_k("proj"), ops) == (0, "name")
    assert match_op(_k("sgemm", "[[8,64],[64,32]]", "aten::mm"), ops) == (1, "shape")
    assert match_op(_k("sgemm", "[[8,64],[64,16]]"), ops) is None
    assert match_op(_k("sgemm", "[[8,128],[128,32]]"), ops) == (2, "shape")  # whole


def test_measured_over_t_lower_of_the_matched_op(cat):
    sc = Scenario(chips=["h100-sxm"],
                  ops=[OpSpec("gemm 4096", "matmul", {"B": 4096, "D": 4096, "F": 8192})])
    ev = evaluate_scenario(sc, cat)
    placed, notes = place_kernels([parse_measurements(FIXTURES / "plain.csv")], ev.chips,
                                  sc.ops, ev.entries, cat.chips.values())
    assert notes == []
    gemm = placed[0]
    t = float(ev.entries[0].analysis.result.t_lower)
    assert gemm.match.op_name == "gemm 4096" and gemm.match.how == "name"
    assert gemm.match.t_lower == t and gemm.ratio == 0.001 / t
    assert gemm.cells()[9:] == ("gemm 4096 (name)", f"{0.001 / t:.2f}\u00d7")
    assert [p.match for p in placed[1:]] == [None, None]
