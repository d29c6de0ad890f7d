"""The base of every plot: log-reading axes, a style, a legend placed where it
covers least, a readout, labels laid out once per paint, and items kept per key
(hidden and pooled, never re-created, when their chip or op goes away).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

from roofgui.plotting.label import _Label
from roofgui.plotting.label_layer import LabelLayer, LayerLabel
from roofgui.plotting.picture import Picture
from roofgui.presentation.style import SCREEN_LIGHT, PlotStyle
from roofgui.plotting.plot_items import (_GRID_FX, _GRID_FY, LEGEND_CORNERS, LogAxis, _Curve, _font, _pen,
                         _qcolor, _Sample, _Scatter, _text_px)


def _cache(item) -> None:
    """Have Qt keep ``item``'s picture (not its children's) at the screen's resolution."""
    item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)


def _rect_bounds(rects, margin: float = 0.0) -> tuple[np.ndarray, ...]:
    """``(left, top, width, height)`` rectangles grown by ``margin``, as four arrays of
    edges for :func:`_covered` (the same arithmetic as ``plotdata.least_covered``)."""
    return (np.array([l - margin for l, t, w, h in rects]),
            np.array([l + w + margin for l, t, w, h in rects]),
            np.array([t - margin for l, t, w, h in rects]),
            np.array([t + h + margin for l, t, w, h in rects]))


def _covered(bounds: tuple[np.ndarray, ...], xs, ys) -> np.ndarray:
    """How many of the points each rectangle of :func:`_rect_bounds` holds (all the
    rectangles in one pass; ``argmin`` of it is ``plotdata.least_covered``)."""
    lo_x, hi_x, lo_y, hi_y = bounds
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    inside = (x >= lo_x[:, None]) & (x <= hi_x[:, None]) & (y >= lo_y[:, None]) & (y <= hi_y[:, None])
    return inside.sum(axis=1)


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
        self.grid_item = _Curve(connect="pairs", antialias=False)  # (its lean screen paint)
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
        self._held_corner: str | None = None  # on screen, the corner a near tie keeps
        self._legend_signature: tuple = ()
        #: a bottom-corner legend's lift above the x-axis labels, by its extent; None: not
        #: kept (a subclass that knows when those labels move keeps and clears it)
        self._clearance: dict | None = None
        self._covered_memo: dict = {}  # (key, corners) -> counts, of the keyed obstacle parts
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
        self._labels: list[_Label] = []  # every label made by _new_text
        #: the layers drawing the labels made by _new_layer_label, one per z value
        self.label_layers: dict[float, LabelLayer] = {}
        self.scene().sigPrepareForPaint.connect(self._sync_label_transforms)  # (after layout)
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
        self._sync_opaque()

    def _sync_opaque(self) -> None:
        """On screen, a plot with an opaque background paints every pixel of its viewport
        itself (its background first): Qt need not fill the viewport before each paint
        (``WA_OpaquePaintEvent``; the fill and its bookkeeping were ~0.25 ms of a keystroke's
        repaint at 1280×800).  Nor need the view keep a picture of that background
        (pyqtgraph's ``CacheBackground``) and copy it into each repainted region: filling
        the region with the one colour writes the same pixels without reading a picture the
        size of the view (a sweep edit's paint ~0.14 ms shorter).  A transparent background
        leaves Qt's fill, and pyqtgraph's cache, in place."""
        bg = self.style.background
        opaque = (self.screen_caches and bg != "transparent"
                  and _qcolor(bg).alpha() == 255)
        self.viewport().setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent, opaque)
        mode = QtWidgets.QGraphicsView.CacheModeFlag
        self.setCacheMode(mode.CacheNone if opaque else mode.CacheBackground)

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

    def _scene_matrix(self) -> tuple[float, float, float, float, float, float]:
        """The view-to-scene transform as ``(m11, m21, m31, m12, m22, m32)``."""
        # the view box applies a new range to its transform lazily (at the next paint): apply
        # it now, or a layout run on a range change places labels for the previous range
        self.vb.updateMatrix()
        tr = self.vb.childGroup.sceneTransform()
        return (tr.m11(), tr.m21(), tr.m31(), tr.m12(), tr.m22(), tr.m32())

    def _obstacle_parts(self) -> list[tuple]:
        """:meth:`_obstacles` in parts ``(key, xs, ys)``: a part with a key (not None) is the
        same points for as long as the key is (subclasses split off what edits leave)."""
        return [(None, *self._obstacles())]

    def _to_scene(self, x, y, m: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Scene coordinates of view points (``m``: a :meth:`_scene_matrix` already taken)."""
        m11, m21, m31, m12, m22, m32 = m or self._scene_matrix()
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (m11 * x + m21 * y + m31, m12 * x + m22 * y + m32)

    #: on screen, the sweep plot's: the legend's corner is worked out two event-loop
    #: passes after it is asked for (after the plot's paint), not in the edit's pass; see
    #: :meth:`defer_legend_placement`
    _legend_later: tuple[QtCore.QTimer, QtCore.QTimer] | None = None

    def defer_legend_placement(self) -> None:
        """Choose the legend's corner after the plot has painted, not before (on screen).

        Choosing costs about a millisecond on a busy sweep (the edited op's curves are
        sampled and counted in each corner) and, with the on-screen hold against near
        ties, rarely changes the corner: an edit's pixels come first, and a legend that
        must change corners does so one frame later.  Before the paint the legend is only
        placed in the corner it is in (lifted clear of the labels along the x axis as
        they now are, which is cheap).  Two zero-interval timers, as the window's panels
        use: the first fires in the pass that paints the plot, the second in the pass
        after.  :meth:`flush_legend` chooses now."""
        if self._legend_later is None:
            hop, later = QtCore.QTimer(self), QtCore.QTimer(self)
            for t in (hop, later):
                t.setSingleShot(True)
                t.setInterval(0)
            hop.timeout.connect(later.start)
            later.timeout.connect(self._place_legend_now)
            self._legend_later = (hop, later)

    def legend_pending(self) -> bool:
        """Whether the legend's corner is still to be chosen (defer_legend_placement)."""
        t = self._legend_later
        return t is not None and (t[0].isActive() or t[1].isActive())

    def flush_legend(self) -> None:
        """Place the legend now if its placement is still to come (tests, exports)."""
        if self.legend_pending():
            self._legend_later[0].stop()
            self._place_legend_now()

    def _place_legend(self) -> None:
        t = self._legend_later
        if t is None:
            self._place_legend_now()
            return
        # now, in the corner it is in, lifted clear of the labels as they now are (cheap);
        # which corner, once the plot has painted
        self._place_legend_now(self.legend_corner)
        if not self.legend_pending():
            t[0].start()

    def _place_legend_now(self, corner: str | None = None) -> None:
        """The legend in the corner where it covers least (``corner``: in that one)."""
        if self._legend_later is not None and corner is None:
            self._legend_later[1].stop()
            if self.getPlotItem() is None:  # (a timer firing as the plot closes)
                return
        lg = self.legend
        if not lg.isVisible():
            return
        s = self.style
        off = s.legend_padding + 2
        pref = s.legend_position
        corners = [pref] if pref in LEGEND_CORNERS else [corner] if corner in LEGEND_CORNERS \
            else list(LEGEND_CORNERS)
        if len(corners) == 1 and "top" in corners[0]:
            # one top corner: the legend is not lifted, so it fits, and its offset reads
            # neither the view's rectangle nor its own size (what is skipped here, ~10 us,
            # works out the same offset: the sweep places its legend so before each paint)
            self._legend_in(corners[0], off, 0.0)
            return
        vr = self.vb.sceneBoundingRect()
        w, h = lg.width(), lg.height()
        rects, lifts, fits = [], [], []
        cache = self._clearance
        room = max(vr.height() - 2 * off - h, 0.0)  # the most a bottom corner can lift it
        for c in corners:
            left = vr.left() + off if "left" in c else vr.right() - off - w
            # in a bottom corner, sit above the labels along the x axis (ridges, B*)
            lift = 0.0
            if "bottom" in c:
                ck = (left, left + w, vr.bottom())
                lift = cache.get(ck) if cache is not None else None
                if lift is None:
                    lift = self._bottom_clearance(left, left + w)
                    if cache is not None:
                        cache[ck] = lift
            # a legend lifted past the top of the view would lose its first entries: such a
            # corner is a last resort, and then the legend stops at the top
            fits.append(lift <= room)
            lift = min(lift, room)
            top = vr.top() + off if "top" in c else vr.bottom() - off - h - lift
            rects.append((left, top, w, h))
            lifts.append(lift)
        if len(corners) == 1 and not fits[0] and corner is not None \
                and pref not in LEGEND_CORNERS:
            self._place_legend_now()  # (its corner no longer fits: choose one now)
            return
        if len(corners) > 1 and vr.width() > 0:
            # points covered per corner, summed over the obstacles' parts; a part with a key
            # (one that stays while the view does) is counted once per key and corners
            bounds = _rect_bounds(rects, 4)
            counts = np.zeros(len(rects), dtype=np.int64)
            memo, self._covered_memo = self._covered_memo, {}
            for key, xs, ys in self._obstacle_parts():
                if key is None:
                    counts += _covered(bounds, xs, ys)
                    continue
                ck = (key, tuple(rects))
                got = memo.get(ck)
                if got is None:
                    got = _covered(bounds, xs, ys)
                self._covered_memo[ck] = got
                counts += got
            counts[~np.array(fits)] += 1 << 40  # (a corner the legend does not fit: last)
            best = int(np.argmin(counts))  # (ties: the first, the preferred corner)
            cur = self._held_corner
            if cur in corners and corners[best] != cur and fits[corners.index(cur)]:
                # on screen, a legend that hops between two near-tied corners as the user
                # types is a distraction: it moves only to a corner that covers nothing or
                # a fifth fewer points
                c = counts[corners.index(cur)]
                if counts[best] > 0 and c - counts[best] <= 0.2 * c:
                    best = corners.index(cur)
        else:
            best = 0
        self._legend_in(corners[best], off, lifts[best], len(corners) > 1)

    def _legend_in(self, corner: str, off: float, lift: float, chosen: bool = False) -> None:
        """The legend in ``corner``, ``off`` pixels in from the view's edges and lifted by
        ``lift`` (``chosen``: among several corners)."""
        lg = self.legend
        if self.legend_corner != corner:  # (a plot's attribute is cheaper read than set)
            self.legend_corner = corner
        if self.screen_caches and self._held_corner != corner:
            self._held_corner = corner
        offset = (off if "left" in corner else -off, off if "top" in corner else -(off + lift))
        if lg.opts.get("offset") != offset:  # (once anchored, it follows resizes by itself)
            lg.setOffset(offset)
            if self._legend_later is not None and chosen:
                self._legend_moved()  # (chosen after the paint: what follows it, now)

    def _legend_moved(self) -> None:
        """The legend's corner, chosen after the plot's paint (defer_legend_placement),
        moved it: subclasses lay out again what they place clear of it."""

    def _bottom_labels(self) -> list:
        return []

    def _bottom_clearance(self, left: float, right: float) -> float:
        """Pixels to lift a bottom-corner legend so it clears the x-axis labels below it:
        whole pixels (rounded up), so that as it follows the labels it moves by whole
        pixels: its texts and frame keep their places within the pixels and do not
        shimmer from one edit to the next."""
        bottom = self.vb.sceneBoundingRect().bottom()
        lift = 0.0
        for lab in self._bottom_labels():
            if lab.isVisible():
                r = lab.sceneBoundingRect()
                if r.right() >= left and r.left() <= right:
                    lift = max(lift, bottom - r.top() - self.style.legend_padding + 2)
        return float(np.ceil(lift))

    @staticmethod
    def _label_samples(items) -> tuple[list, list]:
        """Scene sample points over text labels (dense: covering text is worse than a line)."""
        rects = [r.getRect() for r in (item.sceneBoundingRect() for item in items
                                       if item.isVisible())]
        if not rects:
            return [], []
        left, top, w, h = (np.array(v)[:, None] for v in zip(*rects))
        # _rect_samples of each, in one pass (the same sums, in the same order)
        return [(left + _GRID_FX * w).ravel()], [(top + _GRID_FY * h).ravel()]

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

    def _spot_tip(self, items, scene_pos) -> str | None:
        """The tooltip of the first spot of ``items`` (scatters) at a scene position."""
        for item in items:
            hits = self._scatter_hit(item, scene_pos)
            if hits:
                return hits[0].data()
        return None

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
            item = _Label("", anchor=anchor)
            item.textItem.document().setDocumentMargin(1.0)
            item.updateTextPos()  # (the margin changes the text's rectangle)
            item.setZValue(z)
            self.addItem(item, ignoreBounds=True)
            self._labels.append(item)
        return item

    def _label_layer(self, z: float) -> LabelLayer:
        """The layer drawing this plot's labels of z value ``z`` (made the first time)."""
        layer = self.label_layers.get(z)
        if layer is None:
            layer = self.label_layers[z] = LabelLayer(self.vb, z)
        return layer

    def _new_layer_label(self, z: float, anchor=(0.5, 1.0), pool=None) -> LayerLabel:
        """A label drawn by the layer of z value ``z`` (:mod:`~roofgui.plotting.label_layer`: not
        an item of its own), with the margin the label items have; one dropped earlier
        under ``pool``, if any.  For labels an edit moves or retitles: as items they each
        cost Qt's and pyqtgraph's per-item work on every update and paint."""
        lab = self._pooled(pool)
        if lab is None:
            lab = self._label_layer(z).new_label(anchor=anchor)
            lab.textItem.document().setDocumentMargin(1.0)
            lab.updateTextPos()  # (the margin changes the text's rectangle)
        return lab

    # -- screen caches ------------------------------------------------------------
    #: True for the window's plots (:meth:`use_screen_caches`); an export's draws all afresh
    screen_caches = False

    def use_screen_caches(self) -> None:
        """For the window's plots, never an export's: Qt keeps the axes as pictures at the
        screen's pixel ratio (Qt's device-coordinate cache), and the legend with all its
        entries is drawn from one picture (:class:`~roofgui.plotting.picture.Picture`), so a
        repaint — an edit's, or the readout's under the mouse — blits them instead of
        laying their texts out again.  A picture is drawn again when its items change.
        (At pixel ratios 1 and 2 the axes' pictures are pixel for pixel what they draw; at
        fractional ratios such as 1.25 a tick label may sit a fraction of a device pixel
        off.)"""
        if self.screen_caches:
            return
        self.screen_caches = True
        self._sync_opaque()
        pi = self.getPlotItem()
        for name in ("left", "bottom"):
            ax = pi.getAxis(name)
            _cache(ax)
            _cache(ax.label)
        # the legend and its entries drawn from one picture (every repaint of the lines
        # repaints the legend over them); it follows the legend's moves by itself
        self.legend_picture = Picture(self.legend)
        # Qt moves a cached picture by whole pixels: when the layout moves the axes by a
        # fraction of one, their pictures are drawn again where they now are
        self.vb.geometryChanged.connect(self._redraw_cached)

    def _cached_items(self) -> list:
        pi = self.getPlotItem()
        axes = [pi.getAxis(name) for name in ("left", "bottom")]
        return axes + [ax.label for ax in axes]

    def _redraw_cached(self, *_args) -> None:
        for item in self._cached_items():
            item.update()

    def _sync_label_transforms(self) -> None:
        """Before a paint: each label's transform as its parent's now asks (what every
        pyqtgraph TextItem does in its own slot), for the labels whose last one differs."""
        group = self.vb.childGroup  # (a label's parent: addItem)
        pt = group.sceneTransform()
        for lab in self._labels:
            last = lab._lastTransform
            if last is None or last != pt or lab.parentItem() is not group:
                lab.updateTransform()  # (it checks visibility and its parent itself)

    def _set_curve(self, key, item: _Curve, x, y) -> None:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if self._changed(("data",) + key, (x.tobytes(), y.tobytes())):
            item.setData(x, y)

    def _set_curves(self, batch: list[tuple]) -> None:
        """:meth:`_set_curve` for several lines, ``(key, item, x, y)`` each: those whose data
        changed are set together (:meth:`_Curve.set_many`)."""
        items, xs, ys = [], [], []
        sigs = self._sig  # (_changed's, read once: a plot's attributes are slow to reach,
        # ~0.2-0.4 us each through PlotWidget.__getattr__'s hook)
        for key, item, x, y in batch:
            x = np.asarray(x, dtype=np.float64)
            y = np.asarray(y, dtype=np.float64)
            key = ("data",) + key
            sig = (x.tobytes(), y.tobytes())
            if sigs.get(key) != sig:
                sigs[key] = sig
                items.append(item)
                xs.append(x)
                ys.append(y)
        if items:
            _Curve.set_many(items, xs, ys)

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
