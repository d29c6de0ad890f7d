"""The validation suite (model.validation_suite, model.validate) and ``roofgui validate``
(cli.validate, called through its own parser)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from roofgui.cli import main as cli_main
from roofgui.model.llm import llm_summary
from roofgui.model.catalog import Catalog
from roofgui.model.measured import MeasurementError
from roofgui.model.validate import evaluate_row, validate
from roofgui.model.validation_suite import (KERNEL_COLUMNS, SERVING_COLUMNS, load_suite,
                                            shipped_suite_files)

A100_FP16 = 312e12  # specs/a100-80gb.toml, matrix fp16
HEADER = ",".join(KERNEL_COLUMNS)


def approx(v):
    return pytest.approx(v, rel=1e-12)


def gemm_line(rid: str, m: int, n: int, k: int, ms: float, chip: str = "a100-80gb") -> str:
    return f'{rid},{chip},{m},{n},{k},fp16,{ms!r},test,tests/test_validate.py,1,"row {rid}"'


def write(tmp_path: Path, name: str, *lines: str) -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli_main(["validate", *argv], out=out), out.getvalue()


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


@pytest.fixture(scope="module")
def shipped():
    return load_suite()


@pytest.fixture(scope="module")
def report(shipped, catalog):
    """The shipped suite validated once for the tests that read it (a few seconds)."""
    return validate(shipped, catalog)


# -- the shipped suite ---------------------------------------------------------------

def test_shipped_suite_loads_with_a_citation_per_row(shipped):
    assert [p.name for p in shipped_suite_files()] == ["gemm.csv", "gemm_xla.csv", "serving.csv"]
    assert len(shipped) >= 20
    assert len({r.chip for r in shipped}) >= 3
    for r in shipped:
        assert r.source and r.file and r.version and r.row, r.id
    readme = (shipped_suite_files()[0].parent / "README.md").read_text(encoding="utf-8")
    for r in shipped:
        assert r.source in readme and r.file in readme, r.id


def test_xla_rows_are_the_published_throughputs_as_times(shipped):
    # milliseconds = 2·m·n·k / flops, the flops value quoted in the citation
    rows = [r for r in shipped if r.id.startswith("xla-")]
    assert len(rows) == 81 and {r.chip for r in rows} == {"h100-sxm", "b200", "mi300x"}
    r = next(r for r in rows if r.id == "xla-b200-bf16-256x256x256")
    assert r.measured == 0.004960 and "value: 6765006451612" in r.row
    m, n, k = 256, 256, 256
    assert 2 * m * n * k / 6765006451612 * 1e3 == pytest.approx(r.measured, abs=5e-7)


def test_shipped_suite_is_consistent_and_reports_its_mape(report):
    assert report.consistent, [r.row.id for r in report.inconsistent]
    assert all(r.ratio >= 1.0 for r in report.rows)
    assert all(r.calibrated is not None for r in report.rows)
    assert 0.0 < report.mape_calibrated < 0.15  # the goal (docs/validation.md)


def test_gemm_row_bound_is_t_lower(report):
    row = next(r for r in report.rows
               if r.row.id == "llmcompass-a100-gemm-8192x8192x8192")
    bound_ms = 2 * 8192**3 / A100_FP16 * 1e3  # compute-bound: T_math
    assert (row.row.measured, row.bound) == (3.9614, approx(bound_ms))
    assert row.ratio == approx(3.9614 / bound_ms)
    assert row.row.citation.endswith("line 18: 8192, 8192, 8192, 3.9614ms, 277.5532Tflops")


def test_throughput_row_bound_is_the_analytic_maximum_per_gpu(report, catalog):
    r = next(r for r in report.rows
             if r.row.id == "trtllm-h100-sxm-llama-2-70b-tput-b1024-tp2-128-128")
    s = llm_summary(r.row.op, catalog.get("h100-sxm"))
    assert r.row.measured == 2657 and r.row.unit == "out tok/s/GPU"
    assert r.bound == approx(s["serving"]["throughput_decode_max"] / 2)
    assert r.ratio == approx(r.bound / 2657)  # how many times slower than the bound


# -- leave-one-out through the suite --------------------------------------------------

def test_leave_one_out_prediction_in_the_suite(tmp_path, catalog):
    # three compute-bound GEMMs measured at exactly 80 % of the fp16 peak: each row's
    # fraction fitted from the other two is 0.8, so every prediction is exact
    dims = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 4096)]
    lines = [gemm_line(f"g{i}", m, n, k, 2 * m * n * k / A100_FP16 / 0.8 * 1e3)
             for i, (m, n, k) in enumerate(dims)]
    report = validate(load_suite([write(tmp_path, "s.csv", HEADER, *lines)]), catalog)
    for r in report.rows:
        assert r.calibrated == approx(r.row.measured)
        assert r.ratio == approx(1 / 0.8)
    assert report.mape_calibrated == pytest.approx(0.0, abs=1e-12)
    (cal,) = report.calibrations
    assert (cal.name, cal.fractions.compute, cal.fractions.memory) == \
        ("fitted-a100-80gb-fp16-kernel", approx(0.8), None)


def test_kernel_prediction_is_the_roofline_under_the_calibration_settings(tmp_path, catalog):
    # a compute-bound row at 0.8 and a memory-bound one at 0.5 (no floor fits better):
    # the fitted calibration, applied through its settings, gives the same times
    t_c = 2 * 8192**3 / A100_FP16
    lines = [gemm_line("c1", 8192, 8192, 8192, t_c / 0.8 * 1e3),
             gemm_line("c2", 8192, 8192, 8192, t_c / 0.8 * 1e3),
             gemm_line("m1", 8192, 16, 8192, 1.0), gemm_line("m2", 8192, 16, 8192, 1.0)]
    rows = load_suite([write(tmp_path, "s.csv", HEADER, *lines)])
    report = validate(rows, catalog)
    (cal,) = report.calibrations
    assert cal.fractions.compute == approx(0.8) and cal.fractions.floor is None
    chip = catalog.get("a100-80gb")
    for r in report.rows:
        assert evaluate_row(r.row, chip, cal.settings()).value == approx(r.row.measured)
        assert r.calibrated == approx(r.row.measured)


def test_a_launch_overhead_is_fitted_and_predicts_small_gemms(tmp_path, catalog):
    # every GEMM takes 20 µs of launch plus its bound at 0.8 of peak: the small ones are
    # mostly overhead, and each is predicted from the others within rounding
    dims = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
            (8192, 8192, 8192), (512, 8192, 4096)]
    lines = [gemm_line(f"g{i}", m, n, k, (20e-6 + 2 * m * n * k / A100_FP16 / 0.8) * 1e3)
             for i, (m, n, k) in enumerate(dims)]
    report = validate(load_suite([write(tmp_path, "s.csv", HEADER, *lines)]), catalog)
    (cal,) = report.calibrations
    assert cal.fractions.compute == pytest.approx(0.8, rel=1e-4)
    assert cal.fractions.overhead == pytest.approx(20e-6, rel=1e-3)
    assert report.mape_calibrated < 0.01  # (left out, the smallest shows the overhead least)
    assert "launch overhead 20 µs a kernel" in cal.describe()


def test_a_serving_row_is_the_sum_of_its_ops(shipped, catalog):
    # a throughput row's terms: every op of the prefill step and of d decode steps
    r = next(x for x in shipped if x.id == "trtllm-h100-sxm-llama-2-7b-tput-b48-tp1-2048-2048")
    a = evaluate_row(r, catalog.get(r.chip))
    s = llm_summary(r.op, catalog.get(r.chip))
    d = 2048
    launches = sum(p["count"] for p in s["phases"]["prefill"]["parts"]) \
        + d * sum(p["count"] for p in s["phases"]["decode"]["parts"])
    assert sum(t[0] for t in a.terms) == launches
    assert sum(t[1] for t in a.terms) == pytest.approx(a.t_math, rel=1e-9)


def test_leave_one_out_excludes_the_row_itself(tmp_path, catalog):
    t = 2 * 8192**3 / A100_FP16 * 1e3
    lines = [gemm_line("a", 8192, 8192, 8192, t / 0.8), gemm_line("b", 8192, 8192, 8192, t / 0.5)]
    a, b = validate(load_suite([write(tmp_path, "s.csv", HEADER, *lines)]), catalog).rows
    assert (a.calibrated, b.calibrated) == (approx(t / 0.5), approx(t / 0.8))


# -- the command --------------------------------------------------------------------

@pytest.fixture
def shipped_report_reused(monkeypatch, shipped, report):
    """``roofgui validate`` on the shipped suite gets the report this module computed once
    (``validate`` of the same rows, and with no user chips the same catalog: a few seconds of
    fitting a run); any other rows it validates as usual."""
    import roofgui.model.validate as model_validate

    validate_anew = model_validate.validate

    def validate_once(rows, catalog=None):
        if catalog is None and list(rows) == list(shipped):
            return report
        return validate_anew(rows, catalog)

    monkeypatch.setattr(model_validate, "validate", validate_once)


def test_json_shape(shipped_report_reused):
    status, text = run_cli("--json")
    assert status == 0
    data = json.loads(text)
    assert set(data) == {"rows", "summary"}
    for row in data["rows"]:
        assert {"id", "source", "chip", "what", "measured", "bound", "ratio", "calibrated",
                "consistent"} <= set(row)
    assert {"count", "mape_calibrated", "consistent"} <= set(data["summary"])
    assert data["summary"]["count"] == len(data["rows"]) >= 20
    assert data["summary"]["consistent"] is True
    cals = data["summary"]["calibrations"]
    assert {c["workload"] for c in cals} == {"kernel", "throughput", "latency"}
    assert all(0 < c["mape_calibrated"] < 2 for c in cals)


def test_text_output_names_the_mape(shipped_report_reused):
    status, text = run_cli()
    assert status == 0
    assert "calibrated MAPE (leave-one-out)" in text
    assert "llmcompass-a100-gemm-8192x8192x8192" in text


def test_a_row_faster_than_its_bound_exits_1_and_is_named(tmp_path, capsys):
    t = 2 * 8192**3 / A100_FP16 * 1e3
    path = write(tmp_path, "wrong.csv", HEADER, gemm_line("ok", 8192, 8192, 8192, t * 1.1),
                 gemm_line("too-fast", 8192, 8192, 8192, t / 2))
    status, text = run_cli("--data", str(path))
    assert status == 1
    err = capsys.readouterr().err
    assert f"too-fast ({path}:3) is faster than its bound" in err
    assert "ok (" not in err
    assert "too-fast" in text and "BEATS ITS BOUND" in text
    status, text = run_cli("--json", "--data", str(path))
    s = json.loads(text)["summary"]
    assert status == 1 and s["consistent"] is False and s["inconsistent"] == ["too-fast"]


@pytest.mark.parametrize("lines, where", [
    ((HEADER, gemm_line("a", 64, 64, 64, 1.0).replace(",64,64,64,", ",64,x,64,")), ":2:4: N:"),
    ((HEADER, "a,a100-80gb,64"), ":2:4: 3 fields"),
    (("name,seconds",), ":1:1: unknown header"),
    ((HEADER, gemm_line("a", 64, 64, 64, 0.0)), ":2:7: milliseconds: must be a positive"),
    ((",".join(SERVING_COLUMNS), "s,h100-sxm,llama-2-7b,1,1,128,1,fp8,fp16,fp8,fp8,tok,1,"
      "a,b,c,d"), ":2:12: metric: unknown metric"),
])
def test_malformed_data_exits_2_naming_file_line_column(tmp_path, capsys, lines, where):
    path = write(tmp_path, "bad.csv", *lines)
    with pytest.raises(MeasurementError):
        load_suite([path])
    status, _ = run_cli("--data", str(path))
    assert status == 2
    assert f"{path}{where}" in capsys.readouterr().err


def test_unknown_chip_and_missing_file_exit_2(tmp_path, capsys):
    path = write(tmp_path, "chip.csv", HEADER, gemm_line("a", 64, 64, 64, 1.0, chip="nope"))
    assert run_cli("--data", str(path))[0] == 2
    assert run_cli("--data", str(tmp_path / "missing.csv"))[0] == 2
    err = capsys.readouterr().err
    assert "nope" in err and "missing.csv:1:1: cannot read" in err
