"""Large sweeps: refused up front when memory cannot hold them, streamed to CSV in bounded
memory otherwise; exports onto links go through the link (or are refused, leaving it)."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from roofgui.cli import main
from roofgui.export import csv as export_csv
from roofgui.export.render import export_file
from roofgui.model.catalog import Catalog
from roofgui.model.errors import ModelError
from roofgui.model.evaluate import check_sweep_size, sweep_scenario
from roofgui.model.scenario import OpSpec, Scenario, SweepSpec, save_scenario

BF16 = {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"}


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


def big_scenario(ops: int, chips: list[str], points: int) -> Scenario:
    sc = Scenario(ops=[OpSpec(f"m{i}", "matmul", {"B": 8, "D": 1024 * (i + 1), "F": 4096}, dict(BF16))
                       for i in range(ops)], chips=chips)
    sc.sweep = SweepSpec("B", 1, 16384, points, "flops")
    return sc


def test_a_sweep_past_memory_is_refused_saying_how_large(catalog):
    sc = big_scenario(200, catalog.ids()[:20], 100_000)
    with pytest.raises(ModelError, match=r"would hold 400,000,000 values \(8\.9 GiB\); at most"):
        check_sweep_size(sc, 20)
    assert check_sweep_size(big_scenario(2, ["h100-sxm"], 400), 1) == 800


def test_export_of_a_huge_sweep_picture_is_refused_up_front(capsys, catalog, tmp_path):
    p = tmp_path / "huge.json"
    save_scenario(big_scenario(200, catalog.ids()[:20], 100_000), p)
    rc = main(["export", str(p), "--plot", "sweep", "-o", str(tmp_path / "huge.png")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.splitlines()) == 1 and "would hold 400,000,000 values" in err
    assert not (tmp_path / "huge.png").exists()


def test_a_sweep_csv_streams_in_bounded_memory(catalog, tmp_path, monkeypatch):
    # 4 ops × 5 chips × 2,500 points: the whole-table path peaks at ~12 MiB, the streamed
    # one at ~2 MiB with 5,000 values a chunk: bounded by the chunk, whatever the sweep's size
    sc = big_scenario(4, catalog.ids()[:5], 2500)
    monkeypatch.setattr(export_csv, "CHUNK_VALUES", 5000, raising=False)
    out = tmp_path / "sweep.csv"
    tracemalloc.start()
    try:
        export_file(out, sc, catalog, "sweep")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 2**20, f"peak {peak / 2**20:.1f} MiB"
    whole = export_csv.sweep_csv(sc, catalog, sweep_scenario(sc, catalog)[0])
    assert out.read_bytes() == whole.encode("utf-8")  # the same numbers, row by row


def test_the_cli_streams_a_sweep_csv(capsys, catalog, tmp_path, monkeypatch):
    monkeypatch.setattr(export_csv, "CHUNK_VALUES", 50, raising=False)
    sc = big_scenario(3, ["tpu-v5e", "h100-sxm"], 101)
    p = tmp_path / "s.json"
    save_scenario(sc, p)
    assert main(["export", str(p), "--plot", "sweep", "-o", str(tmp_path / "s.csv")]) == 0
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert len(lines) == 102 and len(lines[0].split(",")) == 1 + 3 * 2 * 2


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("suffix, plot", [("csv", "sweep"), ("csv", "roofline"), ("svg", "roofline")])
def test_an_export_onto_a_link_to_dev_full_is_refused(capsys, tmp_path, suffix, plot):
    pytest.importorskip("PySide6")
    p = tmp_path / "s.json"
    save_scenario(big_scenario(1, ["h100-sxm"], 50), p)
    link = tmp_path / f"out.{suffix}"
    link.symlink_to("/dev/full")
    rc = main(["export", str(p), "--plot", plot, "-o", str(link)])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.splitlines()) == 1 and "not a regular file" in err
    assert link.is_symlink() and os.readlink(link) == "/dev/full"
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(["s.json", link.name])


@pytest.mark.parametrize("kind, suffix", [("symlink", "csv"), ("hardlink", "csv"), ("symlink", "png"),
                                          ("hardlink", "pdf")])
def test_an_export_onto_a_link_updates_its_target(capsys, tmp_path, kind, suffix):
    if suffix != "csv":
        pytest.importorskip("PySide6")
    p = tmp_path / "s.json"
    save_scenario(big_scenario(1, ["h100-sxm"], 50), p)
    target = tmp_path / f"target.{suffix}"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / f"link.{suffix}"
    link.symlink_to(target) if kind == "symlink" else os.link(target, link)
    assert main(["export", str(p), "--plot", "sweep", "-o", str(link)]) == 0
    assert link.is_symlink() == (kind == "symlink")
    head = {"csv": b"B,", "png": b"\x89PNG", "pdf": b"%PDF"}[suffix]
    assert target.read_bytes().startswith(head) and link.read_bytes() == target.read_bytes()
    assert target.stat().st_mode & 0o777 == 0o640
    assert not [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]


def test_an_export_path_too_long_is_one_line(capsys, tmp_path):
    p = tmp_path / "s.json"
    save_scenario(big_scenario(1, ["h100-sxm"], 50), p)
    rc = main(["export", str(p), "-o", str(tmp_path / ("a" * 300 + ".csv"))])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.splitlines()) == 1 and "too long" in err and "internal" not in err
