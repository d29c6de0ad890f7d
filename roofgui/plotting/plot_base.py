"""The base of every plot: log-reading axes, a style, a legend placed where it
covers least, a readout and hover tooltips.  Subclasses make their items once per
chip / op / line and update them with ``setData``; annotations that follow the view
are laid out again (``_lay_out``) before the next paint after the view changes.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

from roofgui.plotting.cache_layer import CacheLayer
from roofgui.plotting import legend_place
from roofgui.plotting.plot_items import (LegendSample, LogAxis, make_font,
                                         make_pen, new_curve, new_label, new_scatter, qcolor,
                                         show_hover_tip, text_px)
from roofgui.model.scenario import VIEW_LIMIT, view_in_range
from roofgui.presentation.style import SCREEN_LIGHT, PlotStyle

DEVICE_CACHE = QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache
#: The narrowest view (decades): zoomed further in, its ends would round to one number.
MIN_VIEW_SPAN = 1e-3

class LogPlot(pg.PlotWidget):
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
        self.vb = vb = pi.getViewBox()
        vb.disableAutoRange()
        vb.setDefaultPadding(0.0)
        # zoom and pan stay where a view can be drawn and saved (±VIEW_LIMIT decades)
        vb.setLimits(xMin=-VIEW_LIMIT, xMax=VIEW_LIMIT, yMin=-VIEW_LIMIT, yMax=VIEW_LIMIT,
                     minXRange=MIN_VIEW_SPAN, minYRange=MIN_VIEW_SPAN,
                     maxXRange=2 * VIEW_LIMIT, maxYRange=2 * VIEW_LIMIT)
        # grid lines at the labelled decades only, as one line of segments
        self.grid_item = pg.PlotCurveItem(connect="pairs", antialias=False, skipFiniteCheck=True)
        self.grid_item.setZValue(-50)
        self.addItem(self.grid_item, ignoreBounds=True)
        self._has_view = False
        #: True once the user pans/zooms or a range is set explicitly; until then (and
        #: again after fit()) the view follows the data when it would leave the view.
        self.user_view = False
        #: the tooltip shown for the last mouse position (None: none)
        self.hover_tip: str | None = None
        #: whether the legend keeps its corner against a near tie (the window's plots)
        self.steady_legend = False
        #: on screen, the layers drawing the lines an edit leaves alone (by name)
        self.layers: dict[str, CacheLayer] = {}
        self._fit: tuple[float, float, float, float] = (0.0, 4.0, 12.0, 16.0)
        self._x_title = ""
        self._y_title = ""
        self.legend = pg.LegendItem(offset=(10, 10), frame=True)
        self.legend.setParentItem(vb)
        self.legend.setZValue(1000)
        self.legend_corner = "top-left"
        #: the room (right, below) the PlotItem's layout keeps for a legend outside the axes
        self.legend_room = (0.0, 0.0)
        self._legend_sig: list | None = None
        #: the legend's entries as measured for placing it (legend_place.Entries); None:
        #: to measure (the entries were set since)
        self.legend_measure = None
        # the readout sits in a strip above the axes, where no annotation can be under it
        self.readout = pg.LabelItem("", justify="right")
        self.readout.setParentItem(pi)
        self.readout.item.document().setDocumentMargin(0.0)
        self.readout.setZValue(1001)
        vb.sigRangeChangedManually.connect(self._on_manual_range)
        vb.sigRangeChanged.connect(self._on_range_changed)
        vb.sigResized.connect(self._on_resized)
        # text and legend sizes settle once Qt has laid them out: lay out again then
        self._relayout = QtCore.QTimer(self)
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(0)
        self._relayout.timeout.connect(self.lay_out_annotations)
        self._layout_pending = False
        self.scene().sigPrepareForPaint.connect(self.flush_layout)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.setMouseTracking(True)

    def use_screen_caches(self) -> None:
        """The window's plot (not an export's): its legend keeps its corner unless another
        covers clearly less, so that it does not hop between near ties as the user types;
        Qt keeps the axes (not their titles, whose pictures would sit up to a pixel off)
        as pictures (its device-coordinate cache: ~1-2 ms of a repaint),
        and the lines an edit leaves alone are drawn from one picture
        (:mod:`~roofgui.plotting.cache_layer`, :meth:`_make_layers`)."""
        if self.steady_legend:
            return
        self.steady_legend = True
        pi = self.getPlotItem()
        for name in ("left", "bottom"):
            pi.getAxis(name).setCacheMode(DEVICE_CACHE)
        self._make_layers()

    def _make_layers(self) -> None:  # (subclasses: their cache layers, in self.layers)
        pass

    def _invalidate_layers(self) -> None:
        for layer in self.layers.values():
            layer.invalidate()

    # -- view -------------------------------------------------------------
    def view_range(self) -> list[float]:
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return [float(x0), float(x1), float(y0), float(y1)]

    def fit(self, layout: bool = True) -> None:
        """Reset the view to fit everything (``layout``: lay the labels out now)."""
        x0, x1, y0, y1 = self._fit
        self.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.0)
        self._has_view = True
        self.user_view = False
        if layout:
            self.flush_layout()

    def set_view(self, rng: Sequence[float] | None, layout: bool = True) -> None:
        """Show ``[x0, x1, y0, y1]`` (log10 units), or fit when ``None`` (or not a view the
        plot can draw: see :func:`~roofgui.model.scenario.view_in_range`)."""
        if rng is None or not view_in_range(list(rng)):
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
        self._update_grid()
        self._layout_pending = True  # (at the next paint, once for many range changes)

    def _on_resized(self, *_):
        self._on_range_changed()
        self._relayout.start()

    def flush_layout(self) -> None:
        """Lay the annotations out now if the view changed since they last were."""
        if self._layout_pending:
            self.lay_out_annotations()

    def layout_pending(self) -> bool:
        """Whether a view change left the annotations to lay out at the next paint."""
        return self._layout_pending

    def lay_out_annotations(self) -> None:
        """Lay the annotations (labels, legend) out for the view on show, now (not once
        the plot's items are gone: a relayout due as the plot closes)."""
        if not pg.Qt.isQObjectAlive(self.legend):
            return
        self._layout_pending = False
        self._lay_out()
        if self._layout_pending:  # the legend went in or out: the axes resized, again
            self._layout_pending = False
            self._lay_out()

    def _lay_out(self) -> None:  # the annotations that follow the view (subclasses: more)
        self.place_legend()

    def _update_grid(self) -> None:
        x0, x1, y0, y1 = self.view_range()
        xm = self._x_axis.tickValues(x0, x1, max(self.vb.width(), 1.0))[0][1]
        ym = self._y_axis.tickValues(y0, y1, max(self.vb.height(), 1.0))[0][1]
        xs = [v for v in xm for _ in (0, 1)] + [x0 - 1, x1 + 1] * len(ym)
        ys = [y0 - 1, y1 + 1] * len(xm) + [v for v in ym for _ in (0, 1)]
        self.grid_item.setData(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float))

    # -- style --------------------------------------------------------------
    def set_style(self, style: PlotStyle) -> None:
        self.style = style
        self._legend_sig = None
        self._invalidate_layers()
        self._apply_base_style()
        self._restyle_items()
        self._rebuild_legend()
        self._update_grid()
        self.lay_out_annotations()
        self._relayout.start()

    def _apply_base_style(self) -> None:
        s = self.style
        self.setBackground(qcolor(s.background) if s.background != "transparent" else None)
        fg = qcolor(s.foreground)
        for ax in (self._x_axis, self._y_axis):
            ax.setPen(make_pen(s.foreground, s.axis_width, alpha=0.6))
            ax.setTextPen(fg)
            ax.setTickFont(make_font(s, s.tick_font_pt))
            ax.setStyle(tickLength=int(round(5 * s.axis_width)),
                        tickTextOffset=int(round(2 + 2 * s.axis_width)),
                        autoExpandTextSpace=True)
            ax.setGrid(False)
        self.grid_item.setPen(make_pen(s.foreground, s.grid_width, alpha=s.grid_alpha))
        # room above the view for half a tick label (a decade at the top edge is whole),
        # and for the readout's line when it shows
        top = QtGui.QFontMetricsF(make_font(s, s.tick_font_pt)).height() / 2 + 1.0
        if s.show_readout:
            self.readout.setText("1", color=s.muted, size=f"{s.annotation_font_pt}pt")
            top = max(top, self.readout.itemRect().height() + 1.0)
            self.readout.setText("")
        lay = self.getPlotItem().layout
        ml, _, mr, mb = lay.getContentsMargins()
        lay.setContentsMargins(ml, float(np.ceil(top)), mr, mb)
        self._set_titles(self._x_title, self._y_title)
        lg = self.legend
        lg.setPen(make_pen(s.legend_border, 1.0))
        lg.setBrush(pg.mkBrush(qcolor(s.legend_background)))
        lg.setLabelTextColor(fg)
        lg.setLabelTextSize(f"{s.legend_font_pt}pt")
        pad = s.legend_padding
        lg.layout.setContentsMargins(pad, pad * 0.5, pad * 1.2, pad * 0.5)
        lg.layout.setHorizontalSpacing(pad * 0.5)
        lg.layout.setVerticalSpacing(0.0)
        self.readout.setVisible(s.show_readout)
        self.readout.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-6, 0))

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

    def _legend_entries(self, entries: list[tuple[str, dict]]) -> None:
        """The legend's entries, ``(name, what _sample draws)`` each (the same as shown:
        left as they are)."""
        if entries == self._legend_sig:
            return
        old, self._legend_sig = self._legend_sig, entries
        self._relayout.start()  # the legend's size settles once Qt has laid it out
        if old is not None and len(old) == len(entries) == len(self.legend.items) and all(
                a[1] == b[1] for a, b in zip(old, entries)):
            # the same samples under other names (a what-if names the chips with its factor,
            # at each keystroke): renamed in place, not made again
            for (_, label), (name, _) in zip(self.legend.items, entries):
                if label.text != name:
                    label.setText(name)
        else:
            self.legend.clear()
            for name, sample in entries:
                self.legend.addItem(self._sample(**sample), name)
                # (rows as tall as the text: a compact legend)
                self.legend.items[-1][1].item.document().setDocumentMargin(1.0)
        for _, label in self.legend.items:  # (each entry its text's size, the legend theirs)
            label.updateMin()
            label.resize(label.preferredWidth(), label.preferredHeight())
        self.legend.updateSize()
        self.legend_measure = None  # (legend_place measures the entries again)
        self.legend.setVisible(bool(entries))

    def _sample(self, pen=None, symbol=None, brush=None, sym_pen=None, size=None,
                fill=None) -> LegendSample:
        s = self.style
        line_px = text_px(s, s.legend_font_pt)
        return LegendSample(pen, symbol, brush, sym_pen, size or s.marker_size * 0.8,
                            line_px * 2.0, max(line_px, (size or 0) + 4), fill)

    # -- legend placement ---------------------------------------------------------
    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        """Scene positions of what the legend should not cover (overridden)."""
        return np.empty(0), np.empty(0)

    def to_scene(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """Scene coordinates of view points."""
        self.vb.updateMatrix()  # (a new range reaches the transform lazily: now)
        tr = self.vb.childGroup.sceneTransform()
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (tr.m11() * x + tr.m21() * y + tr.m31(), tr.m12() * x + tr.m22() * y + tr.m32())

    def obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        """Scene positions of what the legend should not cover."""
        return self._obstacles()

    def bottom_labels(self) -> list:
        """The labels along the x axis a bottom-corner legend is lifted clear of."""
        return self._bottom_labels()

    def place_legend(self) -> None:
        """The legend in the style's corner, or ("auto") where it covers nothing, else
        outside the axes (:mod:`~roofgui.plotting.legend_place`)."""
        legend_place.place_legend(self)

    def _bottom_labels(self) -> list:
        return []

    # -- hover ----------------------------------------------------------------
    def _on_mouse_moved(self, scene_pos) -> None:
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            self.readout.setText("")
            if self.hover_tip:
                self.hover_tip = None
                QtWidgets.QToolTip.hideText()
            return
        p = self.vb.mapSceneToView(scene_pos)
        s = self.style
        self.readout.setText(self._readout_text(p.x(), p.y()), color=s.muted,
                             size=f"{s.annotation_font_pt}pt")
        tip = self.tooltip_at_scene(scene_pos)
        show_hover_tip(self, tip)

    def _readout_text(self, x_log: float, y_log: float) -> str:
        return ""

    def tooltip_at_scene(self, scene_pos) -> str | None:  # overridden
        return None

    def tooltip_at(self, x_log: float, y_log: float) -> str | None:
        """The tooltip that hovering at view point (log10 x, log10 y) shows, if any."""
        return self.tooltip_at_scene(self.vb.mapViewToScene(QtCore.QPointF(x_log, y_log)))

    @staticmethod
    def _curve_hit(item: pg.PlotCurveItem, scene_pos) -> bool:
        return item.isVisible() and item.mouseShape().contains(item.mapFromScene(scene_pos))

    @staticmethod
    def _scatter_hit(item: pg.ScatterPlotItem, scene_pos) -> list:
        if not item.isVisible():
            return []
        return list(item.pointsAt(item.mapFromScene(scene_pos)))

    def _spot_tip(self, items, scene_pos) -> str | None:
        """The tooltip of the first spot of ``items`` (scatters) at a scene position."""
        for item in items:
            hits = self._scatter_hit(item, scene_pos)
            if hits:
                return hits[0].data()
        return None

    # -- items --------------------------------------------------------------------
    def _add_curve(self, z: float, bounds: bool = True) -> pg.PlotCurveItem:
        item = new_curve(z)
        self.addItem(item, ignoreBounds=not bounds)
        return item

    def _add_guide(self, z: float) -> pg.PlotCurveItem:
        """A guide: dotted drops to the axis, connectors, walls.  Straight across or down
        the view, it needs no antialiasing, without which a dotted line paints ~4× faster."""
        item = new_curve(z, antialias=False)
        self.addItem(item, ignoreBounds=True)
        return item

    def _add_scatter(self, z: float) -> pg.ScatterPlotItem:
        item = new_scatter(z)
        self.addItem(item)
        return item

    def _add_label(self, z: float, anchor=(0.5, 1.0)) -> pg.TextItem:
        item = new_label(z, anchor)
        self.addItem(item, ignoreBounds=True)
        return item

    def _remove(self, store: dict, key) -> None:
        """Take an item out of the plot and of its store."""
        self.removeItem(store.pop(key))
