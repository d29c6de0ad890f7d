"""The pieces the plots are built of: pens, fonts and colours from a style, the
log-reading axis, a legend sample, a point's view, and stock pyqtgraph items made
the way the plots use them.  Qt and pyqtgraph only; the geometry comes from
:mod:`roofgui.presentation.plotdata`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.presentation import plotdata as pd
from roofgui.presentation.style import PlotStyle

LEGEND_CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")

DASHES = {
    "solid": QtCore.Qt.PenStyle.SolidLine,
    "dash": QtCore.Qt.PenStyle.DashLine,
    "dot": QtCore.Qt.PenStyle.DotLine,
    "dashdot": QtCore.Qt.PenStyle.DashDotLine,
    "dashdotdot": QtCore.Qt.PenStyle.DashDotDotLine,
}


def qcolor(c: str, alpha: float | None = None) -> QtGui.QColor:
    """A ``#rrggbb`` / ``#rrggbbaa`` colour (or ``"transparent"``), ``alpha`` 0..1 over it."""
    if c == "transparent":
        return QtGui.QColor(0, 0, 0, 0)
    s = c.lstrip("#")
    q = QtGui.QColor(int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16),
                     int(s[6:8], 16) if len(s) >= 8 else 255)
    if alpha is not None:
        q.setAlphaF(max(0.0, min(1.0, alpha)))
    return q


def make_pen(colour: str, width: float, dash: str = "solid",
             alpha: float | None = None) -> QtGui.QPen:
    """A cosmetic pen: round caps when solid, flat when dashed."""
    pen = QtGui.QPen(qcolor(colour, alpha))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    pen.setStyle(DASHES.get(dash, QtCore.Qt.PenStyle.SolidLine))
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap if dash == "solid"
                    else QtCore.Qt.PenCapStyle.FlatCap)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


def set_line_pen(item: pg.PlotCurveItem, pen: QtGui.QPen) -> None:
    """Give a curve its pen.  A solid, opaque pen wider than a pixel draws the curve as
    separate flat-capped segments (pyqtgraph's segmented line mode): Qt strokes each on its
    fast path for antialiased lines, where one path of round joins takes its general
    stroker (a 60-point curve 2 px wide: 0.16 ms against 1.6 ms, same run), and flat caps
    meet end to end, so the joins look the same at 3× zoom.  Dashed or translucent pens keep
    the one path (dashes would restart on each segment; overlaps would show through)."""
    fast = (pen.style() == QtCore.Qt.PenStyle.SolidLine and pen.isSolid()
            and pen.color().alpha() == 255 and pen.widthF() > 1.0)
    if fast:
        pen = QtGui.QPen(pen)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    mode = "on" if fast else "off"
    if item.opts["segmentedLineMode"] != mode:
        item.setSegmentedLineMode(mode)
    item.setPen(pen)


def roof_pen(colour: str, width: float, dash: str, overlap: tuple[int, int]) -> QtGui.QPen:
    """A roof's pen; the k-th (k > 0) of m roofs on one line (``overlap``: (k, m)) is
    drawn as dashes over the first, its own 1/m of each stretch, so every chip shows."""
    k, m = overlap
    pen = make_pen(colour, width, dash)
    if k > 0:
        dash_len = 4.0
        pen.setDashPattern([dash_len, dash_len * (m - 1)])
        pen.setDashOffset(dash_len * ((m - k) % m))
        pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return pen


@lru_cache(maxsize=256)
def spot_pen(colour: str, width: float, alpha: float | None = None) -> QtGui.QPen:
    """:func:`make_pen`, one object per look: pyqtgraph's symbol atlas keys a rendered
    symbol on its pen's and brush's identity, so fresh ones on every edit would grow it
    without bound.  Never modify the result."""
    return make_pen(colour, width, alpha=alpha)


@lru_cache(maxsize=256)
def spot_brush(colour: str, alpha: float | None = None) -> QtGui.QBrush:
    """A brush of one colour, one object per colour (see :func:`spot_pen`)."""
    return QtGui.QBrush(qcolor(colour, alpha))


def make_font(style: PlotStyle, pt: float, bold: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    if style.font_family and style.font_family != "sans-serif":
        f.setFamily(style.font_family)
    f.setStyleHint(QtGui.QFont.StyleHint.SansSerif)
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


def face_colour(style: PlotStyle) -> str:
    """The fill of hollow markers: the background's colour (white on a transparent one)."""
    return style.background if style.background != "transparent" else "#FFFFFF"


def halo(style: PlotStyle) -> QtGui.QBrush:
    """A translucent patch of background behind annotation text, so lines do not strike it."""
    bg = style.background if style.background != "transparent" else (
        "#000000" if style.is_dark else "#FFFFFF")
    return pg.mkBrush(qcolor(bg, 0.72))


def text_px(style: PlotStyle, pt: float) -> float:
    """Approximate line height in pixels of text at ``pt`` points (96 dpi)."""
    return pt * 96.0 / 72.0 * 1.25


# ---------------------------------------------------------------------------
# Items
# ---------------------------------------------------------------------------

def new_curve(z: float, clickable: bool = True, antialias: bool = True) -> pg.PlotCurveItem:
    """A plot line: NaN breaks it (``connect='finite'``), its data is known finite
    otherwise, and it can be hovered (``mouseShape``) within a few pixels."""
    item = pg.PlotCurveItem(antialias=antialias, connect="finite", skipFiniteCheck=True)
    item.setZValue(z)
    if clickable:
        item.setClickable(True, width=8)
    return item


def new_scatter(z: float) -> pg.ScatterPlotItem:
    item = pg.ScatterPlotItem(antialias=True)
    item.setZValue(z)
    return item


def new_label(z: float, anchor=(0.5, 1.0)) -> pg.TextItem:
    """An annotation: a TextItem with a one-pixel margin, filled by the style's halo."""
    item = pg.TextItem("", anchor=anchor)
    item.textItem.document().setDocumentMargin(1.0)
    item.updateTextPos()
    item.setZValue(z)
    return item


def style_label(item: pg.TextItem, style: PlotStyle, colour: str, pt: float,
                bold: bool = False, framed: bool = False) -> None:
    """A label's colour, font, halo and frame (``framed``: a muted border)."""
    item.setColor(qcolor(colour))
    item.setFont(make_font(style, pt, bold))
    item.fill = halo(style)
    item.border = make_pen(style.muted, 1.0) if framed else pg.mkPen(None)
    item.update()


def set_anchor(item: pg.TextItem, anchor) -> None:
    """``setAnchor`` when it changes (pyqtgraph lays the text out again on each call)."""
    if (item.anchor.x(), item.anchor.y()) != (float(anchor[0]), float(anchor[1])):
        item.setAnchor(anchor)


def label_size(item: pg.TextItem) -> tuple[float, float]:
    """A label's text size in pixels."""
    r = item.textItem.boundingRect()
    return r.width(), r.height()


class Spot:
    """One spot of a scatter (``RooflinePlot.points[key]``, ``SweepPlot.crit_markers[key]``):
    what a caller reads of it — data, look, visibility — as of the scatter's latest data.
    The plot moves a view to another scatter or index as its data changes."""

    def __init__(self, item: pg.ScatterPlotItem, index: int) -> None:
        self.item = item
        self.index = index
        self.live = True

    def _spot(self):
        return self.item.points()[self.index]

    @property
    def data(self) -> np.ndarray:
        """The spot's record (``["x"]``, ``["y"]``, ``["data"]``: what it shows, a point
        of the geometry or a tooltip)."""
        return self.item.data[self.index:self.index + 1]

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 (as pyqtgraph's)
        d = self.data
        return d["x"].copy(), d["y"].copy()

    @property
    def opts(self) -> dict:
        s = self._spot()
        return {"symbol": s.symbol(), "size": float(s.size()), "pen": s.pen(),
                "brush": s.brush()}

    def isVisible(self) -> bool:  # noqa: N802
        return self.live and self.item.isVisible()


class LogAxis(pg.AxisItem):
    """A linear axis over log10 data whose ticks read as powers of ten.

    ``kind``: ``"plain"`` (0.1, 1, 10, 1k), ``"si"`` (100 T, 1 P) or ``"time"`` (1 ms).
    Majors at decades, minors at 2..9, and in a view under three decades the 2× and 5×
    minors labelled (see :func:`plotdata.log_tick_levels`).
    """

    def __init__(self, orientation: str, kind: str = "si", **kw):
        super().__init__(orientation, **kw)
        self.kind = kind
        self.enableAutoSIPrefix(False)

    def set_kind(self, kind: str) -> None:
        if kind != self.kind:
            self.kind = kind
            self.picture = None
            self.update()

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (Qt naming)
        lo, hi = (minVal, maxVal) if minVal <= maxVal else (maxVal, minVal)
        font_px = self.style.get("tickFont").pointSizeF() if self.style.get("tickFont") else 9.0
        per_label = max(40.0, font_px * (5.5 if self.orientation in ("bottom", "top") else 3.0))
        majors, mids, minors = pd.log_tick_levels(lo, hi, max_major=max(2, int(size / per_label)))
        return [(1.0, majors), (0.5, mids), (0.1, minors)]  # (2× and 5×: labelled, no grid)

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        if spacing < 0.5:
            return ["" for _ in values]
        return [pd.tick_label(v, self.kind) for v in values]


class LegendSample(pg.ItemSample):
    """A legend sample drawn to the style's sizes (pyqtgraph's is a fixed 20 px): a line,
    a marker, a filled band, or a line over a band."""

    def __init__(self, pen=None, symbol=None, brush=None, sym_pen=None, size=10.0,
                 width=28.0, height=18.0, fill=None):
        super().__init__(None)
        self.line_pen, self.symbol, self.sym_brush, self.sym_pen = pen, symbol, brush, sym_pen
        self.sym_size, self.sample_w, self.sample_h, self.fill = size, width, height, fill
        self.setFixedWidth(width)
        self.setFixedHeight(height)

    def boundingRect(self):  # noqa: N802
        return QtCore.QRectF(0, 0, self.sample_w, self.sample_h)

    def paint(self, p, *args):
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        w, h = self.sample_w, self.sample_h
        y = h / 2
        if self.fill is not None:
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(self.fill)
            p.drawRoundedRect(QtCore.QRectF(2, y - h * 0.32, w - 4, h * 0.64), 2, 2)
        if self.line_pen is not None:
            p.setPen(self.line_pen)
            p.drawLine(QtCore.QPointF(2, y), QtCore.QPointF(w - 2, y))
        if self.symbol is not None:
            p.translate(w / 2, y)
            drawSymbol(p, self.symbol, self.sym_size, self.sym_pen or pg.mkPen(None),
                       self.sym_brush or pg.mkBrush(None))

    def mouseClickEvent(self, event):  # noqa: N802 (samples are not visibility toggles here)
        event.ignore()


def show_hover_tip(owner, tip: str | None) -> None:
    """Show ``tip`` at the mouse for ``owner`` (a widget with a ``hover_tip`` attribute), or
    hide it; nothing when it is the tip on show already."""
    if tip == owner.hover_tip:
        return
    owner.hover_tip = tip
    if tip:
        QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), tip, owner)
    else:
        QtWidgets.QToolTip.hideText()
