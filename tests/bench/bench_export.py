"""Part 4 — export of the busy scenario: a 3840×2160 PNG and an SVG, both plots.

Each figure is ``roofgui.export.render.export_file`` end to end, as the
export dialog and ``roofgui export`` call it: evaluate the scenario, build
the plot offscreen at the picture's size, paint, encode, write atomically.
The baseline, measured in the same process, is the floor of any 4K PNG: Qt
encoding the very same 3840×2160 image (``QImage.save`` to a buffer), with
no plot to build or paint.  ``cpu`` holds the process CPU time of each export
(all threads; the PNG encoder deflates on several), which a loaded machine
inflates less than the wall time; ``png_4k_phases`` splits a 4K PNG export into
building the figure, painting it and encoding it.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401
from _common import busy_scenario, emit, summary


def _time(fn, repeats, cpu=None):
    """Wall times of ``repeats`` calls; with a list ``cpu``, the process CPU time of
    each call (all threads: the PNG encoder compresses on several) is appended to it."""
    out = []
    for _ in range(repeats):
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
        if cpu is not None:
            cpu.append(time.process_time() - c0)
    return out


def _phases(sc, catalog, repeats: int) -> dict:
    """Where a 4K PNG export's time goes, per plot: building the laid-out figure
    (plot widget, items, settling), painting the picture, encoding it — wall time,
    and the process CPU time of each phase."""
    from roofgui.export.render import ExportOptions, Figure, encode_png

    out = {}
    for plot in ("roofline", "sweep"):
        wall: dict[str, list] = {"build": [], "paint": [], "encode": []}
        cpu: dict[str, list] = {k: [] for k in wall}
        for _ in range(repeats):
            gc.collect()
            marks = [(time.perf_counter(), time.process_time())]
            fig = Figure(sc, catalog, ExportOptions(plot, 3840, 2160))
            marks.append((time.perf_counter(), time.process_time()))
            img = fig.painted_image()
            marks.append((time.perf_counter(), time.process_time()))
            encode_png(img)
            marks.append((time.perf_counter(), time.process_time()))
            fig.close()
            for k, (a, b) in zip(wall, zip(marks, marks[1:])):
                wall[k].append(b[0] - a[0])
                cpu[k].append(b[1] - a[1])
        out[plot] = {k: summary(v) for k, v in wall.items()}
        out[plot]["cpu"] = {k: summary(v) for k, v in cpu.items()}
    return out


def run(repeats: int = 5) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tmp = Path(tempfile.mkdtemp(prefix="roofgui-export-"))
    os.environ["ROOFGUI_HOME"] = str(tmp / "home")
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["bench-export"])
    from roofgui.export.render import export_file, render_image
    from roofgui.model.catalog import Catalog

    catalog = Catalog.load(user_dir=False)
    sc = busy_scenario()
    cases = {
        "png_4k_roofline": dict(path=tmp / "r.png", plot="roofline", width=3840, height=2160),
        "png_4k_sweep": dict(path=tmp / "s.png", plot="sweep", width=3840, height=2160),
        "svg_roofline": dict(path=tmp / "r.svg", plot="roofline", width=1920, height=1080),
        "svg_sweep": dict(path=tmp / "s.svg", plot="sweep", width=1920, height=1080),
    }
    for kw in cases.values():  # warm up: first use of fonts, the style, numpy paths
        export_file(scenario=sc, catalog=catalog, **kw)
    samples = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    img = render_image(sc, catalog, "roofline", 3840, 2160)

    def encode():
        buf = QtCore.QBuffer()
        buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
        img.save(buf, "PNG")

    floor = []
    for _ in range(repeats):  # interleaved, so noise hits every case alike
        for name, kw in cases.items():
            samples[name] += _time(lambda: export_file(scenario=sc, catalog=catalog, **kw), 1,
                                   cpu[name])
        floor += _time(encode, 1)
    out = {k: summary(v) for k, v in samples.items()}
    out["png_4k_encode_floor"] = summary(floor)
    # process CPU time of each export (every thread), beside the wall time: on a busy
    # machine the wall time also holds the waits for a CPU
    out["cpu"] = {k: summary(v) for k, v in cpu.items()}
    out["png_4k_phases"] = _phases(sc, catalog, repeats)
    out["sizes_bytes"] = {k: kw["path"].stat().st_size for k, kw in cases.items()}
    f = out["png_4k_encode_floor"]["median"]
    out["ratio_png_4k_roofline"] = out["png_4k_roofline"]["median"] / f
    out["ratio_png_4k_sweep"] = out["png_4k_sweep"]["median"] / f
    app.processEvents()
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json")
    a = p.parse_args()
    emit(run(a.repeats), a.json)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
