"""The roofline and sweep plots.  They only draw: every coordinate comes from
:mod:`roofgui.model.plotdata` (log10 units on linear axes whose ticks read as
powers of ten), and every item is created once per chip / op and then updated
with ``setData``.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

from ..model import plotdata as pd
from .style import SCREEN_LIGHT, PlotStyle

__all__ = ["LogAxis", "RooflinePlot", "SweepPlot"]

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
    f = QtGui.QFont(style.font_family)
    f.setStyleHint(QtGui.QFont.StyleHint.SansSerif)
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


# ---------------------------------------------------------------------------
# Axis
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
        majors, minors = pd.log_ticks(lo, hi, max_major=max(2, int(size / 70)))
        return [(1.0, majors), (0.1, minors)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        if spacing < 1.0:
            return ["" for _ in values]
        return [pd.tick_label(v, self.kind) for v in values]


class _Sample(pg.ItemSample):
    """Legend sample sized by the style (pyqtgraph's is a fixed 20 px)."""

    def __init__(self, pen: QtGui.QPen | None, symbol: str | None, brush: QtGui.QBrush | None,
                 sym_pen: QtGui.QPen | None, size: float, width: float, height: float):
        super().__init__(pg.PlotDataItem())
        self.set(pen, symbol, brush, sym_pen, size, width, height)

    def set(self, pen, symbol, brush, sym_pen, size, width, height):
        self._pen, self._symbol, self._brush, self._sym_pen = pen, symbol, brush, sym_pen
        self._size, self._w, self._h = size, width, height
        self.setFixedWidth(width)
        self.setFixedHeight(height)
        self.update()

    def boundingRect(self):
        return QtCore.QRectF(0, 0, self._w, self._h)

    def paint(self, p, *args):
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        y = self._h / 2
        if self._pen is not None:
            p.setPen(self._pen)
            p.drawLine(QtCore.QPointF(2, y), QtCore.QPointF(self._w - 2, y))
        if self._symbol is not None:
            p.translate(self._w / 2, y)
            pg.graphicsItems.ScatterPlotItem.drawSymbol(p, self._symbol, self._size,
                                                        self._sym_pen or pg.mkPen(None),
                                                        self._brush or pg.mkBrush(None))

    def mouseClickEvent(self, event):  # samples are not toggles here
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
        self.showGrid(x=True, y=True)
        self._has_view = False
        self._fit: tuple[float, float, float, float] = (0.0, 4.0, 12.0, 16.0)
        self._x_title = ""
        self._y_title = ""
        self.legend = pg.LegendItem(offset=(10, 10), frame=True)
        self.legend.setParentItem(vb)
        self.legend.setZValue(1000)
        self._legend_signature: tuple = ()
        self.readout = pg.LabelItem("", justify="right")
        self.readout.setParentItem(vb)
        self.readout.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-8, 4))
        self.readout.setZValue(1001)
        vb.sigRangeChangedManually.connect(self._on_manual_range)
        vb.sigRangeChanged.connect(self._on_range_changed)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.setMouseTracking(True)

    # -- view -------------------------------------------------------------
    def view_range(self) -> list[float]:
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return [float(x0), float(x1), float(y0), float(y1)]

    def fit(self) -> None:
        """Reset the view to fit everything."""
        x0, x1, y0, y1 = self._fit
        self.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.0)
        self._has_view = True

    def set_view(self, rng: Sequence[float] | None) -> None:
        """Show ``[x0, x1, y0, y1]`` (log10 units), or fit when ``None``."""
        if rng is None:
            self.fit()
            return
        x0, x1, y0, y1 = (float(v) for v in rng)
        self.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.0)
        self._has_view = True

    def _on_manual_range(self, *_):
        self.viewChangedByUser.emit(self.view_range())

    def _on_range_changed(self, *_):
        self._layout_annotations()

    def _layout_annotations(self) -> None:  # overridden
        pass

    # -- style --------------------------------------------------------------
    def set_style(self, style: PlotStyle) -> None:
        self.style = style
        self._apply_base_style()
        self._restyle_items()
        self._legend_signature = ()
        self._rebuild_legend()
        self._layout_annotations()

    def _apply_base_style(self) -> None:
        s = self.style
        bg = _qcolor(s.background)
        self.setBackground(bg if s.background != "transparent" else None)
        fg = _qcolor(s.foreground)
        for ax in (self._x_axis, self._y_axis):
            ax.setPen(_pen(s.foreground, s.axis_width, alpha=0.55))
            ax.setTextPen(fg)
            ax.setTickFont(_font(s, s.tick_font_pt))
            ax.setStyle(tickLength=int(round(-5 * s.axis_width)),
                        tickTextOffset=int(round(4 + 2 * s.axis_width)),
                        autoExpandTextSpace=True)
            ax.setGrid(int(255 * s.grid_alpha))
        self._set_titles(self._x_title, self._y_title)
        for name in ("top", "right"):
            self.getPlotItem().showAxis(name, False)
        lg = self.legend
        lg.setPen(_pen(s.legend_border, 1.0))
        lg.setBrush(pg.mkBrush(_qcolor(s.legend_background)))
        lg.setLabelTextColor(fg)
        lg.setLabelTextSize(f"{s.legend_font_pt}pt")
        pad = s.legend_padding
        lg.layout.setContentsMargins(pad, pad * 0.6, pad, pad * 0.6)
        lg.layout.setHorizontalSpacing(pad * 0.6)
        lg.layout.setVerticalSpacing(0)
        off = pad + 4
        pos = s.legend_position
        ox = off if "left" in pos else -off
        oy = off if "top" in pos else -off
        lg.setOffset((ox, oy))
        self.readout.setVisible(s.show_readout)

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
        self.legend.clear()
        for name, sample in entries:
            self.legend.addItem(sample, name)

    def _sample(self, pen=None, symbol=None, brush=None, sym_pen=None, size=None) -> _Sample:
        s = self.style
        h = max(s.legend_font_pt * 2.0, (size or 0) + 4)
        return _Sample(pen, symbol, brush, sym_pen, size or s.marker_size * 0.8,
                       s.legend_font_pt * 3.2, h)

    # -- hover ----------------------------------------------------------------
    def _on_mouse_moved(self, scene_pos) -> None:
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            self.readout.setText("")
            return
        p = self.vb.mapSceneToView(scene_pos)
        self._update_readout(p.x(), p.y())
        tip = self.tooltip_at_scene(scene_pos)
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
    def _curve_hit(item: pg.PlotDataItem, scene_pos) -> bool:
        if not item.isVisible():
            return False
        c = item.curve
        return c.mouseShape().contains(c.mapFromScene(scene_pos))

    @staticmethod
    def _scatter_hit(item: pg.ScatterPlotItem, scene_pos) -> list:
        if not item.isVisible():
            return []
        return list(item.pointsAt(item.mapFromScene(scene_pos)))


# ---------------------------------------------------------------------------
# Roofline
# ---------------------------------------------------------------------------

class RooflinePlot(_LogPlot):
    """Log-log roofline: roofs per chip, op points, ridge marks and red/yellow/green regions.

    Introspection for tests: ``roof_curves[chip_id][key]`` (``"compute:bf16"``,
    ``"hbm"``, ``"link:ici"``), ``ridge_items[chip_id]``, ``ridge_labels[(chip_id, key)]``,
    ``points[(op_index, phase, chip_id)]``, ``op_labels[(op_index, phase)]``,
    ``region_items[kind]``, ``legend``, ``geometry`` (the last
    :class:`~roofgui.model.plotdata.RooflineGeometry`).
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "Arithmetic intensity (FLOP/byte)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: pd.RooflineGeometry | None = None
        self.roof_curves: dict[str, dict[str, pg.PlotDataItem]] = {}
        self.ridge_items: dict[str, pg.ScatterPlotItem] = {}
        self.ridge_guides: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.ridge_labels: dict[tuple[str, str], pg.TextItem] = {}
        self.points: dict[tuple[int, str, str], pg.ScatterPlotItem] = {}
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
            lab = pg.TextItem("", anchor=(0.5, 0.0))
            lab.setZValue(-90)
            lab.setVisible(False)
            self.addItem(lab, ignoreBounds=True)
            self.region_labels[kind] = lab
        self._colours: dict[str, int] = {}
        self._apply_base_style()

    # -- data -------------------------------------------------------------------
    def update_from(self, scenario, evaluation) -> None:
        """Show a scenario's evaluation; the view is kept (fitted on the first data)."""
        g = pd.roofline_geometry(scenario, evaluation, self._colours, n_colours=len(self.style.palette))
        self._colours = dict(g.colours)
        self.geometry = g
        self._fit = g.fit
        self._sync_items(g)
        self._restyle_items()
        self._rebuild_legend()
        if not self._has_view and (g.chips or g.points):
            view = getattr(getattr(scenario, "view", None), "roofline", None)
            self.set_view(view)
        self._layout_annotations()

    def _sync_items(self, g: pd.RooflineGeometry) -> None:
        # roofs, ridges
        live_chips = {c.chip_id for c in g.chips}
        for cid in list(self.roof_curves):
            if cid not in live_chips:
                for item in self.roof_curves.pop(cid).values():
                    self.removeItem(item)
                self.removeItem(self.ridge_items.pop(cid))
        for c in g.chips:
            curves = self.roof_curves.setdefault(c.chip_id, {})
            keys = {r.key for r in c.roofs}
            for k in list(curves):
                if k not in keys:
                    self.removeItem(curves.pop(k))
            for r in c.roofs:
                item = curves.get(r.key)
                if item is None:
                    item = pg.PlotDataItem(antialias=True)
                    item.setZValue(0 if r.kind != "link" else -1)
                    item.curve.setClickable(True, width=8)
                    self.addItem(item)
                    curves[r.key] = item
                item.setData(r.x, r.y)
            ridge = self.ridge_items.get(c.chip_id)
            if ridge is None:
                ridge = pg.ScatterPlotItem(antialias=True)
                ridge.setZValue(5)
                self.addItem(ridge)
                self.ridge_items[c.chip_id] = ridge
            ridge.setData(x=[r.x for r in c.ridges], y=[r.y for r in c.ridges],
                          data=[r.tooltip for r in c.ridges])
        live_ridges = {(c.chip_id, r.key) for c in g.chips for r in c.ridges}
        for k in list(self.ridge_guides):
            if k not in live_ridges:
                self.removeItem(self.ridge_guides.pop(k))
                self.removeItem(self.ridge_labels.pop(k))
        for c in g.chips:
            for r in c.ridges:
                k = (c.chip_id, r.key)
                guide = self.ridge_guides.get(k)
                if guide is None:
                    guide = pg.PlotDataItem(antialias=True)
                    guide.setZValue(-20)
                    self.addItem(guide, ignoreBounds=True)
                    self.ridge_guides[k] = guide
                    lab = pg.TextItem("", anchor=(0.5, 1.0))
                    lab.setZValue(30)
                    self.addItem(lab, ignoreBounds=True)
                    self.ridge_labels[k] = lab
                guide.setData([r.x, r.x], [r.y, -pd.LOG_INF])
                self.ridge_labels[k].setText(r.label)
        # points
        live_pts = {p.key for p in g.points}
        for k in list(self.points):
            if k not in live_pts:
                self.removeItem(self.points.pop(k))
        for p in g.points:
            item = self.points.get(p.key)
            if item is None:
                item = pg.ScatterPlotItem(antialias=True)
                item.setZValue(10)
                self.addItem(item)
                self.points[p.key] = item
            item.setData(x=[p.x], y=[p.y], symbol=p.symbol, data=[p.tooltip])
        live_labels = {lab.key for lab in g.labels}
        for k in list(self.op_labels):
            if k not in live_labels:
                self.removeItem(self.op_labels.pop(k))
        for lab in g.labels:
            item = self.op_labels.get(lab.key)
            if item is None:
                item = pg.TextItem("")
                item.setZValue(20)
                self.addItem(item, ignoreBounds=True)
                self.op_labels[lab.key] = item
            item.setText(lab.text)
            item.setPos(lab.x, lab.y)
            item.setAnchor((0.5, 1.25) if lab.side == "above" else (0.5, -0.25))
        # regions
        present = {r.kind: r for r in g.regions}
        for kind, item in self.region_items.items():
            r = present.get(kind)
            item.setVisible(r is not None)
            self.region_labels[kind].setVisible(r is not None and self.style.show_region_labels)
            if r is not None:
                item.setRegion((r.x0, r.x1))

    # -- style ------------------------------------------------------------------
    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        for kind, item in self.region_items.items():
            item.setBrush(pg.mkBrush(_qcolor(s.region_colour(kind), s.region_alpha)))
            item.setHoverBrush(pg.mkBrush(_qcolor(s.region_colour(kind), s.region_alpha)))
            lab = self.region_labels[kind]
            lab.setColor(_qcolor(s.muted))
            lab.setFont(_font(s, s.annotation_font_pt * 0.95))
        if g is None:
            return
        for c in g.chips:
            col = s.colour(c.colour)
            for r in c.roofs:
                item = self.roof_curves[c.chip_id][r.key]
                if r.kind == "link":
                    item.setPen(_pen(col, s.link_width, "dash"))
                else:
                    item.setPen(_pen(col, s.roof_width))
            self.ridge_items[c.chip_id].setPen(_pen(s.marker_edge, s.marker_outline * 0.8))
            self.ridge_items[c.chip_id].setBrush(pg.mkBrush(_qcolor(col)))
            self.ridge_items[c.chip_id].setSize(s.ridge_size)
            self.ridge_items[c.chip_id].setSymbol("d")
            for r in c.ridges:
                k = (c.chip_id, r.key)
                self.ridge_guides[k].setPen(_pen(col, s.guide_width, "dot", alpha=0.7))
                self.ridge_labels[k].setColor(_qcolor(col))
                self.ridge_labels[k].setFont(_font(s, s.annotation_font_pt, bold=True))
        for p in g.points:
            item = self.points[p.key]
            item.setPen(_pen(s.marker_edge, s.marker_outline))
            item.setBrush(pg.mkBrush(_qcolor(s.colour(p.colour))))
            item.setSize(s.marker_size)
        for item in self.op_labels.values():
            item.setColor(_qcolor(s.foreground))
            item.setFont(_font(s, s.annotation_font_pt))

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        bounds = sorted({p.bound for p in g.points}, key=pd.BOUND_LABELS.__getitem__)
        bounds = [b for b in ("compute", "memory", "network") if b in bounds]
        has_link = any(r.kind == "link" for c in g.chips for r in c.roofs)
        sig = (tuple((c.chip_id, c.label, c.colour) for c in g.chips), tuple(bounds), has_link,
               s)
        if sig == self._legend_signature:
            return
        self._legend_signature = sig
        entries = []
        for c in g.chips:
            entries.append((c.label, self._sample(pen=_pen(s.colour(c.colour), s.roof_width))))
        if has_link:
            entries.append(("link roof (FLOP per link byte)",
                            self._sample(pen=_pen(s.neutral, s.link_width, "dash"))))
        for b in bounds:
            entries.append((pd.BOUND_LABELS[b],
                            self._sample(symbol=pd.BOUND_SYMBOLS[b],
                                         brush=pg.mkBrush(_qcolor(s.neutral)),
                                         sym_pen=_pen(s.marker_edge, s.marker_outline),
                                         size=s.marker_size * 0.85)))
        self._legend_entries(entries)

    # -- annotations that follow the view ---------------------------------------------
    def _layout_annotations(self) -> None:
        g = self.geometry
        if g is None:
            return
        x0, x1, y0, y1 = self.view_range()
        # ridge labels along the bottom, stacked where they would overlap
        ridges = [(c.chip_id, r) for c in g.chips for r in c.ridges]
        ridges.sort(key=lambda cr: cr[1].x)
        px_per_dec = max(self.vb.width(), 1.0) / max(x1 - x0, 1e-9)
        char_w = self.style.annotation_font_pt * 0.75
        widths = [(len(r.label) + 1.5) * char_w / px_per_dec for _, r in ridges]
        rows = pd.stack_rows([r.x for _, r in ridges], widths)
        for (cid, r), row in zip(ridges, rows):
            lab = self.ridge_labels[(cid, r.key)]
            lab.setPos(r.x, y0)
            lab.setAnchor((0.5, 1.1 + 1.05 * row))
        # region names at the top of each visible band
        for reg in g.regions:
            a, b = max(reg.x0, x0), min(reg.x1, x1)
            lab = self.region_labels[reg.kind]
            wide = (b - a) * px_per_dec > 70
            lab.setVisible(self.style.show_region_labels and b > a and wide)
            if b > a:
                lab.setText({"red": "bandwidth-bound", "yellow": "mixed",
                             "green": "compute-bound"}[reg.kind])
                lab.setPos((a + b) / 2, y1)

    # -- hover -----------------------------------------------------------------
    def _readout_text(self, x_log: float, y_log: float) -> str:
        return (f"I = {pd.tick_label_exact(x_log, 'plain')} FLOP/byte   "
                f"{pd.tick_label_exact(y_log, 'si')}FLOP/s")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        for item in self.points.values():
            hits = self._scatter_hit(item, scene_pos)
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
                item = self.roof_curves[c.chip_id][r.key]
                if self._curve_hit(item, scene_pos):
                    return r.tooltip
        return None


# ---------------------------------------------------------------------------
# Sweep
# ---------------------------------------------------------------------------

class SweepPlot(_LogPlot):
    """Attainable FLOP/s (or time per op) against a swept dimension; one curve per op × chip.

    Introspection: ``curves[(op_index, phase, chip_id)]``, ``crit_markers[key]``,
    ``crit_labels[key]``, ``geometry``.
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "B (swept)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: pd.SweepGeometry | None = None
        self.curves: dict[tuple[int, str, str], pg.PlotDataItem] = {}
        self.crit_markers: dict[tuple[int, str, str], pg.ScatterPlotItem] = {}
        self.crit_guides: dict[tuple[int, str, str], pg.PlotDataItem] = {}
        self.crit_labels: dict[tuple[int, str, str], pg.TextItem] = {}
        self._colours: dict[str, int] = {}
        self._mode = "flops"
        self._apply_base_style()

    def update_from(self, scenario, curves) -> None:
        g = pd.sweep_geometry(scenario, curves, self._colours, n_colours=len(self.style.palette))
        self._colours = dict(g.colours)
        mode_changed = self.geometry is not None and g.y_kind != self.geometry.y_kind
        dim_changed = self.geometry is not None and g.x_title != self.geometry.x_title
        self.geometry = g
        self._fit = g.fit
        self._y_axis.set_kind(g.y_kind)
        self._set_titles(g.x_title, g.y_title)
        live = {ln.key for ln in g.lines}
        for k in list(self.curves):
            if k not in live:
                self.removeItem(self.curves.pop(k))
                self.removeItem(self.crit_markers.pop(k))
                self.removeItem(self.crit_guides.pop(k))
                self.removeItem(self.crit_labels.pop(k))
        for ln in g.lines:
            item = self.curves.get(ln.key)
            if item is None:
                item = pg.PlotDataItem(antialias=True)
                self.addItem(item)
                self.curves[ln.key] = item
                m = pg.ScatterPlotItem(antialias=True)
                m.setZValue(10)
                self.addItem(m)
                self.crit_markers[ln.key] = m
                gd = pg.PlotDataItem(antialias=True)
                gd.setZValue(-20)
                self.addItem(gd, ignoreBounds=True)
                self.crit_guides[ln.key] = gd
                lab = pg.TextItem("", anchor=(0.5, 1.0))
                lab.setZValue(20)
                self.addItem(lab, ignoreBounds=True)
                self.crit_labels[ln.key] = lab
            item.setData(ln.x, ln.y)
            m = self.crit_markers[ln.key]
            gd = self.crit_guides[ln.key]
            lab = self.crit_labels[ln.key]
            has = ln.crit_x is not None
            if has:
                m.setData(x=[ln.crit_x], y=[ln.crit_y], data=[ln.label + "<br>" + ln.crit_label])
                gd.setData([ln.crit_x, ln.crit_x], [ln.crit_y, -pd.LOG_INF])
                lab.setText(ln.crit_label)
            else:
                m.setData(x=[], y=[])
                gd.setData([], [])
            m.setVisible(has)
            gd.setVisible(has)
            lab.setVisible(has)
        self._restyle_items()
        self._rebuild_legend()
        if (not self._has_view or mode_changed or dim_changed) and g.lines:
            self.fit()
        self._layout_annotations()

    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        if g is None:
            return
        for ln in g.lines:
            col = s.colour(ln.colour)
            self.curves[ln.key].setPen(_pen(col, s.curve_width, ln.dash))
            m = self.crit_markers[ln.key]
            m.setSymbol("o")
            m.setSize(s.ridge_size * 1.2)
            m.setPen(_pen(col, s.marker_outline * 1.3))
            m.setBrush(pg.mkBrush(_qcolor(s.background if s.background != "transparent"
                                          else "#FFFFFF")))
            self.crit_guides[ln.key].setPen(_pen(col, s.guide_width, "dot", alpha=0.7))
            lab = self.crit_labels[ln.key]
            lab.setColor(_qcolor(col))
            lab.setFont(_font(s, s.annotation_font_pt, bold=True))

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        sig = (tuple((ln.key, ln.legend, ln.colour, ln.dash) for ln in g.lines), s)
        if sig == self._legend_signature:
            return
        self._legend_signature = sig
        self._legend_entries([(ln.legend, self._sample(pen=_pen(s.colour(ln.colour),
                                                                 s.curve_width, ln.dash)))
                              for ln in g.lines])

    def _layout_annotations(self) -> None:
        g = self.geometry
        if g is None:
            return
        x0, x1, y0, y1 = self.view_range()
        lines = sorted((ln for ln in g.lines if ln.crit_x is not None), key=lambda ln: ln.crit_x)
        px_per_dec = max(self.vb.width(), 1.0) / max(x1 - x0, 1e-9)
        char_w = self.style.annotation_font_pt * 0.75
        widths = [(len(ln.crit_label) + 1) * char_w / px_per_dec for ln in lines]
        rows = pd.stack_rows([ln.crit_x for ln in lines], widths)
        for ln, row in zip(lines, rows):
            lab = self.crit_labels[ln.key]
            lab.setPos(ln.crit_x, y0)
            lab.setAnchor((0.5, 1.1 + 1.05 * row))

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
