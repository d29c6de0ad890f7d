"""``roofgui show-chip`` lists memory levels with sources; ``analyze --tile`` adds each level."""

import json

import pytest

from roofgui import cli


def run(capsys, *argv):
    rc = cli.main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


HAND = ("--op", "matmul", "--dims", "B=256,D=1024,F=512")


def test_show_chip_lists_levels_with_kind_and_source(capsys):
    rc, out, err = run(capsys, "show-chip", "h100-sxm")
    assert rc == 0 and err == ""
    assert "level l2: L2 cache (microbenchmark)" in out
    assert "5.5 TB/s  [SB-gpu]" in out
    assert "level smem: Shared memory / L1 (vendor)" in out
    assert "bandwidth   " in out and "not published" in out
    rc, out, _ = run(capsys, "show-chip", "mi300x")
    assert "level mall: Infinity Cache (MALL)" in out and "17.2 TB/s  [CDNA3-WP]" in out
    assert "[CDNA3-WP] AMD, Introducing AMD CDNA 3 Architecture" in out


def test_show_chip_without_levels_says_so(capsys):
    rc, out, _ = run(capsys, "show-chip", "gaudi3")
    assert rc == 0 and "on-chip levels: none published" in out


def test_analyze_tile_json_adds_each_levels_figures(capsys):
    rc, out, err = run(capsys, "analyze", *HAND, "--chip", "h100-sxm", "--chip", "tpu-v5e",
                       "--tile", "bm=128,bn=128,bk=64", "--json")
    assert rc == 0, err
    h100, v5e = json.loads(out)
    for rec in (h100, v5e):
        assert rec["tile"] == {"bm": 128, "bn": 128, "bk": 64}
        for lv in rec["levels"]:
            assert {"level", "bytes", "intensity", "bandwidth", "critical_intensity", "t"} <= set(lv)
    by = {lv["level"]: lv for lv in h100["levels"]}
    assert [lv["level"] for lv in h100["levels"]] == ["smem", "l2", "hbm"]
    assert by["l2"]["bytes"] == 4_456_448 and by["hbm"]["bytes"] == 1_835_008
    assert by["l2"]["bandwidth"] == 5.5e12 and by["l2"]["t"] == pytest.approx(4_456_448 / 5.5e12)
    assert by["smem"]["bandwidth"] is None and by["smem"]["t"] is None
    assert h100["binding_level"] == "l2"
    assert [lv["bytes"] for lv in v5e["levels"]] == [4_456_448, 4_456_448]
    assert v5e["binding_level"] == "hbm"


def test_analyze_without_tile_has_no_levels(capsys):
    rc, out, _ = run(capsys, "analyze", *HAND, "--chip", "h100-sxm", "--json")
    assert rc == 0 and "levels" not in json.loads(out)[0]


def test_analyze_tile_table_says_which_level_binds(capsys):
    rc, out, _ = run(capsys, "analyze", *HAND, "--chip", "h100-sxm", "--tile", "bm=128,bn=128,bk=64")
    assert rc == 0
    assert "Tile                   bm=128 × bn=128 × bk=64" in out
    assert "Binding level          L2 cache binds" in out


def test_a_tile_that_overflows_lds_is_reported(capsys):
    rc, out, _ = run(capsys, "analyze", *HAND, "--chip", "mi300x", "--tile", "bm=256,bn=256")
    assert rc == 0 and "tile working set" in out and "exceed LDS (local data share)" in out


@pytest.mark.parametrize("tile, message", [
    ("bm=128,bn=12.5", "--tile: bn must be a whole number from 1 to 1048576 (got 12.5)"),
    ("bm=128", "--tile: bn is missing (give bm and bn, e.g. bm=128,bn=128)"),
    ("bm=128,bn=0", "--tile bn: must be greater than zero (got 0)"),
    ("bm=128,bn=64,bq=2", "--tile: unknown tile size 'bq' (use bm, bn and optionally bk)"),
    ("bm=x,bn=2", "--tile bm: 'x' is not a number"),
    ("128", "--tile: '128' should look like NAME=VALUE"),
])
def test_bad_tile_values_are_one_clear_message(capsys, tile, message):
    rc, out, err = run(capsys, "analyze", *HAND, "--chip", "h100-sxm", "--tile", tile)
    assert rc == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_tile_on_an_op_that_takes_none(capsys):
    rc, _, err = run(capsys, "analyze", "--op", "dot", "--chip", "h100-sxm", "--tile", "bm=8,bn=8")
    assert rc == 2 and "only a matmul op takes a tile (this scenario has dot)" in err


def test_working_derives_each_levels_bytes(capsys):
    rc, out, _ = run(capsys, "analyze", *HAND, "--chip", "h100-sxm", "--tile", "bm=128,bn=128,bk=64",
                     "--working")
    assert rc == 0
    assert ("tile traffic T = B·D·2·⌈F/bn⌉ + D·F·2·⌈B/bm⌉ + B·F·2 = 256·1024·2·4 + 1024·512·2·2 "
            "+ 256·512·2 = 4.46 MB") in out
    assert "HBM: U: the operands fit in L2 cache; intensity 146.3 FLOP/B" in out
    assert "tile working set = bm·bk·2 + bk·bn·2 + bm·bn·2 with bk = 64 = 65.5 kB" in out
