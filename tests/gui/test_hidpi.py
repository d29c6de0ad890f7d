"""On a high-density screen (twice as many device pixels per logical one) the window's plots,
which keep a picture of the lines an edit leaves alone (``CacheLayer``), must show what a
plain plot shows: a picture drawn with the painter's combined transform, which in Qt 6
already holds the screen's pixel ratio, would put every kept line at twice its place.  The
cache layers' tests are run again in a process whose screen has a pixel ratio of 2 (Qt reads
the ratio when its application starts, so it takes a process of its own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_cache_layer_tests_pass_on_a_screen_with_twice_the_pixels():
    env = dict(os.environ, QT_SCALE_FACTOR="2", QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(HERE / "test_roofline_edits.py"), str(HERE / "test_sweep_items.py"),
                        "-k", "cache_layers or matches_a_fresh_plot"],
                       capture_output=True, text=True, env=env, cwd=HERE.parent.parent,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout


def test_the_subprocess_really_has_twice_the_pixels():
    """(What the test above relies on: the child's screen reports a pixel ratio of 2.)"""
    env = dict(os.environ, QT_SCALE_FACTOR="2", QT_QPA_PLATFORM="offscreen")
    code = ("from PySide6.QtWidgets import QApplication; app = QApplication([]); "
            "print(app.primaryScreen().devicePixelRatio())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout.strip()) == 2.0
