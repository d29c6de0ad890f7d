"""Hand-computed FLOPs and bytes for every op, dtype mix and shard axis.

The arithmetic is written out in each test, so a reader can check it with a
pencil.  Bytes per element are given here independently of the model's own
table: fp32/tf32 4, bf16/fp16 2, fp8 (both), int8 1, int4/fp4 0.5.
"""

import math

import numpy as np
import pytest

from roofgui.model.catalog import Catalog
from roofgui.model.chips import make_chip
from roofgui.model.dtypes import DTYPES, get_dtype
from roofgui.model.errors import ModelError
from roofgui.model.ops import OP_KINDS, Shard, op_work, validate_dims
from roofgui.model.roofline import (Result, Settings, analyze, chip_figures, critical_values_many,
                                    evaluate_many, evaluate_work, roofline)
from roofgui.model.units import MAX_VALUE, MIN_VALUE

BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1,
         "int8": 1, "int4": 0.5, "fp4": 0.5}

# A chip with round numbers, so every time below is easy to check by hand.
CHIP = make_chip("toy", "Toy", peak=1e14, hbm_bandwidth=1e12, links={"ici": 1e11, "pcie": 1e10},
                 matrix={"int8": 2e14, "fp8": 2e14, "fp32": 2.5e13, "int4": 4e14, "fp4": 4e14},
                 vector={"bf16": 1e13, "fp32": 5e12})


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


def f(a):
    return float(np.asarray(a))


# --------------------------------------------------------------------------- dtypes

def test_dtype_table_bytes_per_element():
    assert set(DTYPES) == set(BYTES)
    for name, b in BYTES.items():
        assert get_dtype(name).bytes == b
    assert get_dtype("int4").bytes == 0.5 and get_dtype("fp4").bytes == 0.5


@pytest.mark.parametrize("alias, name", [("fp8", "fp8_e4m3"), ("e5m2", "fp8_e5m2"), ("FP8-E5M2", "fp8_e5m2"),
                                         ("bfloat16", "bf16"), ("half", "fp16"), ("float32", "fp32"),
                                         ("i8", "int8"), (" BF16 ", "bf16")])
def test_dtype_aliases(alias, name):
    assert get_dtype(alias).name == name


@pytest.mark.parametrize("bad", ["fp9", "", "int3", "bf 16", None, 16, "∞"])
def test_unknown_dtype_is_a_model_error(bad):
    with pytest.raises(ModelError):
        get_dtype(bad)
    with pytest.raises(ModelError):
        op_work("matmul", {}, {"x": bad})


def test_unknown_dtype_role():
    with pytest.raises(ModelError, match="role"):
        op_work("matmul", {}, {"weights": "bf16"})


def test_fp8_variants_share_the_fp8_peak_and_one_byte():
    for name in ("fp8_e4m3", "fp8_e5m2"):
        d = get_dtype(name)
        assert d.bytes == 1 and d.peak_key == "fp8"
        a = analyze("matmul", {"B": 8, "D": 16, "F": 32}, CHIP, dtypes={r: name for r in ("x", "w", "out", "compute")})
        assert f(a.result.hbm_bytes) == 8 * 16 + 16 * 32 + 8 * 32  # 1 byte each = 768
        assert f(a.result.peak_flops) == 2e14


# --------------------------------------------------------------------------- matmul

def test_matmul_bf16_by_hand():
    w = op_work("matmul", {"B": 256, "D": 8192, "F": 8192})
    assert f(w.flops) == 34_359_738_368  # 2·256·8192·8192
    # X 256·8192·2 = 4,194,304; Y 8192·8192·2 = 134,217,728; Z 256·8192·2 = 4,194,304
    assert f(w.hbm_bytes) == 4_194_304 + 134_217_728 + 4_194_304 == 142_606_336
    assert f(w.net_bytes) == 0
    assert w.unit == "matrix" and w.compute.name == "bf16"


def test_matmul_times_by_hand():
    a = analyze("matmul", {"B": 100, "D": 1000, "F": 2000}, CHIP)
    r = a.result
    assert f(r.flops) == 400_000_000  # 2·100·1000·2000
    assert f(r.hbm_bytes) == 200_000 + 4_000_000 + 400_000  # 2·(100·1000 + 1000·2000 + 100·2000)
    assert f(r.t_math) == pytest.approx(4e8 / 1e14)  # 4 µs
    assert f(r.t_hbm) == pytest.approx(4.6e6 / 1e12)  # 4.6 µs
    assert f(r.t_net) == 0
    assert f(r.t_lower) == pytest.approx(4.6e-6)
    assert f(r.t_upper) == pytest.approx(8.6e-6)
    assert f(r.intensity) == pytest.approx(4e8 / 4.6e6)
    assert f(r.critical_intensity) == pytest.approx(100.0)  # 1e14 / 1e12
    assert f(r.attainable_flops) == pytest.approx(4e8 / 4.6e-6)
    assert f(r.utilisation) == pytest.approx(4 / 4.6)
    assert r.bound == "memory"


# Mixed-precision cases, each with the bytes written out by hand for B=8, D=16, F=32.
# X is B·D = 128 elements, Y is D·F = 512, Z is B·F = 256.
MIXES = [
    # (x, w, out, compute, expected HBM bytes, expected peak)
    ("bf16", "bf16", "bf16", "bf16", 128 * 2 + 512 * 2 + 256 * 2, 1e14),        # 1792
    ("int8", "int8", "int8", "int8", 128 + 512 + 256, 2e14),                    # 896
    ("bf16", "int8", "bf16", "bf16", 128 * 2 + 512 + 256 * 2, 1e14),            # 1280: int8 weights, bf16 compute
    ("bf16", "int4", "bf16", "bf16", 128 * 2 + 512 * 0.5 + 256 * 2, 1e14),      # 1024: int4 weights
    ("fp8_e4m3", "fp4", "bf16", "fp4", 128 + 512 * 0.5 + 256 * 2, 4e14),        # 896
    ("fp32", "fp32", "fp32", "fp32", 128 * 4 + 512 * 4 + 256 * 4, 2.5e13),      # 3584
    ("tf32", "tf32", "fp32", "tf32", 128 * 4 + 512 * 4 + 256 * 4, 2.5e13),      # tf32 runs at fp32 here
    ("fp16", "fp8_e5m2", "fp32", "fp8_e5m2", 128 * 2 + 512 + 256 * 4, 2e14),    # 1792
    ("int4", "int4", "int4", "int4", (128 + 512 + 256) * 0.5, 4e14),            # 448
    ("int8", "int4", "fp32", "int8", 128 + 512 * 0.5 + 256 * 4, 2e14),          # 1408
]


@pytest.mark.parametrize("x, w, out, compute, hbm, peak", MIXES)
def test_matmul_dtype_mixes_by_hand(x, w, out, compute, hbm, peak):
    a = analyze("matmul", {"B": 8, "D": 16, "F": 32}, CHIP,
                dtypes={"x": x, "w": w, "out": out, "compute": compute})
    assert f(a.result.flops) == 8192  # 2·8·16·32
    assert f(a.result.hbm_bytes) == hbm
    assert f(a.result.peak_flops) == peak


@pytest.mark.parametrize("x", sorted(BYTES))
@pytest.mark.parametrize("w", sorted(BYTES))
def test_matmul_every_operand_pair(x, w):
    for out in ("bf16", "fp32", "int4"):
        wk = op_work("matmul", {"B": 3, "D": 5, "F": 7}, {"x": x, "w": w, "out": out})
        assert f(wk.hbm_bytes) == 15 * BYTES[x] + 35 * BYTES[w] + 21 * BYTES[out]
        assert f(wk.flops) == 210  # 2·3·5·7


def test_dtype_roles_default_to_bf16():
    w = op_work("matmul", {"B": 2, "D": 3, "F": 4}, {"w": "int8"})
    assert f(w.hbm_bytes) == 2 * 3 * 2 + 3 * 4 * 1 + 2 * 4 * 2  # 40
    assert w.compute.name == "bf16"


# --------------------------------------------------------------------------- other ops

def test_batched_matmul_by_hand():
    # X[4,8] bf16 · Y[4,8,16] int8 → Z[4,16] fp32
    w = op_work("batched-matmul", {"B": 4, "D": 8, "F": 16}, {"x": "bf16", "w": "int8", "out": "fp32"})
    assert f(w.flops) == 1024  # 2·4·8·16
    assert f(w.hbm_bytes) == 4 * 8 * 2 + 4 * 8 * 16 * 1 + 4 * 16 * 4 == 832  # 64 + 512 + 256
    assert w.unit == "matrix"


def test_dot_by_hand():
    w = op_work("dot", {"N": 1000})
    assert f(w.flops) == 1999  # 1000 multiplies, 999 adds
    assert f(w.hbm_bytes) == 2 * 1000 * 2 + 2 == 4002  # two bf16 vectors in, one bf16 scalar out
    assert w.unit == "vector"
    w = op_work("dot", {"N": 1000}, {"x": "int4", "out": "fp32"})
    assert f(w.hbm_bytes) == 2 * 1000 * 0.5 + 4 == 1004
    w = op_work("dot", {"N": 1})
    assert f(w.flops) == 1 and f(w.hbm_bytes) == 2 * 2 + 2


def test_elementwise_by_hand():
    w = op_work("elementwise", {"N": 1e6, "inputs": 3, "flops_per_element": 2.5},
                {"x": "fp16", "out": "fp32"})
    assert f(w.flops) == 2.5e6  # 1e6 · 2.5
    assert f(w.hbm_bytes) == 1e6 * 3 * 2 + 1e6 * 4 == 1e7
    assert w.unit == "vector"
    # fp32 vector add: 1 FLOP, 12 bytes per element
    w = op_work("elementwise", {"N": 1024, "inputs": 2, "flops_per_element": 1}, {"x": "fp32", "out": "fp32"})
    assert f(w.flops) == 1024 and f(w.hbm_bytes) == 12 * 1024


def test_custom_by_hand():
    a = analyze("custom", {"flops": 3e12, "bytes": 2e9, "net_bytes": 5e8}, CHIP)
    assert f(a.result.flops) == 3e12 and f(a.result.hbm_bytes) == 2e9
    assert f(a.result.net_bytes) == 0  # no link chosen: link bytes do not count
    assert f(a.result.t_math) == pytest.approx(0.03)  # 3e12 / 1e14
    assert f(a.result.t_hbm) == pytest.approx(0.002)  # 2e9 / 1e12
    s = analyze("custom", {"flops": 3e12, "bytes": 2e9, "net_bytes": 5e8}, CHIP, shard=Shard("net", 4, "pcie"))
    assert f(s.result.net_bytes) == 5e8
    assert f(s.result.t_net) == pytest.approx(0.05)  # 5e8 / 1e10
    assert s.result.bound == "network"
    v = analyze("custom", {"flops": 1e12, "bytes": 1e9}, CHIP, params={"unit": "vector"})
    assert f(v.result.peak_flops) == 1e13  # the vector bf16 peak
    with pytest.raises(ModelError, match="unit"):
        op_work("custom", {}, params={"unit": "tensor"})


def test_vector_ops_use_the_vector_peak():
    a = analyze("dot", {"N": 1 << 20}, CHIP)
    assert f(a.result.peak_flops) == 1e13 and a.figures.peak_info.unit == "vector"
    e = analyze("elementwise", {"N": 1 << 20}, CHIP, dtypes={"compute": "fp32"})
    assert f(e.result.peak_flops) == 5e12


# --------------------------------------------------------------------------- sharding

def test_shard_b_splits_rows_and_sends_nothing():
    w = op_work("matmul", {"B": 1024, "D": 4096, "F": 8192}, shard=Shard("B", 4, "ici"))
    # per chip B = 256
    assert f(w.flops) == 2 * 256 * 4096 * 8192
    assert f(w.hbm_bytes) == 256 * 4096 * 2 + 4096 * 8192 * 2 + 256 * 8192 * 2
    assert f(w.net_bytes) == 0


def test_shard_f_splits_columns_and_sends_nothing():
    w = op_work("matmul", {"B": 1024, "D": 4096, "F": 8192}, shard=Shard("F", 4, "ici"))
    # per chip F = 2048
    assert f(w.flops) == 2 * 1024 * 4096 * 2048
    assert f(w.hbm_bytes) == 1024 * 4096 * 2 + 4096 * 2048 * 2 + 1024 * 2048 * 2
    assert f(w.net_bytes) == 0


def test_shard_d_all_reduces_partial_sums():
    w = op_work("matmul", {"B": 1024, "D": 4096, "F": 8192}, shard=Shard("D", 4, "ici"))
    # per chip D = 1024; each chip holds a full bf16 partial sum Z[1024, 8192]
    assert f(w.flops) == 2 * 1024 * 1024 * 8192
    assert f(w.hbm_bytes) == 1024 * 1024 * 2 + 1024 * 8192 * 2 + 1024 * 8192 * 2
    # ring all-reduce: 2·(4−1)/4 · 1024·8192·2 bytes = 1.5 · 16,777,216 = 25,165,824
    assert f(w.net_bytes) == 25_165_824


@pytest.mark.parametrize("n", [2, 3, 8, 64, 1000])
def test_shard_d_ring_factor(n):
    B, D, F = 512, 65536, 2048
    w = op_work("matmul", {"B": B, "D": D, "F": F}, {"out": "fp32"}, shard=Shard("D", n, "ici"))
    assert f(w.net_bytes) == pytest.approx(2 * (n - 1) / n * B * F * 4, rel=1e-15)
    assert f(w.flops) == pytest.approx(2 * B * (D / n) * F, rel=1e-15)


def test_shard_d_two_chips_is_2bf_bytes():
    # the reference's two-chip case: 2(2−1)/2 · B·F·2 bytes = 2BF
    B, F = 300, 700
    w = op_work("matmul", {"B": B, "D": 5000, "F": F}, shard=Shard("D", 2, "ici"))
    assert f(w.net_bytes) == 2 * B * F
    a = analyze("matmul", {"B": B, "D": 5000, "F": F}, CHIP, shard=Shard("D", 2, "ici"))
    assert f(a.result.t_net) == pytest.approx(2 * B * F / 1e11)
    assert f(a.result.link_bandwidth) == 1e11


def test_shard_n_1_is_the_unsharded_op():
    base = op_work("matmul", {"B": 64, "D": 128, "F": 256})
    for axis in ("B", "D", "F"):
        w = op_work("matmul", {"B": 64, "D": 128, "F": 256}, shard=Shard(axis, 1, "ici"))
        assert f(w.flops) == f(base.flops) and f(w.hbm_bytes) == f(base.hbm_bytes)
        assert f(w.net_bytes) == 0


def test_batched_matmul_shards():
    dims = {"B": 8, "D": 64, "F": 32}
    d = op_work("batched-matmul", dims, {"w": "int8"}, shard=Shard("D", 2, "ici"))
    # per chip D = 32: X 8·32·2 + Y 8·32·32·1 + Z 8·32·2; all-reduce 2·1/2·8·32·2
    assert f(d.hbm_bytes) == 512 + 8192 + 512
    assert f(d.net_bytes) == 512
    b = op_work("batched-matmul", dims, {"w": "int8"}, shard=Shard("B", 4, "ici"))
    # per chip B = 2: X 2·64·2 + Y 2·64·32 + Z 2·32·2
    assert f(b.hbm_bytes) == 256 + 4096 + 128 and f(b.net_bytes) == 0
    assert f(b.flops) == 2 * 2 * 64 * 32


@pytest.mark.parametrize("op, shard", [
    ("dot", Shard("N", 2, "ici")), ("elementwise", Shard("N", 2, "ici")),
    ("matmul", Shard("N", 2, "ici")), ("matmul", Shard("b", 2, "ici")),
    ("matmul", Shard("D", 0, "ici")), ("matmul", Shard("D", -2, "ici")),
    ("matmul", Shard("D", 1.5, "ici")), ("matmul", Shard("D", True, "ici")),
    ("matmul", Shard("D", 2, "")), ("matmul", Shard("D", 10**7, "ici")),
])
def test_invalid_shards_are_model_errors(op, shard):
    with pytest.raises(ModelError):
        op_work(op, {}, shard=shard)


def test_link_the_chip_does_not_have():
    with pytest.raises(ModelError, match="nvlink"):
        analyze("matmul", {}, CHIP, shard=Shard("D", 2, "nvlink"))


# --------------------------------------------------------------------------- peaks

def test_int4_on_h100_runs_at_int8_with_a_note(catalog):
    h100 = catalog.get("h100-sxm")
    a = analyze("matmul", {"B": 4096, "D": 4096, "F": 4096}, h100, dtypes={
        "x": "int4", "w": "int4", "out": "int4", "compute": "int4"})
    assert f(a.result.peak_flops) == h100.matrix["int8"].value == 1978.9e12
    assert a.figures.peak_info.key == "int8"
    assert any("int4" in n and "int8" in n for n in a.figures.notes)
    assert f(a.result.hbm_bytes) == 3 * 4096 * 4096 * 0.5  # int4 storage still counts as half a byte


def test_fp8_on_a_chip_without_fp8(catalog):
    for cid, peak in (("a100-80gb", 312e12), ("tpu-v5e", 1.97e14)):
        chip = catalog.get(cid)
        assert "fp8" not in chip.matrix
        a = analyze("matmul", {}, chip, dtypes={"compute": "fp8_e4m3"})
        assert f(a.result.peak_flops) == peak and a.figures.peak_info.key == "bf16"
        assert any("fp8" in n for n in a.figures.notes)


def test_native_paths_have_no_note(catalog):
    a = analyze("matmul", {}, catalog.get("b200"), dtypes={"compute": "fp4"})
    assert f(a.result.peak_flops) == 9000e12 and a.figures.notes == ()
    a = analyze("dot", {}, catalog.get("h100-sxm"))
    assert f(a.result.peak_flops) == 133.8e12 and a.figures.notes == ()


def test_dot_without_vector_table_uses_matrix_peak_with_note(catalog):
    chip = catalog.get("tpu-v6e")
    assert not chip.vector
    a = analyze("dot", {"N": 1 << 20}, chip)
    assert f(a.result.peak_flops) == 9.18e14
    assert a.figures.peak_info.unit == "matrix"
    assert any("vector" in n for n in a.figures.notes)


def test_vector_fallback_to_fp32_vector_rate():
    chip = make_chip("v", "V", peak=1e15, hbm_bandwidth=1e12, vector={"fp32": 3e13})
    a = analyze("elementwise", {}, chip)  # bf16, chip has only an fp32 vector figure
    assert f(a.result.peak_flops) == 3e13 and a.figures.notes


def test_no_usable_peak_is_a_model_error():
    chip = make_chip("b", "BF16 only", peak=1e14, hbm_bandwidth=1e12)
    with pytest.raises(ModelError, match="fp32"):
        analyze("matmul", {}, chip, dtypes={"compute": "fp32"})


# --------------------------------------------------------------------------- settings

def test_derating_on_and_off(catalog):
    chip = catalog.get("h100-sxm")
    off = analyze("matmul", {}, chip)
    on = analyze("matmul", {}, chip, settings=Settings(derate=True))
    assert f(off.result.peak_flops) == 989.4e12 and off.figures.derate_fraction == 1.0
    assert f(on.result.peak_flops) == pytest.approx(989.4e12 * chip.achievable.value)
    assert on.figures.derate_fraction == chip.achievable.value
    assert any("derated" in n for n in on.figures.notes)
    assert not any("derated" in n for n in off.figures.notes)
    assert f(on.result.t_math) == pytest.approx(f(off.result.t_math) / chip.achievable.value)


def test_derating_a_chip_without_a_fraction_says_so():
    a = analyze("matmul", {}, CHIP, settings=Settings(derate=True))
    assert f(a.result.peak_flops) == 1e14
    assert any("no achievable fraction" in n for n in a.figures.notes)


def test_what_if_multipliers():
    dims = {"B": 512, "D": 4096, "F": 4096}
    sh = Shard("D", 2, "ici")
    base = analyze("matmul", dims, CHIP, shard=sh)
    w = analyze("matmul", dims, CHIP, shard=sh, settings=Settings(peak=2, hbm=0.5, link=4))
    assert f(w.result.peak_flops) == 2e14
    assert f(w.result.hbm_bandwidth) == 5e11
    assert f(w.result.link_bandwidth) == 4e11
    assert f(w.result.t_math) == pytest.approx(f(base.result.t_math) / 2)
    assert f(w.result.t_hbm) == pytest.approx(f(base.result.t_hbm) * 2)
    assert f(w.result.t_net) == pytest.approx(f(base.result.t_net) / 4)
    assert f(w.result.critical_intensity) == pytest.approx(400)  # 2e14 / 5e11
    assert "peak×2" in w.chip.label() and "HBM×0.5" in w.chip.label() and "link×4" in w.chip.label()
    assert f(w.result.flops) == f(base.result.flops)  # the op is unchanged


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "2", True, None])
def test_bad_what_if_is_a_model_error(bad):
    with pytest.raises(ModelError):
        analyze("matmul", {}, CHIP, settings=Settings(peak=bad))


def test_what_if_accepts_numpy_numbers():
    a = analyze("matmul", {}, CHIP, settings=Settings(peak=np.float32(2), hbm=np.int64(3)))
    assert f(a.result.peak_flops) == 2e14 and f(a.result.hbm_bandwidth) == 3e12


# --------------------------------------------------------------------------- bad dims

@pytest.mark.parametrize("value", [0, -1, -0.0, float("nan"), float("inf"), float("-inf"), 1e400, 2e15,
                                   "", "abc", "4 q", "１", "💥", True, None, [], [1.0, float("nan")],
                                   np.array([1.0, 0.0]), np.array([]), 10**400, 0.5])
def test_bad_dimension_is_a_model_error_naming_it(value):
    with pytest.raises(ModelError) as e:
        op_work("matmul", {"B": value})
    assert e.value.field == "B"


def test_sizes_must_be_at_least_one_but_rates_need_only_be_positive():
    with pytest.raises(ModelError, match="at least 1"):
        op_work("dot", {"N": 0.3})  # would give 2N−1 < 0 FLOPs
    w = op_work("elementwise", {"N": 10, "flops_per_element": 0.25})
    assert f(w.flops) == 2.5


def test_dimensions_as_text_and_lists():
    w = op_work("matmul", {"B": "4k", "D": "8Ki", "F": "2**10"})
    assert f(w.flops) == 2 * 4000 * 8192 * 1024
    a = op_work("matmul", {"B": [1, 2, 3], "D": 10, "F": 10})
    assert np.array_equal(a.flops, [200, 400, 600])


def test_unknown_dimension_is_named():
    with pytest.raises(ModelError, match="no dimension 'N'") as e:
        op_work("matmul", {"N": 4})
    assert e.value.field == "N"


def test_unknown_op():
    with pytest.raises(ModelError, match="unknown op"):
        op_work("conv", {})


def test_every_registered_op_has_a_formula_and_positive_work():
    for name, kind in OP_KINDS.items():
        for phase in kind.phases:
            w = op_work(kind, {}, phase=phase)
            assert np.all(np.asarray(w.flops) > 0) and np.all(np.asarray(w.hbm_bytes) > 0), name
            assert w.formulas.get("flops") and w.formulas.get("hbm_bytes"), name


# --------------------------------------------------------------------------- vectorised

N_POINTS = 10_000
XS = np.geomspace(1, 1e9, N_POINTS)

FORMULAS = {
    # (op, dims with one array, dtypes, shard) → the closed forms in the test
    "matmul-B": ("matmul", {"B": XS, "D": 4096, "F": 8192}, {"w": "int8"}, None,
                 lambda x: 2 * x * 4096 * 8192, lambda x: x * 4096 * 2 + 4096 * 8192 + x * 8192 * 2,
                 lambda x: 0 * x),
    "matmul-D-sharded": ("matmul", {"B": 512, "D": XS, "F": 1024}, {}, Shard("D", 4, "ici"),
                         lambda x: 2 * 512 * (x / 4) * 1024,
                         lambda x: 512 * (x / 4) * 2 + (x / 4) * 1024 * 2 + 512 * 1024 * 2,
                         lambda x: 1.5 * 512 * 1024 * 2 + 0 * x),
    "batched-F": ("batched-matmul", {"B": 16, "D": 256, "F": XS}, {"out": "fp32"}, None,
                  lambda x: 2 * 16 * 256 * x, lambda x: 16 * 256 * 2 + 16 * 256 * x * 2 + 16 * x * 4,
                  lambda x: 0 * x),
    "dot-N": ("dot", {"N": XS}, {"x": "fp8_e5m2"}, None,
              lambda x: 2 * x - 1, lambda x: 2 * x * 1 + 2, lambda x: 0 * x),
    "elementwise-fpe": ("elementwise", {"N": 1e6, "inputs": 3, "flops_per_element": XS}, {}, None,
                        lambda x: 1e6 * x, lambda x: 1e6 * 3 * 2 + 1e6 * 2 + 0 * x, lambda x: 0 * x),
    "custom-bytes": ("custom", {"flops": 1e12, "bytes": XS, "net_bytes": 7e6}, {}, Shard("net", 2, "ici"),
                     lambda x: 1e12 + 0 * x, lambda x: x, lambda x: 7e6 + 0 * x),
}


@pytest.mark.parametrize("case", sorted(FORMULAS))
def test_vectorised_dims_equal_the_formula_and_scalar_calls(case):
    op, dims, dtypes, shard, flops, hbm, net = FORMULAS[case]
    w = op_work(op, dims, dtypes, shard)
    assert np.shape(w.flops) == (N_POINTS,) or np.broadcast(w.flops, w.hbm_bytes).shape == (N_POINTS,)
    np.testing.assert_allclose(np.broadcast_to(w.flops, XS.shape), flops(XS), rtol=1e-14)
    np.testing.assert_allclose(np.broadcast_to(w.hbm_bytes, XS.shape), hbm(XS), rtol=1e-14)
    np.testing.assert_allclose(np.broadcast_to(w.net_bytes, XS.shape), net(XS), rtol=1e-14)
    # and the same numbers, point by point, from scalar calls (every 97th point)
    arr_dim = next(k for k, v in dims.items() if isinstance(v, np.ndarray))
    for i in range(0, N_POINTS, 97):
        d = dict(dims)
        d[arr_dim] = float(XS[i])
        s = op_work(op, d, dtypes, shard)
        assert f(s.flops) == np.broadcast_to(w.flops, XS.shape)[i]
        assert f(s.hbm_bytes) == np.broadcast_to(w.hbm_bytes, XS.shape)[i]
        assert f(s.net_bytes) == np.broadcast_to(w.net_bytes, XS.shape)[i]


def test_analyze_accepts_array_dims_and_critical_values_broadcast():
    B = np.array([64.0, 256.0, 1024.0])
    D = np.array([[1024.0], [8192.0]])  # broadcasts against B to (2, 3)
    a = analyze("matmul", {"B": B, "D": D, "F": 8192}, CHIP)
    assert a.result.t_lower.shape == (2, 3)
    # critical B depends on D only; critical D on B only
    assert np.shape(a.critical["B"]) == (2, 1)
    assert np.shape(a.critical["D"]) == (3,)
    for j, d in enumerate(D[:, 0]):
        for i, b in enumerate(B):
            s = analyze("matmul", {"B": b, "D": d, "F": 8192}, CHIP)
            assert f(s.result.t_lower) == a.result.t_lower[j, i]
            for name, v in s.critical.items():
                arr = np.broadcast_to(a.critical[name], (2, 3))[j, i]
                if v is None:
                    assert math.isnan(arr)
                else:
                    assert arr == pytest.approx(v, rel=1e-12)


def test_sweep_over_8_chips_is_one_call_equal_to_scalar_points(catalog):
    ids = ["tpu-v5e", "tpu-v5p", "h100-sxm", "h200", "b200", "mi300x", "gaudi3", "trainium2"]
    chips = [catalog.get(i) for i in ids]
    B = np.geomspace(1, 1e6, N_POINTS)
    work = op_work("matmul", {"B": B, "D": 8192, "F": 8192}, {"w": "int8"})
    res = evaluate_many(work, chips)
    assert res.t_lower.shape == (8, N_POINTS)
    for c, chip in enumerate(chips):
        for i in range(0, N_POINTS, 199):
            s = analyze("matmul", {"B": float(B[i]), "D": 8192, "F": 8192}, chip, dtypes={"w": "int8"}).result
            for name in Result.__dataclass_fields__:
                got, want = np.asarray(getattr(res, name))[c, i], np.asarray(getattr(s, name))
                assert got == pytest.approx(want, rel=1e-14), (chip.id, i, name)


def test_evaluate_work_equals_evaluate_many_for_one_chip():
    work = op_work("dot", {"N": XS})
    one = evaluate_work(work, chip_figures(CHIP, work))
    many = evaluate_many(work, [CHIP])
    for name in Result.__dataclass_fields__:
        np.testing.assert_array_equal(np.asarray(getattr(many, name))[0], getattr(one, name))


def test_sweep_scenario_is_one_vectorised_call_over_all_chips(catalog, monkeypatch):
    import roofgui.model.roofline as rl
    import roofgui.model.scenario as sc
    from roofgui.model.evaluate import sweep_scenario, sweep_values

    ids = ["tpu-v4", "tpu-v5e", "tpu-v6e", "h100-sxm", "b200", "a100-80gb", "mi355x", "l40s"]
    scen = sc.Scenario(ops=[sc.OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192})], chips=ids,
                       sweep=sc.SweepSpec("B", 1, 1e6, N_POINTS))
    calls = []
    real_roofline = rl.roofline

    def counting(*args, **kw):
        res = real_roofline(*args, **kw)
        calls.append(res.t_lower.shape)
        return res

    monkeypatch.setattr(rl, "roofline", counting)
    curves, errors = sweep_scenario(scen, catalog)
    assert errors == []
    assert [c.chip.id for c in curves] == ids
    sweep_calls = [s for s in calls if N_POINTS in s]
    assert sweep_calls == [(8, N_POINTS)]  # one call for all 8 chips × 10,000 points
    x = sweep_values(scen.sweep)
    assert len(x) == N_POINTS and x[0] == 1 and x[-1] == pytest.approx(1e6)
    monkeypatch.setattr(rl, "roofline", real_roofline)
    for curve in curves:
        for i in (0, 1234, 5000, N_POINTS - 1):
            s = analyze("matmul", {"B": float(x[i]), "D": 8192, "F": 8192}, catalog.get(curve.chip.id))
            assert curve.result.t_lower[i] == pytest.approx(f(s.result.t_lower), rel=1e-14)
            assert curve.result.attainable_flops[i] == pytest.approx(f(s.result.attainable_flops), rel=1e-14)
        assert curve.critical == pytest.approx(
            analyze("matmul", {"B": 256, "D": 8192, "F": 8192}, catalog.get(curve.chip.id)).critical["B"])


def test_roofline_results_are_read_only_and_of_the_broadcast_shape():
    B = np.geomspace(1, 65536, 1000)
    peak = np.array([1.97e14, 9.89e14, 2.25e15, 1.3e15])[:, None]
    bw = np.array([8.2e11, 3.35e12, 8e12, 5.3e12])[:, None]
    got = roofline(2.0 * B * 8192 * 8192, B * 8192 * 4 + 8192 * 8192 * 2, np.zeros_like(B), peak,
                   bw, np.zeros((4, 1)))
    for name in Result.__dataclass_fields__:
        assert getattr(got, name).shape == (4, 1000), name
    with pytest.raises(ValueError):
        got.t_comms[0, 0] = 1.0


def test_critical_values_report_the_first_bad_dimension(catalog):
    k = OP_KINDS["matmul"]
    figs = [chip_figures(catalog.get("h100-sxm"), op_work(k, {"B": 1, "D": 1, "F": 1}))]
    # B and F bad: every probe row keeps the other dimensions' values, so one is reported
    with pytest.raises(ModelError, match=r"\b[BF]\b"):
        critical_values_many(k, {"B": -1.0, "D": 8.0, "F": -2.0}, figs)
    # a one-dimension op never checks the value its probe replaces
    d = OP_KINDS["dot"]
    figs = [chip_figures(catalog.get("h100-sxm"), op_work(d, {"N": 8}))]
    assert critical_values_many(d, {"N": -5.0}, figs) == critical_values_many(d, {"N": 8.0}, figs)


@pytest.mark.parametrize("values,message", [
    ([1.0, math.nan, 2.0], "must be finite"),
    ([1.0, math.inf], "must be finite"),
    ([-math.inf, 5.0], "must be finite"),
    ([0.0, 1e20], "must be greater than zero"),
    ([-0.0, 2.0], "must be greater than zero"),
    ([1.0, -3.0], "must be greater than zero"),
    ([1.0, MAX_VALUE * 1.01], "is too large"),
    ([0.5, 2.0], "must be at least 1"),
])
def test_array_dimension_checks(values, message):
    with pytest.raises(ModelError, match=message):
        validate_dims(OP_KINDS["matmul"], {"B": np.array(values)})


def test_array_dimension_checks_non_integer_dimension():
    kind = OP_KINDS["elementwise"]
    with pytest.raises(ModelError, match="is too small"):
        validate_dims(kind, {"flops_per_element": np.array([1.0, MIN_VALUE / 2])})
