"""``roofgui export``: files of every kind with no display, one-line errors with exit 2,
never a half-written file."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roofgui.cli import main
from roofgui.model.scenario import save_scenario
from test_export_support import ROOT_DIR, two_chip_scenario

pytest.importorskip("PySide6")


def _env_without_display() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "roofgui", "export", *args],
                          capture_output=True, text=True, env=_env_without_display(),
                          cwd=ROOT_DIR, timeout=300)


@pytest.fixture
def scenario_file(tmp_path) -> Path:
    p = tmp_path / "scenario.json"
    save_scenario(two_chip_scenario(), p)
    return p


def test_png_svg_pdf_csv_without_a_display(tmp_path, scenario_file):
    from PySide6.QtGui import QImage

    outs = {s: tmp_path / f"out{s}" for s in (".png", ".svg", ".pdf", ".csv")}
    for suffix, out in outs.items():
        extra = ["--width", "1280", "--height", "720"] if suffix != ".csv" else []
        r = run_cli(str(scenario_file), "-o", str(out), *extra)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
        assert out.exists() and out.stat().st_size > 500
    img = QImage(str(outs[".png"]))
    assert (img.width(), img.height()) == (1280, 720)
    assert outs[".pdf"].read_bytes().startswith(b"%PDF-")
    assert b"<svg" in outs[".svg"].read_bytes()[:400]
    assert outs[".csv"].read_text().startswith("op,phase,chip,flops,")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["scenario.json"] + [o.name for o in outs.values()])  # no temporary files left


def _one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("roofgui: error: ")
    assert "Traceback" not in r.stderr
    return lines[0]


def test_bad_input_is_one_line_and_exit_2(tmp_path, scenario_file):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"format": "roofgui-scenario", "version": 1, "ops": [}')
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"format": "roofgui-scenario", "version": 1, "chips": ["no-such-chip"]}')
    out = tmp_path / "out.png"
    cases = [
        ([str(tmp_path / "missing.json"), "-o", str(out)], "cannot read"),
        ([str(bad_json), "-o", str(out)], "not valid JSON"),
        ([str(wrong), "-o", str(out)], "no-such-chip"),
        ([str(scenario_file), "-o", str(tmp_path / "out.jpg")], "unknown file type"),
        ([str(scenario_file), "-o", str(tmp_path / "nodir" / "out.png")], "does not exist"),
        ([str(scenario_file), "-o", str(tmp_path)], "directory"),
        ([str(scenario_file), "-o", str(out), "--width", "0"], "width"),
        ([str(scenario_file), "-o", str(out), "--width", "wide"], "--width"),
        ([str(scenario_file), "-o", str(out), "--height", "99999"], "height"),
        ([str(scenario_file), "-o", str(out), "--plot", "pie"], "--plot"),
        ([str(scenario_file), "-o", str(out), "--style", "neon"], "--style"),
        ([str(scenario_file), "-o", str(tmp_path / "t.csv"), "--width", "800"], "only for pictures"),
        ([str(scenario_file)], "-o"),
    ]
    for args, words in cases:
        line = _one_line_error(run_cli(*args))
        assert words in line, (args, line)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "scenario.json",
                                                          "wrong.json"]


@pytest.mark.skipif(sys.platform == "win32" or (hasattr(os, "geteuid") and os.geteuid() == 0),
                    reason="root can write anywhere")
def test_unwritable_directory(tmp_path, scenario_file):  # pragma: no cover - not as root
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        line = _one_line_error(run_cli(str(scenario_file), "-o", str(ro / "x.png")))
        assert "not writable" in line
    finally:
        ro.chmod(0o700)


def test_a_failed_render_leaves_the_old_file_untouched(qapp, tmp_path, scenario_file, monkeypatch):
    """Never a half-written file: a failure while encoding keeps the previous export."""
    from roofgui.export import render

    out = tmp_path / "plot.png"
    out.write_bytes(b"previous export")

    def boom(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(render.Figure, "png_bytes", boom)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    rc = main(["export", str(scenario_file), "-o", str(out)], out=io.StringIO())
    assert rc == 2
    assert "No space left on device" in err.getvalue()
    assert out.read_bytes() == b"previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.png", "scenario.json"]


def test_atomic_write_failure_midway_keeps_the_old_file(tmp_path, monkeypatch):
    from roofgui.model import paths

    target = tmp_path / "table.csv"
    target.write_text("old")

    def bad_replace(src, dst):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(paths.os, "replace", bad_replace)
    with pytest.raises(OSError):
        paths.atomic_write(target, "new contents")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]


def test_size_defaults_and_aspect(tmp_path, scenario_file):
    from roofgui.cli.export import resolve_size

    assert resolve_size(None, None) == (1920, 1080)
    assert resolve_size(3840, None) == (3840, 2160)
    assert resolve_size(None, 1440) == (2560, 1440)
    assert resolve_size(1000, 1000) == (1000, 1000)


def test_unwritable_directory_in_process(tmp_path, scenario_file, monkeypatch):
    """The same refusal, checked as root too (root may write anywhere, so fake the answer)."""
    from roofgui.cli import export as export_cli

    monkeypatch.setattr(export_cli.os, "access", lambda path, mode: False)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    out = tmp_path / "x.png"
    assert main(["export", str(scenario_file), "-o", str(out)], out=io.StringIO()) == 2
    assert err.getvalue().count("\n") == 1 and "not writable" in err.getvalue()
    assert not out.exists()
