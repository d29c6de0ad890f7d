"""The worked examples of the reference texts, each with the inputs the text used.

roofline-chapter.md ("All About Rooflines") and chip-specs.md §4.
"""

import math

import pytest

from roofgui.model.catalog import Catalog
from roofgui.model.chips import make_chip
from roofgui.model.ops import Shard, op_work
from roofgui.model.roofline import analyze

# The chapter's TPU v5e: 1.97e14 bf16 FLOP/s, 3.94e14 int8 OP/s, 8.2e11 B/s HBM, 4.5e10 B/s ICI each way.
V5E = make_chip("v5e-ref", "TPU v5e (chapter)", peak=1.97e14, hbm_bandwidth=8.2e11,
                matrix={"int8": 3.94e14}, links={"ici": 4.5e10})
# Question 1 of the chapter (older text): HBM 8.1e11 B/s and int8 3.94e14 OP/s.
V5E_OLD = make_chip("v5e-old", "TPU v5e (Q1 text)", peak=1.97e14, hbm_bandwidth=8.1e11,
                    matrix={"int8": 3.94e14})
BIG = 1e7  # "B ≪ D, F"


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


def test_v5e_critical_intensity_240():
    # "1.97e14 FLOPs/s ... 8.2e11 bytes/s ... about 240 FLOPs/byte"
    a = analyze("matmul", {"B": 256, "D": 8192, "F": 8192}, V5E)
    assert float(a.result.critical_intensity) == pytest.approx(240.2439, rel=1e-6)


def test_shipped_v5e_preset_reproduces_240(catalog):
    chip = catalog.get("tpu-v5e")
    assert chip.critical_intensity == pytest.approx(240.24, rel=1e-3)


def test_bf16_matmul_compute_bound_above_b_240():
    # Intensity BDF/(BD+DF+BF) ≈ B for B ≪ D, F: compute-bound for B > 240.
    a = analyze("matmul", {"B": 256, "D": BIG, "F": BIG}, V5E)
    assert a.critical["B"] == pytest.approx(240.2439 / (1 - 2 * 240.2439 / BIG), rel=1e-6)
    assert a.critical["B"] == pytest.approx(240.3, abs=0.1)
    below = analyze("matmul", {"B": 230, "D": BIG, "F": BIG}, V5E)
    above = analyze("matmul", {"B": 250, "D": BIG, "F": BIG}, V5E)
    assert below.result.bound == "memory" and above.result.bound == "compute"


def test_bf16_matmul_exact_critical_batch_at_8192():
    # Exact bytes: 2BDF/p = (2BD+2DF+2BF)/bw  →  B = 1/(bw/p − 2/F)  (D = F)
    p, bw, F = 1.97e14, 8.2e11, 8192
    expected = 1 / (bw / p - 2 / F)
    a = analyze("matmul", {"B": 256, "D": F, "F": F}, V5E)
    assert a.critical["B"] == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(255.21, abs=0.01)


def test_t_math_example_from_issue():
    # T_math = 3.44e10 FLOP / 1.97e14 FLOP/s = 174 µs for B=256, D=F=8192 (2·256·8192² = 3.436e10)
    a = analyze("matmul", {"B": 256, "D": 8192, "F": 8192}, V5E)
    assert float(a.result.flops) == 2 * 256 * 8192 * 8192
    assert float(a.result.t_math) == pytest.approx(174.4e-6, rel=1e-3)


def test_int8_matmul_rule_b_243_at_8_1e11():
    # Q1: int8 everywhere, HBM 8.1e11, int8 3.94e14 → intensity 2B, B > 486/2 = 243
    a = analyze("matmul", {"B": 256, "D": BIG, "F": BIG}, V5E_OLD, dtypes={
        "x": "int8", "w": "int8", "out": "int8", "compute": "int8"})
    assert float(a.result.critical_intensity) == pytest.approx(486.4, abs=0.1)
    assert a.critical["B"] == pytest.approx(243.2, abs=0.1)


def test_int8_matmul_bytes_and_bounds():
    B, D, F = 512, 4096, 8192
    a = analyze("matmul", {"B": B, "D": D, "F": F}, V5E_OLD, dtypes={
        "x": "int8", "w": "int8", "out": "int8", "compute": "int8"})
    assert float(a.result.hbm_bytes) == B * D + D * F + B * F
    assert float(a.result.flops) == 2 * B * D * F
    t_math = 2 * B * D * F / 3.94e14
    t_comms = (B * D + D * F + B * F) / 8.1e11
    assert float(a.result.t_lower) == pytest.approx(max(t_math, t_comms), rel=1e-12)
    assert float(a.result.t_upper) == pytest.approx(t_math + t_comms, rel=1e-12)


def test_int8_matmul_rule_b_240_at_8_2e11():
    a = analyze("matmul", {"B": 256, "D": BIG, "F": BIG}, V5E, dtypes={
        "x": "int8", "w": "int8", "out": "int8", "compute": "int8"})
    assert a.critical["B"] == pytest.approx(240.3, abs=0.1)


def test_int8_weights_bf16_compute_b_120():
    # Q2: bf16[B,D] · int8[D,F] → bf16[B,F] at 1.97e14: compute-bound when 2B > 240, B > 120
    a = analyze("matmul", {"B": 256, "D": BIG, "F": BIG}, V5E, dtypes={
        "x": "bf16", "w": "int8", "out": "bf16", "compute": "bf16"})
    assert a.critical["B"] == pytest.approx(120.1, abs=0.1)


def test_question3_exact_bytes():
    # Q3: bytes = 2BD + DF + 2BF at 8.2e11; flops 2BDF at 1.97e14
    import numpy as np
    bs = np.arange(1, 512, dtype=float)
    for D in (4096, 1024):
        w = op_work("matmul", {"B": bs, "D": D, "F": D}, {"x": "bf16", "w": "int8", "out": "bf16"})
        assert np.array_equal(w.hbm_bytes, 2 * bs * D + D * D + 2 * bs * D)
        flops_time = 2 * bs * D * D / 1.97e14
        comms_time = (2 * bs * D + D * D + 2 * bs * D) / 8.2e11
        expected = 2 * bs * D * D / np.maximum(flops_time, comms_time)
        from roofgui.model.roofline import chip_figures, evaluate_work
        r = evaluate_work(w, chip_figures(V5E, w))
        assert np.allclose(r.attainable_flops, expected, rtol=1e-12)
    # "D=F=1024 almost doubles the critical batch size"
    big = analyze("matmul", {"B": 1, "D": 4096, "F": 4096}, V5E, dtypes={"w": "int8"})
    small = analyze("matmul", {"B": 1, "D": 1024, "F": 1024}, V5E, dtypes={"w": "int8"})
    assert 1.6 < small.critical["B"] / big.critical["B"] < 2.0


def test_per_example_weights_intensity_about_2():
    # Q4: int8[B,D] · int8[B,D,F] → int8[B,F]: 2BDF / (BD + BDF + BF) ≈ 2
    B, D, F = 64, 4096, 4096
    a = analyze("batched-matmul", {"B": B, "D": D, "F": F}, V5E, dtypes={
        "x": "int8", "w": "int8", "out": "int8", "compute": "int8"})
    assert float(a.result.intensity) == pytest.approx(2 * B * D * F / (B * D + B * D * F + B * F), rel=1e-12)
    assert float(a.result.intensity) == pytest.approx(2.0, abs=0.002)
    assert a.result.bound == "memory"
    assert a.critical["B"] is None  # always comms-bound whatever the batch


def test_dot_product_intensity_half():
    # (2N − 1) / (4N + 2) → 1/2
    for N in (1, 10, 1000):
        a = analyze("dot", {"N": N}, V5E)
        assert float(a.result.intensity) == pytest.approx((2 * N - 1) / (4 * N + 2), rel=1e-12)
    a = analyze("dot", {"N": 1e12}, V5E)
    assert float(a.result.intensity) == pytest.approx(0.5, rel=1e-9)
    assert a.result.bound == "memory"


def test_two_chip_d_sharded_matmul_d_8755():
    # Split along D over 2 chips, 4.5e10 B/s each way: T_math = BDF/1.97e14, T_comms = 2BF/4.5e10
    B, D, F = 16384, 16384, 16384
    a = analyze("matmul", {"B": B, "D": D, "F": F}, V5E, shard=Shard("D", 2, "ici"))
    assert float(a.result.t_math) == pytest.approx(B * D * F / 1.97e14, rel=1e-12)
    assert float(a.result.t_net) == pytest.approx(2 * B * F / 4.5e10, rel=1e-12)
    assert a.critical["D"] == pytest.approx(8755.56, abs=0.01)
    lo = analyze("matmul", {"B": B, "D": 8000, "F": F}, V5E, shard=Shard("D", 2, "ici"))
    hi = analyze("matmul", {"B": B, "D": 9000, "F": F}, V5E, shard=Shard("D", 2, "ici"))
    assert lo.result.bound == "network" and hi.result.bound == "compute"


def test_two_chip_example_from_shipped_v5e_preset(catalog):
    chip = catalog.get("tpu-v5e")
    a = analyze("matmul", {"B": 16384, "D": 16384, "F": 16384}, chip, shard=Shard("D", 2, "ici"))
    assert a.critical["D"] == pytest.approx(8755.56, abs=0.01)


def test_h100_critical_intensity_298_at_1e15():
    # Q5 (Feb-2025 text): "close to 1e15 FLOPs/s", 3.35e12 B/s → 298
    h = make_chip("h100-ref", "H100 (Q5)", peak=1e15, hbm_bandwidth=3.35e12)
    a = analyze("matmul", {"B": 512, "D": BIG, "F": BIG}, h)
    assert float(a.result.critical_intensity) == pytest.approx(298.5, abs=0.1)
    assert a.critical["B"] == pytest.approx(298.5, abs=0.1)


def test_h100_critical_intensity_295_from_preset(catalog):
    # 9.89e14 / 3.35e12 = 295
    assert catalog.get("h100-sxm").critical_intensity == pytest.approx(295, abs=1)


def test_one_teraflop_times():
    # 1e12 / 9.89e14 = 1.01 ms ; 1e12 / 9.1e14 = 1.1 ms
    h = make_chip("h", "H100", peak=9.89e14, hbm_bandwidth=3.35e12)
    v6 = make_chip("v6", "v6e", peak=9.1e14, hbm_bandwidth=1.6e12)
    for chip, t in ((h, 1.01e-3), (v6, 1.1e-3)):
        a = analyze("custom", {"flops": 1e12, "bytes": 1.0}, chip)
        assert float(a.result.t_math) == pytest.approx(t, rel=0.01)


def test_fp32_vector_add_intensity_one_twelfth():
    # gpus.md Q7: fp32 vector add: N FLOPs, 12N bytes → 1/12
    h = make_chip("h", "H100", peak=9.89e14, hbm_bandwidth=3.35e12, vector={"fp32": 33.5e12})
    a = analyze("elementwise", {"N": 65536, "inputs": 2, "flops_per_element": 1}, h,
                dtypes={"x": "fp32", "out": "fp32", "compute": "fp32"})
    assert float(a.result.intensity) == pytest.approx(1 / 12)
    assert float(a.result.critical_intensity) == pytest.approx(10, rel=0.01)
    assert float(a.result.t_lower) == pytest.approx(12 * 65536 / 3.35e12, rel=1e-12)  # 0.23 µs
    assert float(a.result.t_lower) == pytest.approx(0.23e-6, abs=0.01e-6)


def test_scale_up_link_picks_each_chips_own_interconnect(catalog):
    # One sharded op over three vendors: each chip's shards talk over its own fastest scale-up link.
    shard = Shard("D", 2, "scale-up")
    got = {}
    for cid in ("tpu-v5e", "h100-sxm", "mi300x"):
        a = analyze("matmul", {"B": 16384, "D": 16384, "F": 16384}, catalog.get(cid), shard=shard)
        got[cid] = (a.figures.link_name, a.figures.link_bandwidth)
    assert got["tpu-v5e"] == ("ici", 4.5e10)
    assert got["h100-sxm"][0] == "nvlink" and got["h100-sxm"][1] == catalog.get("h100-sxm").links["nvlink"].bandwidth.value
    assert got["mi300x"][0] == "xgmi"
    # and the reference's D > 8755 still comes out on v5e
    a = analyze("matmul", {"B": 16384, "D": 16384, "F": 16384}, catalog.get("tpu-v5e"), shard=shard)
    assert a.critical["D"] == pytest.approx(8755.56, abs=0.01)


def test_scale_up_on_a_chip_without_one_is_a_clear_error(catalog):
    from roofgui.model.errors import ModelError
    with pytest.raises(ModelError, match="no scale-up link"):
        analyze("matmul", {"B": 1, "D": 1, "F": 1}, catalog.get("l40s"), shard=Shard("D", 2, "scale-up"))
