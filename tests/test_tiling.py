"""Tiled matmuls: each memory level's bytes for a hand-worked tiling, the reference's tiled
intensity, which level binds, and the capacity checks."""

import math

import pytest

from roofgui.model.catalog import Catalog
from roofgui.model.chips import make_chip
from roofgui.model.errors import ModelError
from roofgui.model.ops import Shard
from roofgui.model.tiling import Tile, make_tile, tiled_matmul_levels

CAT = Catalog.load(user_dir=False)


def levels(cid, dims, tile, dtypes=None, shard=None):
    chip = CAT.get(cid)
    return tiled_matmul_levels(dims, dtypes, tile, chip, chip.peak("bf16").value,
                               chip.hbm_bandwidth.value, shard)


# Hand-worked: B=256, D=1024, F=512 in bf16 with 128×128 output tiles and bk=64.
#   X is read ⌈512/128⌉ = 4 times:   256·1024·2·4 = 2,097,152 B
#   Y is read ⌈256/128⌉ = 2 times:   1024·512·2·2 = 2,097,152 B
#   Z is written once:               256·512·2    =   262,144 B
#   tile traffic T                                = 4,456,448 B
#   operands once U = 524,288 + 1,048,576 + 262,144 = 1,835,008 B
#   FLOPs 2·256·1024·512 = 268,435,456; tile working set 128·64·2 + 64·128·2 + 128·128·2 = 65,536 B
HAND = {"B": 256, "D": 1024, "F": 512}
T, U, FLOPS = 4_456_448, 1_835_008, 268_435_456


def test_hand_worked_tiling_on_h100_each_level_bytes():
    lv = levels("h100-sxm", HAND, Tile(128, 128, 64))
    got = {p.level: p.bytes for p in lv.points}
    # shared memory and L2 serve every tile load; the operands (1.8 MB) fit in the 50 MB L2,
    # so HBM sees each operand once
    assert got == {"smem": T, "l2": T, "hbm": U}
    assert lv.flops == FLOPS
    smem, l2, hbm = lv.points
    assert smem.footprint == 65_536 and smem.fits is True
    assert l2.footprint == U and l2.fits is True
    assert l2.intensity == pytest.approx(FLOPS / T)
    assert l2.critical_intensity == pytest.approx(989.4e12 / 5.5e12)
    assert l2.t == pytest.approx(T / 5.5e12) and hbm.t == pytest.approx(U / 3.35e12)
    assert smem.bandwidth is None and smem.t is None  # no public figure: no roof, no time


def test_hand_worked_tiling_on_tpu_v5e_hbm_sees_every_tile_load():
    lv = levels("tpu-v5e", HAND, Tile(128, 128, 64))
    assert {p.level: p.bytes for p in lv.points} == {"vmem": T, "hbm": T}
    vmem, hbm = lv.points
    assert vmem.t == pytest.approx(T / 1.8e13) and hbm.t == pytest.approx(T / 8.2e11)
    assert lv.binding.level == "hbm"


def test_on_mi300x_operands_held_in_l2_reach_the_infinity_cache_once():
    lv = levels("mi300x", HAND, Tile(128, 128))
    got = {p.level: p.bytes for p in lv.points}
    assert got == {"lds": T, "l2": T, "mall": U, "hbm": U}
    # no bk: the tile holds whole D-long panels, 128·1024·2·2 + 128·128·2 = 557,056 B > 64 KiB LDS
    lds = lv.points[0]
    assert lds.footprint == 557_056 and lds.fits is False
    assert [p.level for p in lv.misfits()] == ["lds"]


@pytest.mark.parametrize("bm, bn", [(128, 128), (256, 128), (512, 512), (64, 256)])
def test_reference_tiled_intensity_for_large_d(bm, bn):
    """roofline-chapter footnote: total bytes 2·tm·tn·(tk·(bm·bk + bk·bn) + 2·bm·bn) in bf16;
    ignoring the last term the intensity is bm·bn/(bm + bn) = 2/(s·(1/bm + 1/bn)), s = 2."""
    B, F, bk = 8 * bm, 8 * bn, 512
    D = bk * 4096
    lv = levels("tpu-v5e", {"B": B, "D": D, "F": F}, Tile(bm, bn, bk))
    hbm = lv.points[-1]
    tm, tn, tk = B / bm, F / bn, D / bk
    ref_bytes = 2 * tm * tn * (tk * (bm * bk + bk * bn) + 2 * bm * bn)
    # same loads; the reference counts the output tile twice (read and write), we write it once
    assert hbm.bytes == pytest.approx(ref_bytes - 2 * tm * tn * bm * bn)
    assert hbm.intensity == pytest.approx(bm * bn / (bm + bn), rel=2e-3)
    assert hbm.intensity == pytest.approx(2 / (2 * (1 / bm + 1 / bn)), rel=2e-3)


def test_the_issue_formula_with_mixed_dtypes():
    # int8 weights, bf16 activations and output: D·(s_x·B·F/bn + s_w·B·F/bm) + B·F·s_out
    B, D, F, bm, bn = 1024, 4096, 2048, 128, 256
    lv = levels("tpu-v5e", {"B": B, "D": D, "F": F}, Tile(bm, bn),
                dtypes={"x": "bf16", "w": "int8", "out": "bf16"})
    assert lv.points[-1].bytes == D * (2 * B * F / bn + 1 * B * F / bm) + B * F * 2


def test_sharding_tiles_the_per_chip_matmul():
    full = levels("tpu-v5e", {"B": 512, "D": 2048, "F": 1024}, Tile(128, 128))
    half = levels("tpu-v5e", {"B": 512, "D": 4096, "F": 1024}, Tile(128, 128), shard=Shard("D", 2, "ici"))
    assert [p.bytes for p in half.points] == [p.bytes for p in full.points]


def test_binding_level_and_compute_bound():
    chip = make_chip("toy", "Toy", peak=1e15, hbm_bandwidth=1e12)
    small = tiled_matmul_levels({"B": 64, "D": 8192, "F": 8192}, None, Tile(64, 64), chip, 1e15, 1e12)
    assert small.bound == "hbm"
    big = tiled_matmul_levels({"B": 8192, "D": 8192, "F": 8192}, None, Tile(4096, 4096), chip, 1e15, 1e12)
    assert big.bound == "compute" and big.binding.level == "hbm"


@pytest.mark.parametrize("values, problem", [
    ({"bm": 128}, "bn is missing"),
    ({"bm": 128, "bn": 0}, "bn must be a whole number"),
    ({"bm": 128, "bn": 12.5}, "bn must be a whole number"),
    ({"bm": 128, "bn": True}, "bn must be a whole number"),
    ({"bm": 128, "bn": 128, "bq": 4}, "unknown tile size 'bq'"),
    ({"bm": math.inf, "bn": 128}, "bm must be a whole number"),
    ([128, 128], "must be a table"),
])
def test_bad_tiles_are_one_message(values, problem):
    with pytest.raises(ModelError, match=problem):
        make_tile(values)


def test_make_tile_accepts_whole_floats():
    assert make_tile({"bm": 128.0, "bn": 64, "bk": 32}) == Tile(128, 64, 32)
    assert Tile(128, 64).as_dict() == {"bm": 128, "bn": 64}
