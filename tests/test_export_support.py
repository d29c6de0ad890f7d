"""Shared scenarios and pixel helpers for the export tests (no tests of its own)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from roofgui.model.scenario import OpSpec, Scenario, ShardSpec

ROOT_DIR = Path(__file__).resolve().parents[1]
BF16 = {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"}
#: The fixed view of :func:`two_chip_scenario` (log10 intensity, log10 FLOP/s).
VIEW = [0.0, 4.0, 11.0, 16.0]
#: Okabe–Ito blue and orange: the slide style's first two chip colours.
BLUE = (0x00, 0x72, 0xB2)
ORANGE = (0xE6, 0x9F, 0x00)


def two_chip_scenario(view=VIEW) -> Scenario:
    """The reference's bf16 matmul on TPU v5e (ridge 240) and H100 SXM (ridge 295)."""
    return Scenario(
        title="bf16 matmul: TPU v5e vs H100",
        ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, dict(BF16))],
        chips=["tpu-v5e", "h100-sxm"],
        view=_view(view),
    )


def _view(view):
    from roofgui.model.scenario import ViewSpec
    return ViewSpec(list(view) if view is not None else None)


def sharded_scenario() -> Scenario:
    """Two ops (one sharded over ICI) on TPU v5e: a link roof as well as HBM."""
    return Scenario(
        title="sharded",
        ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, dict(BF16)),
             OpSpec("sharded", "matmul", {"B": 16384, "D": 16384, "F": 16384}, dict(BF16),
                    ShardSpec("D", 2, "ici"))],
        chips=["tpu-v5e"],
    )


def rgb(img, x: int, y: int) -> tuple[int, int, int]:
    c = img.pixelColor(int(x), int(y))
    return c.red(), c.green(), c.blue()


def close(c1, c2, tol: int = 40) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(c1, c2))


def to_picture(axes, view, x_log: float, y_log: float) -> tuple[float, float]:
    """Data (log10) to picture coordinates, given the axes rectangle and view."""
    x0, x1, y0, y1 = view
    px = axes.left() + (x_log - x0) / (x1 - x0) * axes.width()
    py = axes.bottom() - (y_log - y0) / (y1 - y0) * axes.height()
    return px, py


def patch_colour(img, cx: float, cy: float, r: int = 4) -> tuple[int, int, int]:
    """The most common colour of a small square (robust to a grid line through it)."""
    counts: dict[tuple[int, int, int], int] = {}
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            c = rgb(img, cx + dx, cy + dy)
            counts[c] = counts.get(c, 0) + 1
    return max(counts.items(), key=lambda kv: kv[1])[0]


def run_thickness(img, x: int, y_centre: float, colour, span: int, tol: int = 60) -> int:
    """Longest vertical run of pixels near ``colour`` in column ``x`` around ``y_centre``."""
    best = run = 0
    for y in range(max(0, int(y_centre) - span), min(img.height(), int(y_centre) + span)):
        if close(rgb(img, x, y), colour, tol):
            run += 1
            best = max(best, run)
        else:
            run = 0
    return best


def rgb_array(img):
    """A picture's red, green and blue as an (h, w, 3) int array: ``rgb(img, x, y)`` is
    ``tuple(rgb_array(img)[y, x])`` (one conversion instead of a call per pixel)."""
    import numpy as np
    from PySide6.QtGui import QImage

    a = img.convertToFormat(QImage.Format.Format_RGBA8888)
    rows = np.frombuffer(a.constBits(), np.uint8, a.sizeInBytes()).reshape(a.height(), -1)
    return rows[:, :a.width() * 4].reshape(a.height(), a.width(), 4)[..., :3].astype(int)


def near(pixels, colour, tol: int = 40):
    """Where an (h, w, 3) array is ``close`` to ``colour`` (a boolean (h, w) array)."""
    import numpy as np

    return (np.abs(pixels - np.asarray(colour)) <= tol).all(axis=-1)


def chip_pixels(img, rect, step: int = 2, tol: int = 25) -> tuple[int, int]:
    """How many pixels in blue or orange (sampled every ``step`` pixels each way) lie
    inside ``rect`` (edges included), and how many outside it."""
    import numpy as np

    a = rgb_array(img)[::step, ::step]
    ys, xs = np.nonzero(near(a, BLUE, tol) | near(a, ORANGE, tol))
    xs, ys = xs * step, ys * step
    inside = int(((xs >= rect.left()) & (xs <= rect.right())
                  & (ys >= rect.top()) & (ys <= rect.bottom())).sum())
    return inside, len(xs) - inside


def ink_box(img, rect, background=(255, 255, 255), tol: int = 60):
    """Bounding box (x0, y0, x1, y1) of pixels that differ from the background inside rect
    (a pixel outside the picture reads as black, as ``rgb`` reads it)."""
    import numpy as np

    x0, y0 = int(rect.left()), int(rect.top())
    x1, y1 = int(math.ceil(rect.right())), int(math.ceil(rect.bottom()))
    if x1 <= x0 or y1 <= y0:
        return None
    region = np.zeros((y1 - y0, x1 - x0, 3), int)
    a = rgb_array(img)
    cy0, cy1 = max(y0, 0), min(y1, a.shape[0])
    cx0, cx1 = max(x0, 0), min(x1, a.shape[1])
    if cy1 > cy0 and cx1 > cx0:
        region[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0] = a[cy0:cy1, cx0:cx1]
    ys, xs = np.nonzero(~near(region, background, tol))
    if not len(xs):
        return None
    return x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()), y0 + int(ys.max())


def distinct_colours(img, step: int = 7) -> int:
    import numpy as np

    if img.depth() != 32:
        return len({img.pixel(x, y) for y in range(0, img.height(), step)
                    for x in range(0, img.width(), step)})
    # a 32-bit pixel() is its stored word (RGB32's top byte is always 0xff)
    words = np.frombuffer(img.constBits(), np.uint32, img.sizeInBytes() // 4)
    words = words.reshape(img.height(), -1)[:, :img.width()]
    return int(np.unique(words[::step, ::step]).size)


def same_pixels(a, b) -> bool:
    """The same picture: same size, and all but a few antialiased pixels identical.

    Qt's text rasteriser is not bit-for-bit repeatable between runs (the glyph
    cache's history moves a glyph's edge by a few levels), so allow at most 0.1 %
    of the pixels to differ, each by at most 32 levels; a different style, size,
    plot or layout changes far more than that.
    """
    import numpy as np
    from PySide6.QtGui import QImage

    a = a.convertToFormat(QImage.Format.Format_ARGB32)
    b = b.convertToFormat(QImage.Format.Format_ARGB32)
    if a.size() != b.size():
        return False
    if a == b:
        return True
    x = np.frombuffer(a.constBits(), np.uint8, a.sizeInBytes()).astype(np.int16)
    y = np.frombuffer(b.constBits(), np.uint8, b.sizeInBytes()).astype(np.int16)
    d = np.abs(x - y).reshape(-1, 4).max(axis=1)
    return int(d.max()) <= 32 and np.count_nonzero(d) <= 0.001 * d.size


LEGEND_CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")


def data_points_scene(viewbox, step_px: float = 4.0) -> list[tuple[float, float]]:
    """Scene positions of everything data-like in a ViewBox: curve samples (densified
    to ``step_px``), scatter points and text labels.  Region fills are background."""
    import numpy as np
    import pyqtgraph as pg

    pts: list[tuple[float, float]] = []
    rect = viewbox.sceneBoundingRect()
    for item in viewbox.childGroup.childItems():
        if not item.isVisible() or isinstance(item, (pg.FillBetweenItem, pg.LinearRegionItem)):
            continue
        if isinstance(item, pg.TextItem):
            r = item.sceneBoundingRect()
            pts += [(r.left() + fx * r.width(), r.top() + fy * r.height())
                    for fx in (0.0, 0.25, 0.5, 0.75, 1.0) for fy in (0.0, 0.5, 1.0)]
        elif isinstance(item, pg.InfiniteLine):
            r = item.mapRectToScene(item.boundingRect()).intersected(rect)
            n = int(max(2, (r.width() + r.height()) / step_px))
            pts += [(r.left() + r.width() * i / n, r.top() + r.height() * i / n) for i in range(n + 1)]
        elif isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem, pg.ScatterPlotItem)):
            x, y = item.getData()
            if x is None or y is None or len(x) == 0:
                continue
            x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
            ok = np.isfinite(x) & np.isfinite(y)
            tr = item.sceneTransform()
            sx = tr.m11() * x[ok] + tr.m21() * y[ok] + tr.m31()
            sy = tr.m12() * x[ok] + tr.m22() * y[ok] + tr.m32()
            draws_line = isinstance(item, pg.PlotCurveItem) or (
                isinstance(item, pg.PlotDataItem) and item.opts.get("pen") is not None)
            if draws_line and sx.size > 1:  # densify each segment
                seg = np.hypot(np.diff(sx), np.diff(sy))
                for i in range(sx.size - 1):
                    t = np.linspace(0.0, 1.0, int(min(max(1, math.ceil(seg[i] / step_px)), 4000)),
                                    endpoint=False)
                    pts += list(zip((sx[i] + t * (sx[i + 1] - sx[i])).tolist(),
                                    (sy[i] + t * (sy[i + 1] - sy[i])).tolist()))
            pts += list(zip(sx.tolist(), sy.tolist()))
    return [(a, b) for a, b in pts if rect.left() <= a <= rect.right() and rect.top() <= b <= rect.bottom()]


def covered(points, rect, margin: float = 0.0) -> int:
    """How many of ``points`` lie in ``rect`` grown by ``margin``."""
    r = rect.adjusted(-margin, -margin, margin, margin)
    return sum(1 for x, y in points if r.left() <= x <= r.right() and r.top() <= y <= r.bottom())


# -- fixtures (imported by the test modules that use them) ---------------------------------
@pytest.fixture(scope="module")
def catalog():
    from roofgui.model.catalog import Catalog

    return Catalog.load()


@pytest.fixture
def figure(qapp, catalog):
    """``figure(scenario=None, **options)``: a Figure, closed after the test."""
    from roofgui.export.render import ExportOptions, Figure

    figs = []

    def make(scenario=None, **kw):
        opts = ExportOptions(**{"width": 1920, "height": 1080, **kw})
        f = Figure(scenario or two_chip_scenario(), catalog, opts)
        figs.append(f)
        return f

    yield make
    for f in figs:
        f.close()
