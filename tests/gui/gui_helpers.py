"""Helpers shared by the window tests: open a real MainWindow, run its pending
evaluation, and close it without the unsaved-changes question (pytest-qt closes
widgets before fixtures end); and a plot's pixels, to compare two plots."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PySide6 import QtGui
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def open_window(catalog=None, restore: bool = True, size: tuple[int, int] | None = None):
    """A shown MainWindow with its first evaluation drawn (``catalog`` None: the user's)."""
    from roofgui.gui.main_window import MainWindow

    w = MainWindow(catalog=catalog, restore=restore)
    if size is not None:
        w.resize(*size)
    w.show()
    w.live.flush()
    return w


def close_quietly(w) -> None:
    w.doc.load(w.doc.scenario)
    w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def flush(w) -> None:
    QApplication.processEvents()
    w.live.flush()


def settle(w, plot=None) -> None:
    """Run the window's pending evaluations and events, then paint ``plot`` (the roofline by
    default) and lay it out: text items take their transform when painted."""
    for _ in range(3):
        flush(w)
        QApplication.processEvents()
    plot = w.roofline_plot if plot is None else plot
    plot.grab()
    plot.flush_layout()
    plot.grab()


@contextmanager
def window_on(catalog, path, size: tuple[int, int] | None = None):
    """A shown window (no session restored) that opened the scenario file ``path`` and drew
    it; closed afterwards."""
    w = open_window(catalog, restore=False, size=size)
    try:
        assert w.controller.open_path(path, ask=False)
        flush(w)
        yield w
    finally:
        close_quietly(w)


@contextmanager
def fitted_roofline(catalog, path, size):
    """:func:`window_on` of ``size``, its roofline fitted and laid out: ``(window, plot)``."""
    with window_on(catalog, path, size) as w:
        plot = w.roofline_plot
        settle(w, plot)
        plot.fit()
        settle(w, plot)
        yield w, plot


def pixels(w) -> np.ndarray:
    """A widget's picture as an (h, w, 4) int array of RGBA (a plot's once its legend, which
    on screen is placed after the plot's paint, is in place)."""
    if hasattr(w, "flush_layout"):
        w.grab()  # (a paint lays out what a view change left pending, legend last)
        w.flush_layout()
    img = w.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
    return a[:, :img.width() * 4].reshape(img.height(), img.width(), 4).astype(int)


def assert_same_picture(a_plot, b_plot):
    """Two plots look the same (to the rounding a cached picture adds)."""
    a, b = pixels(a_plot), pixels(b_plot)
    assert a.shape == b.shape
    d = np.abs(a - b).max(axis=2)
    # Drawing into a picture and compositing it (a cache layer) rounds once more than
    # drawing directly: anti-aliased pixels may be a step or two off.  A stale or
    # misplaced line is off by tens to hundreds where it was and where it should be.
    assert d.max() <= 6, f"{(d > 6).sum()} pixels differ by more than 6, up to {d.max()}"


def cached_and_plain(qtbot, cls, size=(820, 520)):
    """Two plots of ``cls``: one drawing through the screen caches and cache layers (as
    the window's), one plain (as an export's), shown side by side at ``size``."""
    cached, plain = cls(), cls()
    cached.use_screen_caches()
    for w in (cached, plain):
        qtbot.addWidget(w)
        w.resize(*size)
        w.show()
    qtbot.waitExposed(cached)
    return cached, plain


def two_chip():
    """TPU v5e and H100 SXM, one bf16 matmul: what the plot tests draw first."""
    from roofgui.model.scenario import OpSpec, Scenario

    return Scenario(chips=["tpu-v5e", "h100-sxm"],
                    ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, {})])


def scatter_xy(item):
    """The spots' ``(x, y)`` of a scatter (or of a :class:`~roofgui.plotting.plot_items.Spot`)."""
    return list(zip(item.data["x"], item.data["y"]))


def three_ops(**kwargs):
    """Three chips and three matmuls (bf16, int8 weights, sharded over D): what the canvas
    tests draw; ``kwargs`` go to the Scenario (a sweep, say)."""
    from roofgui.model.scenario import OpSpec, Scenario, ShardSpec

    return Scenario(
        chips=["tpu-v5e", "h100-sxm", "mi300x"],
        ops=[OpSpec("bf16", "matmul", {"B": 256, "D": 8192, "F": 8192}),
             OpSpec("int8 w", "matmul", {"B": 256, "D": 4096, "F": 4096}, {"w": "int8"}),
             OpSpec("sharded", "matmul", {"B": 256, "D": 8192, "F": 8192},
                    shard=ShardSpec("D", 2, "scale-up"))], **kwargs)


@contextmanager
def dark_palette():
    """The application in a dark palette (as a desktop switched to dark) for the block,
    then its own palette again."""
    from PySide6.QtGui import QColor, QPalette

    app = QApplication.instance()
    old = app.palette()
    try:
        dark = QPalette()
        for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
            dark.setColor(role, QColor("#202124"))
        dark.setColor(QPalette.ColorRole.WindowText, QColor("#eeeeee"))
        app.setPalette(dark)
        QApplication.processEvents()
        QApplication.processEvents()
        yield
    finally:
        app.setPalette(old)
        QApplication.processEvents()
