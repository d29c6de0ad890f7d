"""The roofline and sweep plots.  They only draw: every coordinate comes from
:mod:`roofgui.model.plotdata` (log10 units on linear axes whose ticks read as
powers of ten), and every item is created once per chip / op and then updated
with ``setData`` — and only when its data or style actually changed.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

from ..model import plotdata as pd
from .style import SCREEN_LIGHT, PlotStyle

__all__ = ["LogAxis", "RooflinePlot", "SweepPlot", "LEGEND_CORNERS"]

LEGEND_CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")

_DASHES = {
    "solid": QtCore.Qt.PenStyle.SolidLine,
    "dash": QtCore.Qt.PenStyle.DashLine,
    "dot": QtCore.Qt.PenStyle.DotLine,
    "dashdot": QtCore.Qt.PenStyle.DashDotLine,
    "dashdotdot": QtCore.Qt.PenStyle.DashDotDotLine,
}


def _qcolor(c: str, alpha: float | None = None) -> QtGui.QColor:
    if c == "transparent":
        return QtGui.QColor(0, 0, 0, 0)
    s = c.lstrip("#")
    q = QtGui.QColor(int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16),
                     int(s[6:8], 16) if len(s) >= 8 else 255)
    if alpha is not None:
        q.setAlphaF(max(0.0, min(1.0, alpha)))
    return q


def _pen(colour: str, width: float, dash: str = "solid", alpha: float | None = None) -> QtGui.QPen:
    pen = QtGui.QPen(_qcolor(colour, alpha))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    pen.setStyle(_DASHES.get(dash, QtCore.Qt.PenStyle.SolidLine))
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap if dash == "solid"
                    else QtCore.Qt.PenCapStyle.FlatCap)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


def _font(style: PlotStyle, pt: float, bold: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    if style.font_family and style.font_family != "sans-serif":
        f.setFamily(style.font_family)
    f.setStyleHint(QtGui.QFont.StyleHint.SansSerif)
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


def _face(style: PlotStyle) -> QtGui.QColor:
    """The fill of hollow markers: the background (white on a transparent one)."""
    return _qcolor(style.background if style.background != "transparent" else "#FFFFFF")


def _halo(style: PlotStyle) -> QtGui.QBrush:
    """A translucent patch of background behind annotation text, so lines do not strike it."""
    bg = style.background if style.background != "transparent" else (
        "#000000" if style.is_dark else "#FFFFFF")
    return pg.mkBrush(_qcolor(bg, 0.72))


def _text_px(style: PlotStyle, pt: float) -> float:
    """Approximate line height in pixels of text at ``pt`` points (96 dpi)."""
    return pt * 96.0 / 72.0 * 1.25


# ---------------------------------------------------------------------------
# Axis and legend sample
# ---------------------------------------------------------------------------

class LogAxis(pg.AxisItem):
    """A linear axis over log10 data whose ticks read as powers of ten.

    ``kind``: ``"plain"`` (0.1, 1, 10, 1k), ``"si"`` (100 T, 1 P) or ``"time"`` (1 ms).
    Majors at decades, minors at 2..9 (see :func:`plotdata.log_ticks`).
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
        majors, minors = pd.log_ticks(lo, hi, max_major=max(2, int(size / per_label)))
        return [(1.0, majors), (0.1, minors)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        if spacing < 1.0:
            return ["" for _ in values]
        return [pd.tick_label(v, self.kind) for v in values]


#: where a label's rectangle is sampled for placement: a 6 × 3 grid, corners included
_GRID_FX = np.tile(np.linspace(0.0, 1.0, 6), 3)
_GRID_FY = np.repeat(np.linspace(0.0, 1.0, 3), 6)


def _rect_samples(left: float, top: float, w: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    return left + _GRID_FX * w, top + _GRID_FY * h


def _set_anchor(item: pg.TextItem, anchor) -> None:
    """``setAnchor`` only when it changes (pyqtgraph re-lays the text out each call)."""
    if (item.anchor.x(), item.anchor.y()) != (float(anchor[0]), float(anchor[1])):
        item.setAnchor(anchor)


class _Scatter(pg.ScatterPlotItem):
    """ScatterPlotItem whose bounding rectangle is remembered until the data, the
    symbol sizes or the view transform change (pyqtgraph recomputes it, with two
    pixel-vector mappings, several times per paint)."""

    _br = None
    _br_key = None

    def boundingRect(self):  # noqa: N802
        key = (tuple(self.dataBounds(0)), tuple(self.dataBounds(1)), self._maxSpotPxWidth)
        if self._br is None or key != self._br_key:
            self._br = super().boundingRect()
            self._br_key = key
        return QtCore.QRectF(self._br)

    def viewTransformChanged(self):  # noqa: N802
        self._br = None
        super().viewTransformChanged()

    def setData(self, *args, **kwargs):  # noqa: N802
        self._br = None
        super().setData(*args, **kwargs)

    def paint(self, p, option, widget=None):
        """A few spots (an op's point, its link twin, a chip's ridges): draw them straight away.

        pyqtgraph's general path (view culling, coordinate arrays, fragment
        lists) costs ~0.3 ms of Python per item and paint, for every point a
        repaint touches.  This draws the same: on screen each symbol blitted
        from pyqtgraph's atlas, when exporting each symbol's path.
        """
        d = self.data
        if not 0 < len(d) <= 16 or not self.opts["pxMode"] \
                or self.opts.get("compositionMode") is not None:
            super().paint(p, option, widget)
            return
        tr = p.transform()
        pts = [tr.map(QtCore.QPointF(float(x), float(y))) for x, y in zip(d["x"], d["y"])]
        shown = [bool(v) and abs(q.x()) < 2 ** 30 and abs(q.y()) < 2 ** 30  # (NaN too)
                 for v, q in zip(d["visible"], pts)]
        if self._exportOpts is False and self.opts["useCache"]:
            # on screen: the symbols pyqtgraph pre-rendered in its atlas, as its own path does
            atlas = self.fragmentAtlas
            dpr = widget.devicePixelRatioF() if widget is not None else atlas.devicePixelRatio()
            src = d["sourceRect"]
            if dpr != atlas.devicePixelRatio() or not np.all(src["w"] > 0):
                super().paint(p, option, widget)  # (it re-renders the atlas when it must)
                return
            p.resetTransform()
            pix = atlas.pixmap
            for q, ok, sr in zip(pts, shown, src):
                if ok:
                    w, h = sr["w"] / dpr, sr["h"] / dpr
                    p.drawPixmap(QtCore.QRectF(q.x() - w / 2, q.y() - h / 2, w, h), pix,
                                 QtCore.QRectF(sr["x"], sr["y"], sr["w"], sr["h"]))
            return
        if self._exportOpts is not False:
            aa = self._exportOpts.get("antialias", True)
            scale = self._exportOpts.get("resolutionScale", 1.0)
        else:
            aa, scale = self.opts["antialias"], 1.0
        p.setRenderHint(p.RenderHint.Antialiasing, aa)
        styles = zip(*self._style(["symbol", "size", "pen", "brush"], scale=scale))
        for q, ok, (symbol, size, pen, brush) in zip(pts, shown, styles):
            if ok:
                p.resetTransform()
                p.translate(q)
                drawSymbol(p, symbol, size, pen, brush)


def _style_scatter(item: pg.ScatterPlotItem, pen, brush, size: float, symbol=None) -> None:
    """Set a scatter's look with one re-render of its symbol atlas (not one per setter)."""
    item.setPen(pen, update=False)
    item.setBrush(brush, update=False)
    item.setSize(size, update=False)
    if symbol is not None:
        item.setSymbol(symbol, update=False)
    item.updateSpots()


class _Spot:
    """One op point inside its op's scatter (``RooflinePlot.points[key]``): what a caller
    reads of it — its data, look and visibility — as of the scatter's latest data."""

    def __init__(self, item: pg.ScatterPlotItem, index: int) -> None:
        self.item = item
        self.index = index
        self.live = True

    @property
    def data(self) -> np.ndarray:
        """The spot's record (``["x"]``, ``["y"]``, ``["data"]``: its tooltip)."""
        return self.item.data[self.index:self.index + 1]

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 (as pyqtgraph's)
        d = self.data
        return d["x"].copy(), d["y"].copy()

    @property
    def opts(self) -> dict:
        i = slice(self.index, self.index + 1)
        symbol, size, pen, brush = (c[0] for c in self.item._style(["symbol", "size", "pen",
                                                                     "brush"], idx=i))
        return {"symbol": symbol, "size": float(size), "pen": pen, "brush": brush}

    def isVisible(self) -> bool:  # noqa: N802
        return self.live and self.item.isVisible()


class _Curve(pg.PlotCurveItem):
    """A plot line.  A bare PlotCurveItem: a PlotDataItem wraps one (with a scatter for
    symbols these lines never have) and costs ~8× as much per ``setData``.  ``curve``
    is the item itself, for code written against PlotDataItem."""

    @property
    def curve(self) -> "_Curve":
        return self


class _Sample(pg.ItemSample):
    """Legend sample drawn to the style's sizes (pyqtgraph's is a fixed 20 px)."""

    class _Stub:
        opts: dict = {}

        def isVisible(self):  # noqa: N802
            return True

    def __init__(self, pen=None, symbol=None, brush=None, sym_pen=None, size=10.0,
                 width=28.0, height=18.0, fill=None):
        super().__init__(self._Stub())
        self._pen, self._symbol, self._brush, self._sym_pen = pen, symbol, brush, sym_pen
        self._size, self._w, self._h, self._fill = size, width, height, fill
        self.setFixedWidth(width)
        self.setFixedHeight(height)

    def boundingRect(self):
        return QtCore.QRectF(0, 0, self._w, self._h)

    def paint(self, p, *args):
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        y = self._h / 2
        if self._fill is not None:
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(self._fill)
            p.drawRoundedRect(QtCore.QRectF(2, y - self._h * 0.32, self._w - 4, self._h * 0.64),
                              2, 2)
        if self._pen is not None:
            p.setPen(self._pen)
            p.drawLine(QtCore.QPointF(2, y), QtCore.QPointF(self._w - 2, y))
        if self._symbol is not None:
            p.translate(self._w / 2, y)
            drawSymbol(p, self._symbol, self._size, self._sym_pen or pg.mkPen(None),
                       self._brush or pg.mkBrush(None))

    def mouseClickEvent(self, event):  # samples are not visibility toggles here
        event.ignore()


# ---------------------------------------------------------------------------
# Shared base
# ---------------------------------------------------------------------------

class _LogPlot(pg.PlotWidget):
    """A PlotWidget with log-reading axes, a style, a legend and a readout."""

    viewChangedByUser = Signal(list)

    def __init__(self, parent=None, style: PlotStyle | None = None, x_kind="plain", y_kind="si"):
        self._x_axis = LogAxis("bottom", x_kind)
        self._y_axis = LogAxis("left", y_kind)
        super().__init__(parent, axisItems={"bottom": self._x_axis, "left": self._y_axis})
        self.style = style or SCREEN_LIGHT
        pi = self.getPlotItem()
        pi.hideButtons()
        pi.setMenuEnabled(False)
        vb = pi.getViewBox()
        vb.disableAutoRange()
        vb.setDefaultPadding(0.0)
        self.vb = vb
        # Grid lines at the labelled decades only, as one path (the axes draw the 2..9
        # minor ticks as short ticks): calmer than a grid line per minor tick, and cheap.
        self.grid_item = pg.PlotCurveItem(connect="pairs", antialias=False)
        self.grid_item.setZValue(-50)
        self.addItem(self.grid_item, ignoreBounds=True)
        self._has_view = False
        #: True once the user pans/zooms or a range is set explicitly; until then (and
        #: again after fit()) the view follows the data when it would leave the view.
        self.user_view = False
        #: the tooltip shown for the last mouse position (None: none)
        self.hover_tip: str | None = None
        self._fit: tuple[float, float, float, float] = (0.0, 4.0, 12.0, 16.0)
        self._x_title = ""
        self._y_title = ""
        self._sig: dict = {}  # key -> what was last applied, to skip no-op setData/setPen
        self._pool: dict = {}  # hidden items of chips / ops no longer shown, by key
        self.legend = pg.LegendItem(offset=(10, 10), frame=True)
        self.legend.setParentItem(vb)
        self.legend.setZValue(1000)
        self.legend_corner = "top-left"
        self._legend_signature: tuple = ()
        self.readout = pg.LabelItem("", justify="right")
        self.readout.setParentItem(vb)
        self.readout.setZValue(1001)
        vb.sigRangeChangedManually.connect(self._on_manual_range)
        vb.sigRangeChanged.connect(self._on_range_changed)
        vb.sigResized.connect(self._on_resized)
        # Text and legend sizes settle only after Qt lays them out: lay annotations
        # out again once the event loop is idle (coalesced).
        self._relayout = QtCore.QTimer(self)
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(0)
        self._relayout.timeout.connect(self._layout_annotations)
        self._layout_pending = False
        self.scene().sigPrepareForPaint.connect(self._layout_if_pending)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.setMouseTracking(True)

    def _changed(self, key, sig) -> bool:
        if self._sig.get(key) == sig:
            return False
        self._sig[key] = sig
        return True

    # -- view -------------------------------------------------------------
    def view_range(self) -> list[float]:
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return [float(x0), float(x1), float(y0), float(y1)]

    def fit(self, layout: bool = True) -> None:
        """Reset the view to fit everything (``layout``: its labels too, now rather than at
        the next paint)."""
        x0, x1, y0, y1 = self._fit
        self.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.0)
        self._has_view = True
        self.user_view = False
        if layout:
            self.flush_layout()

    def set_view(self, rng: Sequence[float] | None, layout: bool = True) -> None:
        """Show ``[x0, x1, y0, y1]`` (log10 units), or fit when ``None``."""
        if rng is None:
            self.fit(layout)
            return
        x0, x1, y0, y1 = (float(v) for v in rng)
        self.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.0)
        self._has_view = True
        self.user_view = True
        if layout:
            self.flush_layout()

    def _on_manual_range(self, *_):
        self.user_view = True
        self.viewChangedByUser.emit(self.view_range())

    def _on_range_changed(self, *_):
        # The labels follow at the next paint (prepareForPaint), once however many range
        # changes and resizes come before it: a window being shown resizes its plot three
        # times, a pan moves the range on every mouse move.
        self._update_grid()
        self._layout_pending = True

    def _on_resized(self, *_):
        self._on_range_changed()
        self._relayout.start()

    def _layout_if_pending(self) -> None:
        if self._layout_pending:
            self._layout_annotations()

    def flush_layout(self) -> None:
        """Lay the annotations out now if the view changed since they last were."""
        self._layout_if_pending()

    def _layout_annotations(self) -> None:
        self._layout_pending = False
        self._lay_out()

    def _update_grid(self) -> None:
        x0, x1, y0, y1 = self.view_range()
        xm = self._x_axis.tickValues(x0, x1, max(self.vb.width(), 1.0))[0][1]
        ym = self._y_axis.tickValues(y0, y1, max(self.vb.height(), 1.0))[0][1]
        xs = [v for v in xm for _ in (0, 1)] + [x0 - 1, x1 + 1] * len(ym)
        ys = [y0 - 1, y1 + 1] * len(xm) + [v for v in ym for _ in (0, 1)]
        if self._changed(("data", "grid"), (tuple(xs), tuple(ys))):
            self.grid_item.setData(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float))

    def _lay_out(self) -> None:  # the annotations that follow the view (subclasses: more)
        self._place_legend()

    # -- style --------------------------------------------------------------
    def set_style(self, style: PlotStyle) -> None:
        self.style = style
        self._sig = {k: v for k, v in self._sig.items() if k[0] != "style"}
        self._apply_base_style()
        self._restyle_items()
        self._legend_signature = ()
        self._rebuild_legend()
        self._update_grid()
        self._layout_annotations()
        self._relayout.start()

    def _apply_base_style(self) -> None:
        s = self.style
        self.setBackground(_qcolor(s.background) if s.background != "transparent" else None)
        fg = _qcolor(s.foreground)
        for ax in (self._x_axis, self._y_axis):
            ax.setPen(_pen(s.foreground, s.axis_width, alpha=0.6))
            ax.setTextPen(fg)
            ax.setTickFont(_font(s, s.tick_font_pt))
            ax.setStyle(tickLength=int(round(5 * s.axis_width)),
                        tickTextOffset=int(round(2 + 2 * s.axis_width)),
                        autoExpandTextSpace=True)
            ax.setGrid(False)
        self.grid_item.setPen(_pen(s.foreground, s.grid_width, alpha=s.grid_alpha))
        # room above the view for half a tick label: a decade at the top edge ("10 P") is
        # labelled whole, not cut off by the widget
        half = QtGui.QFontMetricsF(_font(s, s.tick_font_pt)).height() / 2
        lay = self.getPlotItem().layout
        ml, _, mr, mb = lay.getContentsMargins()
        lay.setContentsMargins(ml, float(np.ceil(half)) + 1.0, mr, mb)
        self._set_titles(self._x_title, self._y_title)
        lg = self.legend
        lg.setPen(_pen(s.legend_border, 1.0))
        lg.setBrush(pg.mkBrush(_qcolor(s.legend_background)))
        lg.setLabelTextColor(fg)
        lg.setLabelTextSize(f"{s.legend_font_pt}pt")
        pad = s.legend_padding
        lg.layout.setContentsMargins(pad, pad * 0.5, pad * 1.2, pad * 0.5)
        lg.layout.setHorizontalSpacing(pad * 0.5)
        lg.layout.setVerticalSpacing(-s.legend_font_pt * 0.25)
        self.readout.setVisible(s.show_readout)
        self.readout.anchor(itemPos=(1, 1), parentPos=(1, 1), offset=(-6, -4))

    def _adopt(self, g) -> None:
        """Take a sweep's geometry: its fit, y-axis kind and axis titles."""
        self.geometry = g
        self._fit = g.fit
        self._y_axis.set_kind(g.y_kind)
        if (g.x_title, g.y_title) != (self._x_title, self._y_title):
            self._set_titles(g.x_title, g.y_title)

    def _set_titles(self, x_title: str, y_title: str) -> None:
        self._x_title, self._y_title = x_title, y_title
        s = self.style
        css = {"color": s.foreground, "font-size": f"{s.label_font_pt}pt"}
        self.getPlotItem().setLabel("bottom", x_title, **css)
        self.getPlotItem().setLabel("left", y_title, **css)

    def _restyle_items(self) -> None:  # overridden
        pass

    def _rebuild_legend(self) -> None:  # overridden
        pass

    def _legend_entries(self, entries: list[tuple[str, _Sample]]) -> None:
        self._relayout.start()  # the legend's size settles once Qt has laid it out
        self.legend.clear()
        for name, sample in entries:
            self.legend.addItem(sample, name)
        self.legend.setVisible(bool(entries))

    def _sample(self, pen=None, symbol=None, brush=None, sym_pen=None, size=None,
                fill=None) -> _Sample:
        s = self.style
        line_px = _text_px(s, s.legend_font_pt)
        return _Sample(pen, symbol, brush, sym_pen, size or s.marker_size * 0.8,
                       line_px * 2.0, max(line_px, (size or 0) + 4), fill)

    # -- legend placement ---------------------------------------------------------
    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        """Scene positions of what the legend should not cover (overridden)."""
        return np.empty(0), np.empty(0)

    def _to_scene(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        # the view box applies a new range to its transform lazily (at the next paint): apply
        # it now, or a layout run on a range change places labels for the previous range
        self.vb.updateMatrix()
        tr = self.vb.childGroup.sceneTransform()
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (tr.m11() * x + tr.m21() * y + tr.m31(), tr.m12() * x + tr.m22() * y + tr.m32())

    def _place_legend(self) -> None:
        lg = self.legend
        if not lg.isVisible():
            return
        s = self.style
        off = s.legend_padding + 2
        vr = self.vb.sceneBoundingRect()
        w, h = lg.width(), lg.height()
        pref = s.legend_position
        corners = [pref] if pref in LEGEND_CORNERS else list(LEGEND_CORNERS)
        rects, lifts = [], []
        for c in corners:
            left = vr.left() + off if "left" in c else vr.right() - off - w
            # in a bottom corner, sit above the labels along the x axis (ridges, B*)
            lift = self._bottom_clearance(left, left + w) if "bottom" in c else 0.0
            top = vr.top() + off if "top" in c else vr.bottom() - off - h - lift
            rects.append((left, top, w, h))
            lifts.append(lift)
        if len(corners) > 1 and vr.width() > 0:
            xs, ys = self._obstacles()
            best = pd.least_covered(rects, xs, ys, margin=4)
        else:
            best = 0
        corner = corners[best]
        self.legend_corner = corner
        lg.setOffset((off if "left" in corner else -off,
                      off if "top" in corner else -(off + lifts[best])))

    def _bottom_labels(self) -> list:
        return []

    def _bottom_clearance(self, left: float, right: float) -> float:
        """Pixels to lift a bottom-corner legend so it clears the x-axis labels below it."""
        bottom = self.vb.sceneBoundingRect().bottom()
        lift = 0.0
        for lab in self._bottom_labels():
            if lab.isVisible():
                r = lab.sceneBoundingRect()
                if r.right() >= left and r.left() <= right:
                    lift = max(lift, bottom - r.top() - self.style.legend_padding + 2)
        return lift

    @staticmethod
    def _label_samples(items) -> tuple[list, list]:
        """Scene sample points over text labels (dense: covering text is worse than a line)."""
        tx, ty = [], []
        for item in items:
            if not item.isVisible():
                continue
            r = item.sceneBoundingRect()
            gx, gy = _rect_samples(r.left(), r.top(), r.width(), r.height())
            tx.append(gx)
            ty.append(gy)
        return tx, ty

    # -- hover ----------------------------------------------------------------
    def _on_mouse_moved(self, scene_pos) -> None:
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            self.readout.setText("")
            if self.hover_tip:
                self.hover_tip = None
                QtWidgets.QToolTip.hideText()
            return
        p = self.vb.mapSceneToView(scene_pos)
        self._update_readout(p.x(), p.y())
        tip = self.tooltip_at_scene(scene_pos)
        if tip == self.hover_tip:
            return
        self.hover_tip = tip
        if tip:
            QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), tip, self)
        else:
            QtWidgets.QToolTip.hideText()

    def _update_readout(self, x_log: float, y_log: float) -> None:
        s = self.style
        self.readout.setText(self._readout_text(x_log, y_log), color=s.muted,
                             size=f"{s.annotation_font_pt}pt")

    def _readout_text(self, x_log: float, y_log: float) -> str:
        return ""

    def tooltip_at_scene(self, scene_pos) -> str | None:  # overridden
        return None

    def tooltip_at(self, x_log: float, y_log: float) -> str | None:
        """The tooltip that hovering at view point (log10 x, log10 y) shows, if any."""
        return self.tooltip_at_scene(self.vb.mapViewToScene(QtCore.QPointF(x_log, y_log)))

    @staticmethod
    def _curve_hit(item: _Curve, scene_pos) -> bool:
        if not item.isVisible():
            return False
        c = item.curve
        return c.mouseShape().contains(c.mapFromScene(scene_pos))

    @staticmethod
    def _scatter_hit(item: pg.ScatterPlotItem, scene_pos) -> list:
        if not item.isVisible():
            return []
        return list(item.pointsAt(item.mapFromScene(scene_pos)))

    # -- item helpers ------------------------------------------------------------
    def _pooled(self, pool):
        item = self._pool.pop(pool, None) if pool is not None else None
        if item is not None:
            item.show()
        return item

    def _new_curve(self, z: float, bounds: bool = True, pool=None) -> _Curve:
        item = self._pooled(pool)
        if item is None:
            item = _Curve(antialias=True)
            item.setZValue(z)
            item.setClickable(True, width=8)
            self.addItem(item, ignoreBounds=not bounds)
        return item

    def _new_scatter(self, z: float, pool=None) -> pg.ScatterPlotItem:
        item = self._pooled(pool)
        if item is None:
            item = _Scatter(antialias=True)
            item.setZValue(z)
            self.addItem(item)
        return item

    def _new_text(self, z: float, anchor=(0.5, 1.0), pool=None) -> pg.TextItem:
        item = self._pooled(pool)
        if item is None:
            item = pg.TextItem("", anchor=anchor)
            item.textItem.document().setDocumentMargin(1.0)
            item.setZValue(z)
            self.addItem(item, ignoreBounds=True)
        return item

    def _set_curve(self, key, item: _Curve, x, y) -> None:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if self._changed(("data",) + key, (x.tobytes(), y.tobytes())):
            item.setData(x, y)

    def _set_spots(self, key, item: pg.ScatterPlotItem, xs, ys, data, symbol=None) -> None:
        sig = (tuple(xs), tuple(ys), tuple(data), symbol)
        if self._changed(("data",) + key, sig):
            kw = {} if symbol is None else {"symbol": symbol}
            item.setData(x=list(xs), y=list(ys), data=list(data), **kw)

    def _set_text(self, key, item: pg.TextItem, text: str) -> None:
        if self._changed(("text",) + key, text):
            item.setText(text)

    def _drop(self, store: dict, key, prefix: tuple = ()) -> None:
        """Take an item out of a live store.  It is hidden and kept, with its data, for
        when the same chip / op comes back (unchecking and re-checking a chip then
        creates nothing)."""
        item = store.pop(key)
        item.hide()
        self._pool[prefix + (key if isinstance(key, tuple) else (key,))] = item


# ---------------------------------------------------------------------------
# Roofline
# ---------------------------------------------------------------------------

class RooflinePlot(_LogPlot):
    """Log-log roofline: roofs per chip, op points, ridge marks and red/yellow/green regions.

    Introspection for tests: ``roof_curves[chip_id][key]`` (``"compute:bf16"``,
    ``"hbm"``, ``"link:ici"``), ``roof_labels[(chip_id, key)]`` (compute roofs),
    ``ridge_items[chip_id]``, ``ridge_labels[(chip_id, ridge_key)]``,
    ``points[(op_index, phase, chip_id)]``, ``op_labels[(op_index, phase)]``,
    ``region_items[kind]``, ``region_labels[kind]``, ``legend``, ``legend_corner``,
    ``geometry`` (the last :class:`~roofgui.model.plotdata.RooflineGeometry`).

    ``opClicked(op_index)`` is emitted when an op's point (or its link twin, or its
    label) is clicked with the left button; the window decides what that selects.
    """

    opClicked = Signal(int)

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        #: the op whose labels are emphasised (the one selected in the window), or None
        self.selected_op: int | None = None
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._x_title = "Arithmetic intensity (FLOP/byte)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: pd.RooflineGeometry | None = None
        self.roof_curves: dict[str, dict[str, _Curve]] = {}
        self.roof_labels: dict[tuple[str, str], pg.TextItem] = {}
        self.ridge_items: dict[str, pg.ScatterPlotItem] = {}
        self.ridge_guides: dict[tuple[str, str], _Curve] = {}
        self.ridge_labels: dict[tuple[str, str], pg.TextItem] = {}
        #: one scatter per op phase holds its point on every chip (an edit moves one op's
        #: points together: one setData, one item to repaint), and one its link twins
        self.point_groups: dict[tuple[int, str], _Scatter] = {}
        self.net_groups: dict[tuple[int, str], _Scatter] = {}
        #: each point, by (op, phase, chip), as a view into its op's scatter
        self.points: dict[tuple[int, str, str], _Spot] = {}
        #: hollow twins at (FLOPs per link byte, attainable) on the link roof, and connectors
        self.net_points: dict[tuple[int, str, str], _Spot] = {}
        self.net_links: dict[tuple[int, str, str], _Curve] = {}
        self._spot_views: dict[tuple[str, tuple[int, str, str]], _Spot] = {}
        self.op_labels: dict[tuple[int, str], pg.TextItem] = {}
        self.region_items: dict[str, pg.LinearRegionItem] = {}
        self.region_labels: dict[str, pg.TextItem] = {}
        for kind in pd.REGION_KINDS:
            item = pg.LinearRegionItem((0, 1), movable=False)
            item.setZValue(-100)
            item.setVisible(False)
            for ln in item.lines:
                ln.setPen(pg.mkPen(None))
                ln.setHoverPen(pg.mkPen(None))
            self.addItem(item, ignoreBounds=True)
            self.region_items[kind] = item
            self.region_labels[kind] = self._new_text(-90, (0.5, 0.0))
            self.region_labels[kind].setVisible(False)
        self._colours: dict[str, int] = {}
        self._roof_samples_key = None
        self._roof_samples = (np.empty(0), np.empty(0))
        self._apply_base_style()
        self._restyle_items()

    # -- data -------------------------------------------------------------------
    def update_from(self, scenario, evaluation, colours: Mapping[str, int] | None = None) -> None:
        """Show a scenario's evaluation; the view is kept (fitted on the first data).

        ``colours``: palette slots per chip id to keep (the window's, shared by its plots).
        """
        g = pd.roofline_geometry(scenario, evaluation,
                                 self._colours if colours is None else colours,
                                 n_colours=len(self.style.palette))
        self._colours = dict(g.colours)
        self.geometry = g
        self._fit = g.fit
        self._sync_items(g)
        self._restyle_items()
        self._rebuild_legend()
        if not self._has_view and (g.chips or g.points):
            view = getattr(getattr(scenario, "view", None), "roofline", None)
            self.set_view(view, layout=False)
        elif self._has_view and not self.user_view and not pd.view_covers(
                self.view_range(), *pd.key_points(g)):
            self.fit(layout=False)  # the user has not zoomed: follow the data when it leaves
        self._layout_annotations()

    def _sync_items(self, g: pd.RooflineGeometry) -> None:
        # -- roofs and ridge markers, per chip
        live_chips = {c.chip_id for c in g.chips}
        for cid in list(self.roof_curves):
            if cid not in live_chips:
                for k in list(self.roof_curves[cid]):
                    self._drop(self.roof_curves[cid], k, ("roof", cid))
                del self.roof_curves[cid]
                self._drop(self.ridge_items, cid, ("ridges",))
        for c in g.chips:
            curves = self.roof_curves.setdefault(c.chip_id, {})
            keys = {r.key for r in c.roofs}
            for k in list(curves):
                if k not in keys:
                    self._drop(curves, k, ("roof", c.chip_id))
            for r in c.roofs:
                item = curves.get(r.key)
                if item is None:
                    item = curves[r.key] = self._new_curve(-1 if r.kind == "link" else 0,
                                                            pool=("roof", c.chip_id, r.key))
                self._set_curve(("roof", c.chip_id, r.key), item, r.x, r.y)
            ridge = self.ridge_items.get(c.chip_id)
            if ridge is None:
                ridge = self.ridge_items[c.chip_id] = self._new_scatter(5, pool=("ridges", c.chip_id))
                self._style_ridges(c)
            self._set_spots(("ridges", c.chip_id), ridge, [r.x for r in c.ridges],
                            [r.y for r in c.ridges], [r.tooltip for r in c.ridges])
        # -- roof labels (compute roofs), ridge guides and labels
        live = {(c.chip_id, r.key) for c in g.chips for r in c.roofs if r.label}
        for k in list(self.roof_labels):
            if k not in live:
                self._drop(self.roof_labels, k, ("rooflabel",))
        for c in g.chips:
            for r in c.roofs:
                if r.label:
                    k = (c.chip_id, r.key)
                    if k not in self.roof_labels:
                        self.roof_labels[k] = self._new_text(25, (1.0, 1.0), pool=("rooflabel",) + k)
                    self._set_text(("rooflabel",) + k, self.roof_labels[k], r.label)
        live = {(c.chip_id, r.key) for c in g.chips for r in c.ridges}
        for k in list(self.ridge_guides):
            if k not in live:
                self._drop(self.ridge_guides, k, ("guide",))
                self._drop(self.ridge_labels, k, ("ridgelabel",))
        for c in g.chips:
            for r in c.ridges:
                k = (c.chip_id, r.key)
                if k not in self.ridge_guides:
                    self.ridge_guides[k] = self._new_curve(-20, bounds=False, pool=("guide",) + k)
                    self.ridge_labels[k] = self._new_text(30, pool=("ridgelabel",) + k)
                self._set_curve(("guide",) + k, self.ridge_guides[k], [r.x, r.x],
                                [r.y, -pd.LOG_INF])
                self._set_text(("ridgelabel",) + k, self.ridge_labels[k], r.label)
                self.ridge_labels[k].setVisible(r.label_shown)  # a value two chips share: once
        # -- points (one scatter per op phase), link twins and their connectors
        self._sync_points(g)
        live_net = {p.key for p in g.points if p.net_x is not None}
        for k in list(self.net_links):
            if k not in live_net:
                self._drop(self.net_links, k, ("netlink",))
        for p in g.points:
            if p.net_x is None:
                continue
            if p.key not in self.net_links:
                self.net_links[p.key] = self._new_curve(-5, bounds=False, pool=("netlink",) + p.key)
            self._set_curve(("netlink",) + p.key, self.net_links[p.key], [p.x, p.net_x],
                            [p.y, p.y])
        live_labels = {lab.key for lab in g.labels}
        for k in list(self.op_labels):
            if k not in live_labels:
                self._drop(self.op_labels, k, ("oplabel",))
        for lab in g.labels:
            item = self.op_labels.get(lab.key)
            if item is None:
                item = self.op_labels[lab.key] = self._new_text(20, pool=("oplabel",) + lab.key)
            self._set_text(("oplabel",) + lab.key, item, lab.text)
            if self._changed(("data", "oplabel") + lab.key, (lab.x, lab.y, lab.side)):
                item.setPos(lab.x, lab.y)
                item.setAnchor((0.5, 1.3) if lab.side == "above" else (0.5, -0.3))
        # -- regions
        present = {r.kind: r for r in g.regions}
        for kind, item in self.region_items.items():
            item.setVisible(kind in present)  # extents: _layout_annotations, clipped to the view

    # -- style ------------------------------------------------------------------
    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        if self._changed(("style", "regions"), id(s)):
            for kind, item in self.region_items.items():
                brush = pg.mkBrush(_qcolor(s.region_colour(kind), s.region_alpha))
                item.setBrush(brush)
                item.setHoverBrush(brush)
                lab = self.region_labels[kind]
                lab.setColor(_qcolor(s.muted))
                lab.setFont(_font(s, s.annotation_font_pt * 0.95))
        if g is None:
            return
        ann = _font(s, s.annotation_font_pt)
        ann_bold = _font(s, s.annotation_font_pt, bold=True)
        for c in g.chips:
            col = s.colour(c.colour)
            for r in c.roofs:
                k = ("style", "roof", c.chip_id, r.key)
                if self._changed(k, (id(s), col)):
                    item = self.roof_curves[c.chip_id][r.key]
                    item.setPen(_pen(col, s.link_width, "dash") if r.kind == "link"
                                else _pen(col, s.roof_width))
                    if r.label:
                        lab = self.roof_labels[(c.chip_id, r.key)]
                        lab.setColor(_qcolor(col))
                        lab.setFont(ann)
                        lab.fill = _halo(s)
            self._style_ridges(c)
            for r in c.ridges:
                k = (c.chip_id, r.key)
                if self._changed(("style", "guide") + k, (id(s), col)):
                    self.ridge_guides[k].setPen(_pen(col, s.guide_width, "dot", alpha=0.75))
                    self.ridge_labels[k].setColor(_qcolor(col))
                    self.ridge_labels[k].setFont(ann_bold)
                    self.ridge_labels[k].fill = _halo(s)
        self._sync_points(g)  # (their look is part of their data)
        for p in g.points:
            if p.key in self.net_links and self._changed(("style", "netlink") + p.key,
                                                         (id(s), p.colour)):
                self.net_links[p.key].setPen(_pen(s.colour(p.colour), s.guide_width, "dot",
                                                  alpha=0.8))
        for k, item in self.op_labels.items():
            on = k[0] == self.selected_op  # the op the results show: its label in bold, framed
            if self._changed(("style", "oplabel") + k, (id(s), on)):
                item.setColor(_qcolor(s.foreground))
                item.setFont(ann_bold if on else ann)
                item.fill = _halo(s)
                item.border = _pen(s.muted, 1.0) if on else pg.mkPen(None)
                item.update()

    def _style_ridges(self, c) -> None:
        s = self.style
        col = s.colour(c.colour)
        if self._changed(("style", "ridges", c.chip_id), (id(s), col)):
            _style_scatter(self.ridge_items[c.chip_id], _pen(s.marker_edge, s.marker_outline * 0.8),
                           pg.mkBrush(_qcolor(col)), s.ridge_size, "d")

    def _sync_points(self, g: pd.RooflineGeometry) -> None:
        """Each op phase's points (and link twins) as one scatter, spots styled per chip."""
        s = self.style
        groups: dict[tuple[int, str], list] = {}
        for p in g.points:
            groups.setdefault((p.op_index, p.phase), []).append(p)
        twins = {k: [p for p in ps if p.net_x is not None] for k, ps in groups.items()}
        twins = {k: ps for k, ps in twins.items() if ps}
        for store, want, prefix in ((self.point_groups, groups, "points"),
                                    (self.net_groups, twins, "twins")):
            for k in list(store):
                if k not in want:
                    self._drop(store, k, (prefix,))
            for k, ps in want.items():
                item = store.get(k)
                if item is None:
                    item = store[k] = self._new_scatter(10 if prefix == "points" else 9,
                                                        pool=(prefix,) + k)
                net = prefix == "twins"
                sig = (id(s), tuple((p.net_x if net else p.x, p.y, p.tooltip, p.symbol, p.colour)
                                    for p in ps))
                if not self._changed(("data", prefix) + k, sig):
                    continue
                cols = [s.colour(p.colour) for p in ps]
                if net:  # hollow, ringed in the chip's colour
                    look = dict(pen=[_pen(c, s.marker_outline * 1.4) for c in cols],
                                brush=pg.mkBrush(_face(s)), size=s.marker_size * 0.85)
                else:
                    look = dict(pen=_pen(s.marker_edge, s.marker_outline),
                                brush=[pg.mkBrush(_qcolor(c)) for c in cols], size=s.marker_size)
                item.setData(x=[p.net_x if net else p.x for p in ps], y=[p.y for p in ps],
                             data=[p.tooltip for p in ps], symbol=[p.symbol for p in ps], **look)
        # the views by (op, phase, chip): the same object for as long as the point is shown
        for name, store, want in (("point", self.point_groups, groups),
                                  ("twin", self.net_groups, twins)):
            views = {}
            for k, ps in want.items():
                for i, p in enumerate(ps):
                    v = self._spot_views.get((name, p.key))
                    if v is None:
                        v = self._spot_views[(name, p.key)] = _Spot(store[k], i)
                    v.item, v.index, v.live = store[k], i, True
                    views[p.key] = v
            for (n, key), v in self._spot_views.items():
                if n == name and key not in views:
                    v.live = False
            if name == "point":
                self.points = views
            else:
                self.net_points = views

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        # The marker key is fixed (network only with a link roof), so edits that
        # move points across a ridge never rebuild the legend.
        has_link = any(r.kind == "link" for c in g.chips for r in c.roofs)
        bounds = (["compute", "memory"] + (["network"] if has_link else [])) if g.points else []
        sig = (tuple((c.chip_id, c.label, c.colour) for c in g.chips), has_link, id(s))
        if sig == self._legend_signature:
            return
        self._legend_signature = sig
        entries = [(c.label, self._sample(pen=_pen(s.colour(c.colour), s.roof_width)))
                   for c in g.chips]
        if has_link:
            entries.append(("link roof", self._sample(pen=_pen(s.neutral, s.link_width, "dash"))))
        for b in bounds:
            entries.append((pd.BOUND_LABELS[b],
                            self._sample(symbol=pd.BOUND_SYMBOLS[b],
                                         brush=pg.mkBrush(_qcolor(s.neutral)),
                                         sym_pen=_pen(s.marker_edge, s.marker_outline),
                                         size=s.marker_size * 0.85)))
        self._legend_entries(entries)

    # -- annotations that follow the view ---------------------------------------------
    def _lay_out(self) -> None:
        g = self.geometry
        if g is None:
            self._place_legend()
            return
        s = self.style
        x0, x1, y0, y1 = self.view_range()
        vw, vh = max(self.vb.width(), 1.0), max(self.vb.height(), 1.0)
        px_x = vw / max(x1 - x0, 1e-9)  # pixels per decade
        px_y = vh / max(y1 - y0, 1e-9)
        char_w = _text_px(s, s.annotation_font_pt) * 0.5
        line_h = _text_px(s, s.annotation_font_pt)
        # ridge intensities along the bottom, stacked where they would overlap
        ridges = sorted(((c.chip_id, r) for c in g.chips for r in c.ridges if r.label_shown),
                        key=lambda t: t[1].x)
        widths = [(len(r.label) + 1.5) * char_w / px_x for _, r in ridges]
        rows = pd.stack_rows([r.x for _, r in ridges], widths)
        for (cid, r), row in zip(ridges, rows):
            lab = self.ridge_labels[(cid, r.key)]
            lab.setPos(r.x, y0)
            _set_anchor(lab, (0.5, 1.05 + 1.0 * row))
        # op labels beside their point: above or below (close neighbours alternate), else to
        # its right or left, wherever they cover the fewest points and earlier op labels and
        # stay in the view; centred ones slide inwards near the edges (an LLM prefill point)
        pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points
                                                if p.net_x is not None]
        psx, psy = self._to_scene([q[0] for q in pts], [q[1] for q in pts])
        vr = self.vb.sceneBoundingRect()
        bounds = (vr.left(), vr.top(), vr.right(), vr.bottom())
        placed_x: list[np.ndarray] = [psx]
        placed_y: list[np.ndarray] = [psy]
        for ol in g.labels:
            item = self.op_labels.get(ol.key)
            if item is None:
                continue
            br = item.textItem.boundingRect()
            w_px, h_px = br.width(), br.height()
            w = w_px / px_x
            edge = 4.0 / px_x
            ax = 0.5
            if w > 0:
                ax = min(max(ax, 1.0 - (x1 - edge - ol.x) / w), (ol.x - x0 - edge) / w)
                ax = min(max(ax, 0.0), 1.0)
            near, far = (1.3, -0.3) if ol.side == "above" else (-0.3, 1.3)
            side = s.marker_size * 0.8 / w_px if w_px > 0 else 0.0
            anchors = [(ax, near), (ax, far), (-side, 0.5), (1.0 + side, 0.5)]
            (lx,), (ly,) = self._to_scene([ol.x], [ol.y])
            best = pd.place_label(float(lx), float(ly), w_px, h_px, anchors,
                                  np.concatenate(placed_x), np.concatenate(placed_y), bounds,
                                  margin=s.marker_size * 0.5)
            anchor = anchors[best]
            if (item.anchor.x(), item.anchor.y()) != anchor:
                item.setAnchor(anchor)
            ((left, top, rw, rh),) = pd.label_rects(float(lx), float(ly), w_px, h_px, [anchor])
            gx, gy = _rect_samples(left, top, rw, rh)
            placed_x.append(gx)
            placed_y.append(gy)
        # compute-roof labels just above their roofs, spread apart: at the right edge,
        # or just after the ridge when an op's point sits where the label would go
        roofs = [(c.chip_id, r) for c in g.chips for r in c.roofs if r.label]
        ys_px = [(r.y[0] - y0) * px_y for _, r in roofs]
        spread = pd.spread_1d(ys_px, line_h * 1.02)
        pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points if p.net_x]
        sx, sy = self._to_scene([p[0] for p in pts], [p[1] for p in pts])
        pad = 3 * s.axis_width / px_x
        for (cid, r), y_px in zip(roofs, spread):
            lab = self.roof_labels[(cid, r.key)]
            w_px = lab.textItem.boundingRect().width()
            h_px = lab.textItem.boundingRect().height()
            y = y0 + y_px / px_y
            start = max(r.x[0], x0) + 2 * pad
            right = x1 - pad
            lab.setVisible(bool(right - start > w_px / px_x))
            cands = [(right - w_px / px_x, right, (1.0, 1.0)), (start, start + w_px / px_x, (0.0, 1.0))]
            rects = []
            for a_, b_, _ in cands:
                (l_, r_), (t_, _b) = self._to_scene([a_, b_], [y, y])
                rects.append((l_, t_ - h_px, r_ - l_, h_px))
            best = pd.least_covered(rects, sx, sy, margin=s.marker_size * 0.6)
            a_, b_, anchor = cands[best]
            lab.setPos(b_ if anchor[0] == 1.0 else a_, y)
            _set_anchor(lab, anchor)
        # bands: clipped to a little beyond the view (a band 1e60 wide is slow to fill)
        for reg in g.regions:
            ext = (max(reg.x0, x0 - 1.0), min(reg.x1, x1 + 1.0))
            if ext[0] >= ext[1]:
                ext = (reg.x0, reg.x0) if reg.x0 > x1 else (reg.x1, reg.x1)
            if self._changed(("data", "region", reg.kind), ext):
                self.region_items[reg.kind].setRegion(ext)
        # legend in the emptiest corner, then region names clear of it
        self._place_legend()
        self._layout_region_labels(x0, x1, y1, px_x)

    def _layout_region_labels(self, x0, x1, y1, px_x) -> None:
        g = self.geometry
        s = self.style
        names = pd.REGION_SHORT
        char_w = _text_px(s, s.annotation_font_pt) * 0.5
        legend_rect = self.legend.sceneBoundingRect() if self.legend.isVisible() else None
        for kind, lab in self.region_labels.items():
            reg = next((r for r in g.regions if r.kind == kind), None)
            visible = reg is not None and s.show_region_labels
            if visible:
                a, b = max(reg.x0, x0), min(reg.x1, x1)
                need = (len(names[kind]) * char_w + 16) / px_x
                visible = b - a > need
            if visible:
                self._set_text(("regionlabel", kind), lab, names[kind])
                if kind == "red":  # hug the edge where bandwidth stops binding
                    lab.setPos(b - 6 / px_x, y1)
                    _set_anchor(lab, (1.0, -0.15))
                elif kind == "green":
                    lab.setPos(a + 6 / px_x, y1)
                    _set_anchor(lab, (0.0, -0.15))
                else:
                    lab.setPos((a + b) / 2, y1)
                    _set_anchor(lab, (0.5, -0.15))
                lab.setVisible(True)
                if legend_rect is not None and lab.sceneBoundingRect().intersects(legend_rect):
                    visible = False
            lab.setVisible(visible)

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geometry
        if g is None:
            return np.empty(0), np.empty(0)
        x0, x1, y0, y1 = self.view_range()
        # the roofs, sampled along their length: the same until the chips or the view change
        key = (x0, x1, y0, y1, tuple((r.key, r.x.tobytes(), r.y.tobytes())
                                     for c in g.chips for r in c.roofs))
        if key != self._roof_samples_key:
            step = (x1 - x0) / 150.0
            xs, ys = [np.empty(0)], [np.empty(0)]
            for c in g.chips:
                for r in c.roofs:
                    dx, dy = pd.densify(r.x.clip(x0 - 1, x1 + 1), r.y, step)
                    xs.append(dx)
                    ys.append(dy)
            self._roof_samples = (np.concatenate(xs), np.concatenate(ys))
            self._roof_samples_key = key
        xs = np.concatenate([self._roof_samples[0],
                             [p.x for p in g.points], [p.net_x for p in g.points if p.net_x]])
        ys = np.concatenate([self._roof_samples[1],
                             [p.y for p in g.points], [p.y for p in g.points if p.net_x]])
        sx, sy = self._to_scene(xs, ys)
        tx, ty = self._label_samples(list(self.op_labels.values())
                                     + list(self.roof_labels.values()))
        return np.concatenate([sx] + tx), np.concatenate([sy] + ty)

    def _bottom_labels(self) -> list:
        return list(self.ridge_labels.values())

    def set_selected_op(self, index: int | None) -> None:
        """Emphasise an op's labels (bold, framed): the op the window's results show."""
        if index == self.selected_op:
            return
        self.selected_op = index
        self._restyle_items()
        self._relayout.start()  # a bold label is wider: slide it inwards again if need be

    # -- clicks -----------------------------------------------------------------
    def op_at_scene(self, scene_pos) -> int | None:
        """The op whose point, link twin or label is at a scene position (None: none)."""
        for store in (self.point_groups, self.net_groups):
            for key, item in store.items():
                if self._scatter_hit(item, scene_pos):
                    return key[0]
        for key, item in self.op_labels.items():
            if item.isVisible() and item.sceneBoundingRect().contains(scene_pos):
                return key[0]
        return None

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton or event.double():
            return
        op = self.op_at_scene(event.scenePos())
        if op is not None:
            event.accept()
            self.opClicked.emit(op)

    def _on_mouse_moved(self, scene_pos) -> None:
        super()._on_mouse_moved(scene_pos)
        over = self.vb.sceneBoundingRect().contains(scene_pos) and \
            self.op_at_scene(scene_pos) is not None
        shape = QtCore.Qt.CursorShape.PointingHandCursor if over else QtCore.Qt.CursorShape.ArrowCursor
        if self.viewport().cursor().shape() != shape:
            self.viewport().setCursor(shape)

    # -- hover -----------------------------------------------------------------
    def _readout_text(self, x_log: float, y_log: float) -> str:
        return (f"I = {pd.tick_label_exact(x_log, 'plain')} FLOP/byte   "
                f"{pd.tick_label_exact(y_log, 'si')}FLOP/s")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        hits = [h for item in list(self.point_groups.values()) + list(self.net_groups.values())
                for h in self._scatter_hit(item, scene_pos)]
        if hits:
            return "<br><hr>".join(h.data() for h in hits)
        for item in self.ridge_items.values():
            hits = self._scatter_hit(item, scene_pos)
            if hits:
                return hits[0].data()
        g = self.geometry
        if g is None:
            return None
        for c in g.chips:
            for r in c.roofs:
                if self._curve_hit(self.roof_curves[c.chip_id][r.key], scene_pos):
                    return r.tooltip
        return None


# ---------------------------------------------------------------------------
# Sweep
# ---------------------------------------------------------------------------

class SweepPlot(_LogPlot):
    """Attainable FLOP/s (or time per op) against a swept dimension; one curve per op × chip.

    Introspection: ``curves[(op_index, phase, chip_id)]``, ``crit_markers[key]``,
    ``crit_guides[key]``, ``crit_labels[key]``, ``legend``, ``geometry``.
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "B (batch, tokens)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: pd.SweepGeometry | None = None
        self.curves: dict[tuple[int, str, str], _Curve] = {}
        self.crit_markers: dict[tuple[int, str, str], pg.ScatterPlotItem] = {}
        self.crit_guides: dict[tuple[int, str, str], _Curve] = {}
        self.crit_labels: dict[tuple[int, str, str], pg.TextItem] = {}
        self._colours: dict[str, int] = {}
        self._apply_base_style()

    def update_from(self, scenario, curves, colours: Mapping[str, int] | None = None) -> None:
        """Show sweep curves; the view refits when the swept dimension or y quantity changes.

        ``colours``: palette slots per chip id to keep (pass the roofline's
        ``geometry.colours`` so a chip has one colour in both plots).
        """
        prev = dict(self._colours)
        prev.update({k: v for k, v in (colours or {}).items() if not k.startswith("op:")})
        g = pd.sweep_geometry(scenario, curves, prev, n_colours=len(self.style.palette))
        self._colours = {k: v for k, v in g.colours.items() if not k.startswith("op:")} \
            or self._colours
        old = self.geometry
        refit = (old is None or g.y_kind != old.y_kind or g.dim != old.dim
                 or (not self.user_view and g.fit != old.fit))
        self._adopt(g)
        live = {ln.key for ln in g.lines}
        for k in list(self.curves):
            if k not in live:
                self._drop(self.curves, k, ("curve",))
                self._drop(self.crit_markers, k, ("crit",))
                self._drop(self.crit_guides, k, ("critguide",))
                self._drop(self.crit_labels, k, ("critlabel",))
        for ln in g.lines:
            k = ln.key
            if k not in self.curves:
                self.curves[k] = self._new_curve(0, pool=("curve",) + k)
                self.crit_markers[k] = self._new_scatter(10, pool=("crit",) + k)
                self.crit_guides[k] = self._new_curve(-20, bounds=False, pool=("critguide",) + k)
                self.crit_labels[k] = self._new_text(20, pool=("critlabel",) + k)
            self._set_curve(("curve",) + k, self.curves[k], ln.draw_x, ln.draw_y)
            has = ln.crit_x is not None
            if has:
                self._set_spots(("crit",) + k, self.crit_markers[k], [ln.crit_x], [ln.crit_y],
                                [ln.tooltip])
                self._set_curve(("critguide",) + k, self.crit_guides[k], [ln.crit_x, ln.crit_x],
                                [ln.crit_y, -pd.LOG_INF])
                self._set_text(("critlabel",) + k, self.crit_labels[k], ln.crit_label)
            for item in (self.crit_markers[k], self.crit_guides[k]):
                item.setVisible(has)
            self.crit_labels[k].setVisible(has and ln.crit_label_shown)  # a repeated label: once
        self._restyle_items()
        self._rebuild_legend()
        if refit and g.lines:
            self.fit(layout=False)
        self._layout_annotations()

    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        if g is None:
            return
        face = _face(s)
        for ln in g.lines:
            col = s.colour(ln.colour)
            if not self._changed(("style", "curve") + ln.key, (id(s), col, ln.dash)):
                continue
            self.curves[ln.key].setPen(_pen(col, s.curve_width, ln.dash))
            m = self.crit_markers[ln.key]
            m.setSymbol("o")
            m.setSize(s.ridge_size * 1.3)
            m.setPen(_pen(col, s.marker_outline * 1.5))
            m.setBrush(pg.mkBrush(face))
            self.crit_guides[ln.key].setPen(_pen(col, s.guide_width, "dot", alpha=0.75))
            lab = self.crit_labels[ln.key]
            lab.setColor(_qcolor(col))
            lab.setFont(_font(s, s.annotation_font_pt, bold=True))
            lab.fill = _halo(s)

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        sig = (tuple((ln.key, ln.legend, ln.colour, ln.dash) for ln in g.lines), id(s))
        if sig == self._legend_signature:
            return
        self._legend_signature = sig
        chips = list(dict.fromkeys((ln.chip_label, ln.colour) for ln in g.lines))
        ops = list(dict.fromkeys((ln.op_label, ln.dash) for ln in g.lines))
        if len({c for c, _ in chips}) > 1 and len({o for o, _ in ops}) > 1:
            # several chips and several ops: colour = chip, line style = op, listed apart
            entries = [(name, self._sample(pen=_pen(s.colour(col), s.curve_width)))
                       for name, col in chips]
            entries += [(name, self._sample(pen=_pen(s.neutral, s.curve_width, dash)))
                        for name, dash in ops]
        else:
            entries = [(ln.legend, self._sample(pen=_pen(s.colour(ln.colour), s.curve_width,
                                                        ln.dash)))
                       for ln in g.lines]
        self._legend_entries(entries)

    def _lay_out(self) -> None:
        g = self.geometry
        if g is not None:
            s = self.style
            x0, x1, y0, y1 = self.view_range()
            px_x = max(self.vb.width(), 1.0) / max(x1 - x0, 1e-9)
            char_w = _text_px(s, s.annotation_font_pt) * 0.5
            lines = sorted((ln for ln in g.lines if ln.crit_x is not None and ln.crit_label_shown),
                           key=lambda ln: ln.crit_x)
            widths = [(len(ln.crit_label) + 1.5) * char_w / px_x for ln in lines]
            rows = pd.stack_rows([ln.crit_x for ln in lines], widths)
            for ln, row in zip(lines, rows):
                lab = self.crit_labels[ln.key]
                lab.setPos(ln.crit_x, y0)
                _set_anchor(lab, (0.5, 1.05 + 1.0 * row))
        self._place_legend()

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geometry
        if g is None or not g.lines:
            return np.empty(0), np.empty(0)
        x0, x1, _, _ = self.view_range()
        dx, dy = pd.densify_many([ln.draw_x for ln in g.lines], [ln.draw_y for ln in g.lines],
                                 (x1 - x0) / 150.0)
        sx, sy = self._to_scene(dx, dy)
        tx, ty = self._label_samples(self.crit_labels.values())
        return np.concatenate([sx] + tx), np.concatenate([sy] + ty)

    def _bottom_labels(self) -> list:
        return list(self.crit_labels.values())

    def _readout_text(self, x_log: float, y_log: float) -> str:
        g = self.geometry
        kind = g.y_kind if g else "si"
        dim = g.dim if g else "x"
        unit = "FLOP/s" if kind == "si" else ""
        return (f"{dim} = {pd.tick_label_exact(x_log, 'plain')}   "
                f"{pd.tick_label_exact(y_log, kind)}{unit}")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        for m in self.crit_markers.values():
            hits = self._scatter_hit(m, scene_pos)
            if hits:
                return hits[0].data()
        g = self.geometry
        if g is None:
            return None
        for ln in g.lines:
            if self._curve_hit(self.curves[ln.key], scene_pos):
                return ln.tooltip
        return None
