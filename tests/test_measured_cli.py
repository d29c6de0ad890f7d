"""A measured kernel against a chip's roofline (model.measured.roof; its line from presentation.measured_text), and
``roofgui measured`` (cli.measured, called through its own parser)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from roofgui.cli import main as cli_main
from roofgui.model.catalog import Catalog
from roofgui.model.chips import make_chip
from roofgui.model.measured import Kernel, parse_measurements
from roofgui.model.measured.roof import RECORD_FIELDS, place
from roofgui.presentation.measured_text import summary

FIX = Path(__file__).parent / "fixtures" / "measured"
CHIP = make_chip("test-chip", "Test Chip", peak=100e12, hbm_bandwidth=2e12,
                 matrix={"fp32": 50e12}, vector={"fp32": 20e12})


def approx(v):
    return pytest.approx(v, rel=1e-12)


def kernel(**kw) -> Kernel:
    base = dict(name="k", count=1, seconds=1e-3, flops=None, hbm_bytes=None, format="plain")
    base.update(kw)
    return Kernel(**base)


def test_memory_bound_kernel():
    # I = 1e9 / 1e9 = 1 FLOP/B; the slope 1 x 2e12 = 2e12 < 100e12: memory-bound
    p = place(kernel(flops=1e9, hbm_bytes=1e9), CHIP)
    assert (p.intensity, p.achieved_flops, p.achieved_bandwidth) == (1.0, approx(1e12), approx(1e12))
    assert (p.attainable_flops, p.bound, p.roof_fraction) == (approx(2e12), "memory", approx(0.5))
    assert (p.peak, p.peak_key, p.unit) == (100e12, "bf16", "matrix")  # dtype unknown: bf16


def test_compute_bound_kernel_and_its_dtype_peak():
    # 1e11 FLOPs in 2 ms = 5e13 FLOP/s; I = 1e5, slope 2e17 > the 100e12 peak
    p = place(kernel(seconds=2e-3, flops=1e11, hbm_bytes=1e6), CHIP)
    assert (p.attainable_flops, p.bound, p.roof_fraction) == (100e12, "compute", approx(0.5))
    v = place(kernel(seconds=2e-3, flops=1e11, hbm_bytes=1e6, dtype="fp32", unit="vector"), CHIP)
    assert (v.peak, v.roof_fraction) == (20e12, approx(5e13 / 20e12))  # above its roof
    assert "ABOVE its roof" in summary(v)


def test_unknown_counts_use_the_one_roof_known():
    no_bytes = place(kernel(flops=1e10), CHIP)            # a PyTorch trace: no bytes
    assert (no_bytes.bound, no_bytes.attainable_flops, no_bytes.roof_fraction) == \
        ("unknown", 100e12, approx(1e13 / 100e12))
    no_flops = place(kernel(hbm_bytes=1e9), CHIP)
    assert (no_flops.bound, no_flops.attainable_flops, no_flops.roof_fraction) == \
        ("unknown", None, approx(1e12 / 2e12))
    nothing = place(kernel(), CHIP)
    assert (nothing.bound, nothing.roof_fraction) == ("unknown", None)
    assert "not placed" in summary(nothing)
    copy = place(kernel(flops=0.0, hbm_bytes=1e9), CHIP)  # a copy: intensity 0
    assert (copy.bound, copy.attainable_flops, copy.roof_fraction) == ("memory", 0.0, approx(0.5))


def test_record_fields_and_summary_line():
    p = place(kernel(name="gemm", count=3, flops=1e9, hbm_bytes=1e9), CHIP)
    assert tuple(p.record()) == RECORD_FIELDS
    assert p.record()["roof_fraction"] == approx(0.5)
    assert summary(p) == ("gemm \u00d73: 1 ms, 1 TFLOP/s, 1 TB/s, 1 FLOP/B \u2014 memory-bound, "
                           "50.0% of 2 TB/s HBM on test-chip")


# -- roofgui measured ----------------------------------------------------------------

def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return cli_main(["measured", *argv], out=out), out.getvalue()


def test_cli_json_records_against_a_catalog_chip():
    rc, text = run([str(FIX / "ncu_metrics.csv"), str(FIX / "plain.csv"), "--chip", "h100-sxm", "--json"])
    assert rc == 0
    rows = json.loads(text)
    assert [r["name"][:9] for r in rows] == ["ampere_bf", "void at::", "gemm_4096", "layernorm", "softmax"]
    chip = Catalog.load().get("h100-sxm")
    gemm = rows[0]
    assert set(RECORD_FIELDS) <= set(gemm) and gemm["format"] == "ncu" and gemm["count"] == 3
    flops = 137_438_953_472 + 2 * 1_048_576 + 65_536
    assert gemm["achieved_flops"] == approx(flops / 1050e-6)
    assert gemm["intensity"] == approx(flops / 51_380_224)
    peak = chip.peak("bf16").value
    assert gemm["bound"] == ("compute" if flops / 51_380_224 * chip.hbm_bandwidth.value >= peak
                             else "memory")
    assert gemm["roof_fraction"] == approx(flops / 1050e-6 / gemm["attainable_flops"])


def test_cli_text_lists_every_kernel():
    rc, text = run([str(FIX / "rocprof_mi200_pmc_perf.csv"), "--chip", "mi250x"])
    lines = text.splitlines()
    assert rc == 0 and len(lines) == 2
    assert lines[0].endswith("(rocprof-compute): 1 kernel, on " + Catalog.load().get("mi250x").name)
    assert "vecCopy" in lines[1] and "memory-bound" in lines[1]


@pytest.mark.parametrize("make, words", [
    (lambda d: (d / "bad.csv", "name,seconds,flops,bytes\n" + "k,1,1,1\n" * 5 + "k,slow,1,1\n"), ":7:2: "),
    (lambda d: (d / "x.csv", "a,b\n1,2\n"), ":1:1: unknown format"),
    (lambda d: (d / "empty.csv", ""), ":1:1: empty file"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, make, words):
    path, text = make(tmp_path)
    path.write_text(text)
    good = str(FIX / "plain.csv")
    rc, out = run([good, str(path), "--chip", "h100-sxm"])
    err = capsys.readouterr().err
    assert rc == 2 and out == ""                # nothing printed from the good file either
    assert err.count("\n") == 1 and f"{path}{words}" in err


def test_cli_unknown_chip_and_missing_file(capsys):
    rc, _ = run([str(FIX / "plain.csv"), "--chip", "no-such-chip"])
    assert rc == 2 and "unknown chip 'no-such-chip'" in capsys.readouterr().err
    rc, _ = run(["/nonexistent/trace.json", "--chip", "h100-sxm"])
    err = capsys.readouterr().err
    assert rc == 2 and "/nonexistent/trace.json:1:1: cannot read" in err


def test_cli_fixture_kernels_all_placed():
    for f in sorted(FIX.glob("*.*")):
        if f.suffix in (".csv", ".json"):
            for k in parse_measurements(f):
                assert place(k, CHIP).record()["count"] == k.count
