"""The pieces the plots are built of: pens, fonts and colours from a style, the
log-reading axis, and the items (a fast few-spot scatter, a bare line, a point's
view, a legend sample).  Qt and pyqtgraph only; the geometry comes from
:mod:`roofgui.presentation.plotdata`.
"""

from __future__ import annotations

import logging
import math
import operator

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from pyqtgraph.Qt import OpenGLHelpers as _GL
from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.presentation import plotdata as pd
from roofgui.presentation.style import PlotStyle

_GLWidget = _GL.GraphicsViewGLWidget  # (lines on an OpenGL view: pyqtgraph's own paint)

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


#: pens and brushes handed to scatters, one object per look (see :func:`_spot_pen`)
_SHARED: dict[tuple, QtGui.QPen | QtGui.QBrush] = {}
_SHARED_MAX = 512


def _shared(key: tuple, make):
    obj = _SHARED.get(key)
    if obj is None:
        if len(_SHARED) >= _SHARED_MAX:  # (a bound, never reached by a palette's worth of looks)
            _SHARED.clear()
        obj = _SHARED[key] = make()
    return obj


def _spot_pen(colour: str, width: float, dash: str = "solid",
              alpha: float | None = None) -> QtGui.QPen:
    """:func:`_pen`, but the same object for the same look.  pyqtgraph's symbol atlas keys
    a rendered symbol on the *identity* of its pen and brush: fresh ones on every edit make
    each ``setData`` re-render its symbols and grow the atlas.  Never modify the result."""
    return _shared(("pen", colour, float(width), dash, alpha), lambda: _pen(colour, width, dash, alpha))


def _spot_brush(colour: str, alpha: float | None = None) -> QtGui.QBrush:
    """A brush of one colour, the same object for the same colour (as :func:`_spot_pen`)."""
    return _shared(("brush", colour, alpha), lambda: QtGui.QBrush(_qcolor(colour, alpha)))


def _font(style: PlotStyle, pt: float, bold: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    if style.font_family and style.font_family != "sans-serif":
        f.setFamily(style.font_family)
    f.setStyleHint(QtGui.QFont.StyleHint.SansSerif)
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


def _face_colour(style: PlotStyle) -> str:
    """The fill of hollow markers: the background's colour (white on a transparent one)."""
    return style.background if style.background != "transparent" else "#FFFFFF"


def _face(style: PlotStyle) -> QtGui.QColor:
    """:func:`_face_colour` as a QColor."""
    return _qcolor(_face_colour(style))


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


def _set_pos(item: QtWidgets.QGraphicsItem, x: float, y: float) -> None:
    """``setPos`` only when the place changes (each call runs pyqtgraph's Python
    ``itemChange`` and marks the item's bounds stale, even for the same place)."""
    p = item.pos()
    if p.x() != x or p.y() != y:
        item.setPos(x, y)


def _set_anchor(item: pg.TextItem, anchor) -> None:
    """``setAnchor`` only when it changes (pyqtgraph re-lays the text out each call)."""
    if (item.anchor.x(), item.anchor.y()) != (float(anchor[0]), float(anchor[1])):
        item.setAnchor(anchor)


class _Scatter(pg.ScatterPlotItem):
    """ScatterPlotItem whose bounding rectangle is remembered until the data, the
    symbol sizes or the view transform change (pyqtgraph recomputes it, with two
    pixel-vector mappings, several times per paint; Qt asks every item's on every
    paint, however small the region repainted)."""

    _br = None
    #: pyqtgraph's ``pixelVectors()`` (a view pixel's vectors in the item: the device
    #: transform mapped and inverted in Python, ~40 us), kept until the view's transform
    #: changes: moved spots (an edit's) need a new rectangle, not a new pixel size
    _px = None

    def boundingRect(self):  # noqa: N802
        if self._br is None:
            self._br = super().boundingRect()
        return QtCore.QRectF(self._br)

    def pixelVectors(self, direction=None):  # noqa: N802 (pyqtgraph's name)
        if direction is not None:
            return super().pixelVectors(direction)
        if self._px is None:
            vx, vy = super().pixelVectors()
            if vx is None or vy is None:  # (no view yet: not kept)
                return vx, vy
            self._px = (vx, vy)
        return pg.Point(self._px[0]), pg.Point(self._px[1])  # (copies, as pyqtgraph's)

    def viewTransformChanged(self):  # noqa: N802
        self._br = None
        self._px = None
        super().viewTransformChanged()

    def _updateMaxSpotSizes(self, **kwargs):  # noqa: N802 (every restyle and new data)
        super()._updateMaxSpotSizes(**kwargs)
        self._br = None

    def setData(self, *args, **kwargs):  # noqa: N802
        self._look = None
        super().setData(*args, **kwargs)
        self._br = None  # (after: Qt may ask for it while the new data goes in)

    _look = None  # the look set_spots last gave: (symbols, pen(s), brush(es), size)

    # a look set any other way: set_spots no longer knows the spots' look
    def setPen(self, *args, **kwargs):  # noqa: N802
        self._look = None
        super().setPen(*args, **kwargs)

    def setBrush(self, *args, **kwargs):  # noqa: N802
        self._look = None
        super().setBrush(*args, **kwargs)

    def setSymbol(self, *args, **kwargs):  # noqa: N802
        self._look = None
        super().setSymbol(*args, **kwargs)

    def setSize(self, *args, **kwargs):  # noqa: N802
        self._look = None
        super().setSize(*args, **kwargs)

    def set_spots(self, x: list, y: list, data: list, symbol: list, pen, brush,
                  size: float) -> None:
        """``setData`` with one symbol per spot and a pen and a brush each (or one for all).

        When the spots keep their number, pens, brushes (the same objects: shared
        ones, see ``_spot_pen``) and size, only their positions, data and any symbol
        that changed are written: what ``setData`` would leave, without its new record
        array and restyling (a new symbol's look is in the atlas already, or rendered).
        """
        look = (tuple(symbol), tuple(pen) if isinstance(pen, list) else pen,
                tuple(brush) if isinstance(brush, list) else brush, size)
        old = self._look
        if (old is not None and len(self.data) == len(x) and old[3] == size
                and all(_same(a, b) for a, b in zip(old[1:3], look[1:3]))):
            self.prepareGeometryChange()  # (Qt's order: before the bounding rect changes)
            d = self.data
            d["x"] = x
            d["y"] = y
            d["data"] = data
            d["item"] = None  # (pyqtgraph's SpotItem views, as setData leaves them)
            if old[0] != look[0]:  # (pyqtgraph's setSymbol with a list, as setData sets it)
                d["symbol"] = symbol
                d["sourceRect"] = 0
                self.updateSpots(d)
                self._look = look
            # (bounds, _br and invalidate's picture: written to the item's __dict__ at once,
            # not set one by one through the Qt object, ~0.5 us apiece; the bounds as
            # pyqtgraph's dataBounds works them out, not left for it: its nanmin and nanmax,
            # ~30 us, ran in Qt's pass over the changed items before the paint)
            pad = self._maxSpotWidth * 0.7072
            self.__dict__.update(bounds=[_nan_span(d["x"].tolist(), pad),
                                         _nan_span(d["y"].tolist(), pad)],
                                 _br=None, _xy_rev=self._xy_rev + 1)
            self.informViewBoundsChanged()
            self.__dict__["picture"] = None  # (invalidate)
            self.update()
            if _heard(self, "sigPlotChanged(PyObject)"):
                self.sigPlotChanged.emit(self)
            return
        self.setData(x=x, y=y, data=data, symbol=symbol, pen=pen, brush=brush, size=size)
        self._look = look

    _blit_data = None
    _blit_key = None
    _blit_list: list = []
    #: counts set_spots' moves of the spots in place (the same record array, new x and y)
    _xy_rev = 0

    def _blits(self, widget) -> list | None:
        """Per spot ``(x, y, shown, w, h, source rect)`` for blitting from the atlas, as Python
        objects kept until the spots, their atlas places or the pixel ratio change (reading
        numpy records per spot and paint cost ~20 us a spot); None when pyqtgraph's own
        path must run (a symbol to render first).  The spots' places are known unchanged
        by their record array (setData makes a new one) and set_spots' count of moves."""
        d = self.data
        atlas = self.fragmentAtlas
        dpr = widget.devicePixelRatioF() if widget is not None else atlas.devicePixelRatio()
        src = d["sourceRect"]
        key = (dpr, atlas.devicePixelRatio(), src.tobytes(), d["visible"].tobytes(),
               self._xy_rev)
        if self._blit_data is d and self._blit_key == key:
            return self._blit_list
        if dpr != atlas.devicePixelRatio() or not np.all(src["w"] > 0):
            return None
        self._blit_list = [(x, y, bool(v), sw / dpr, sh / dpr, QtCore.QRectF(sx, sy, sw, sh))
                           for x, y, v, (sx, sy, sw, sh) in zip(d["x"].tolist(), d["y"].tolist(),
                                                               d["visible"].tolist(),
                                                               src.tolist())]
        self._blit_data, self._blit_key = d, key
        return self._blit_list

    def paint(self, p, option, widget=None):
        """A few spots (up to 64: an op's points, its link twins, a chip's ridges, a sweep's
        critical markers): draw them straight away.

        pyqtgraph's general path (view culling, coordinate arrays, fragment
        lists) costs ~0.3 ms of Python per item and paint, for every point a
        repaint touches.  This draws the same: on screen each symbol blitted
        from pyqtgraph's atlas, when exporting each symbol's path.
        """
        d = self.data
        if not 0 < len(d) <= 64 or not self.opts["pxMode"] \
                or self.opts.get("compositionMode") is not None:
            super().paint(p, option, widget)
            return
        tr = p.transform()
        if self._exportOpts is False and self.opts["useCache"]:
            # on screen: the symbols pyqtgraph pre-rendered in its atlas, as its own path does
            blits = self._blits(widget)
            if blits is None:
                super().paint(p, option, widget)  # (it re-renders the atlas when it must)
                return
            # a repaint's clip is mostly small: a spot clear of it (by 2 px) would draw
            # nothing in it, so it is not drawn (~3 us a spot)
            if p.hasClipping():
                c = tr.mapRect(p.clipBoundingRect())
                left, top, right, bottom = c.left() - 2, c.top() - 2, c.right() + 2, c.bottom() + 2
            else:
                left = top = -math.inf
                right = bottom = math.inf
            p.resetTransform()
            pix = self.fragmentAtlas.pixmap
            for x, y, shown, w, h, src in blits:
                qx, qy = tr.map(x, y)
                if shown and abs(qx) < 2 ** 30 and abs(qy) < 2 ** 30 \
                        and qx + w / 2 >= left and qx - w / 2 <= right \
                        and qy + h / 2 >= top and qy - h / 2 <= bottom:  # (NaN: no)
                    p.drawPixmap(QtCore.QRectF(qx - w / 2, qy - h / 2, w, h), pix, src)
            return
        pts = [tr.map(QtCore.QPointF(float(x), float(y))) for x, y in zip(d["x"], d["y"])]
        shown = [bool(v) and abs(q.x()) < 2 ** 30 and abs(q.y()) < 2 ** 30  # (NaN too)
                 for v, q in zip(d["visible"], pts)]
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


def _nan_span(values: list[float], pad: float) -> tuple[float, float]:
    """``(nanmin - pad, nanmax + pad)`` of ``values`` (Python floats), as pyqtgraph's
    ``ScatterPlotItem.dataBounds`` works a scatter's bounds out with numpy; NaN twice when
    every value is NaN (numpy's answer, less its warning)."""
    known = [v for v in values if v == v]  # (NaN left out, as nanmin and nanmax leave it)
    if not known:
        return math.nan, math.nan
    return min(known) - pad, max(known) + pad


def _same(a, b) -> bool:
    """The same object, or tuples of the same objects."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(map(operator.is_, a, b))  # (no generator frames)
    return a is b


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


_log = logging.getLogger(__name__)
_IDENTITY = QtGui.QTransform()
_wrap = pg.Qt.compat.wrapinstance  # (an address as a C++ object: the head of an array)
_LINEF_BYTES = 32  # a QLineF: four doubles
#: whether stroking a line as segments has failed once (logged once: see _try_segments)
_SEGMENTS_FAILED = False
#: a line is stroked as segments in pixels only if its segments average at least this long
#: (:meth:`_Curve._stroke_segments`)
_MIN_SEGMENT_PX = 12.0


def _flat_twin(pen: QtGui.QPen) -> QtGui.QPen | None:
    """For an opaque, solid, plain-coloured pen wider than a pixel: the same pen with flat
    caps, to stroke a line as segments in pixels (:meth:`_Curve._stroke_segments`); None
    for any other pen (a dash pattern runs along the whole line, a translucent colour
    would show where segments overlap, and a pen of one pixel has Qt's fast stroker
    already)."""
    if (pen.style() != QtCore.Qt.PenStyle.SolidLine or not pen.isSolid()
            or pen.color().alpha() != 255 or pen.widthF() <= 1.0):
        return None
    flat = QtGui.QPen(pen)
    flat.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return flat


#: (the item's class, a signal's signature) -> the signal's QMetaMethod (see _heard)
_SIGNALS: dict[tuple[type, str], QtCore.QMetaMethod] = {}


def _signal(obj: QtCore.QObject, signature: str) -> QtCore.QMetaMethod | None:
    """``obj``'s signal ``signature`` (None: it has no such signal)."""
    key = (type(obj), signature)
    method = _SIGNALS.get(key)
    if method is None:
        mo = obj.metaObject()
        method = _SIGNALS[key] = mo.method(mo.indexOfSignal(signature))
    return method if method.isValid() else None


def _heard(obj: QtCore.QObject, signature: str) -> bool:
    """Whether any slot is connected to ``obj``'s signal ``signature`` (a Python callable
    too: PySide connects it through Qt; True if there is no such signal, so that the
    caller emits as it would have).  An emit that nobody hears still costs ~2 us of
    PySide's argument handling; asking Qt is a third of that.  Nothing in the plots
    listens to a line's or a scatter's ``sigPlotChanged``, which pyqtgraph emits on every
    ``setData``."""
    method = _signal(obj, signature)
    return method is None or obj.isSignalConnected(method)


class _Curve(pg.PlotCurveItem):
    """A plot line.  A bare PlotCurveItem: a PlotDataItem wraps one (with a scatter for
    symbols these lines never have) and costs ~8× as much per ``setData``.  ``curve``
    is the item itself, for code written against PlotDataItem."""

    #: the :class:`_Canvas` that draws this line (None: it paints itself), the group of
    #: lines it belongs to there (an op) and a count of its changes since it joined
    _canvas: "_Canvas | None" = None
    _group: object = None
    _rev = 0

    @property
    def curve(self) -> "_Curve":
        return self

    def update(self, *args):
        """A change of data or look: on a canvas, tell the canvas (which repaints); else
        repaint as usual.  (pyqtgraph asks for a repaint after every such change.)"""
        canvas = self._canvas
        if canvas is None:
            super().update(*args)
        else:
            self._rev += 1
            canvas.member_changed(self)

    def boundingRect(self):  # noqa: N802 (Qt's name)
        """On a canvas, the canvas's rectangle (the view's): the line paints nothing itself,
        so Qt needs its rectangle for its index alone, and pyqtgraph's (the data's bounds
        plus the pen's width in pixels, ~30 us of Python) would be worked out again after
        every edit.  Hit tests use the line's own shape (``mouseShape``), and the view's
        range its data's bounds (``dataBounds``)."""
        canvas = self._canvas
        if canvas is not None:
            return canvas.boundingRect()
        return super().boundingRect()

    def itemChange(self, change, value):  # noqa: N802 (Qt's name)
        ret = super().itemChange(change, value)
        if (change == self.GraphicsItemChange.ItemVisibleHasChanged
                and self._canvas is not None):
            self._rev += 1
            self._canvas.member_changed(self)
        return ret

    def setData(self, *args, **kargs):  # noqa: N802 (pyqtgraph's name)
        """``setData(x, y)`` with two same-shape 1-D float arrays (what the plots pass) goes
        straight to what pyqtgraph's ``updateData`` does for it, without its argument
        handling and profiler (~half its cost, for every curve an edit moves); anything
        else goes to pyqtgraph."""
        if len(args) == 2 and not kargs and self._lean(*args):
            x, y = args
            # (known here, so that the path is built without pyqtgraph's finite check)
            _Curve._take([self], [x], [y],
                         [bool(np.isfinite(x).all() and np.isfinite(y).all())])
            return
        self._finite = False
        super().setData(*args, **kargs)

    @staticmethod
    def set_many(items: "list[_Curve]", xs: list, ys: list) -> None:
        """``item.setData(x, y)`` for each line, in order: the same data set the same way.
        When every line takes the lean path (the plots' float arrays), its finite check is
        one numpy pass for all of them (two per line, ~3 us each, were a fifth of an edit's
        eight ``setData``) and what the lines share is looked up once (:meth:`_take`)."""
        if not all(item._lean(x, y) for item, x, y in zip(items, xs, ys)):
            for item, x, y in zip(items, xs, ys):  # (in order, each its own way)
                item.setData(x, y)
            return
        if len(items) > 1 and np.isfinite(np.concatenate(list(xs) + list(ys))).all():
            finite = [True] * len(items)  # (every point of every line finite)
        else:
            finite = [bool(np.isfinite(x).all() and np.isfinite(y).all())
                      for x, y in zip(xs, ys)]
        _Curve._take(items, xs, ys, finite)

    def _lean(self, x, y) -> bool:
        """Whether ``setData(x, y)`` may take the lean path: two same-shape 1-D float arrays,
        no step mode."""
        return (type(x) is np.ndarray and type(y) is np.ndarray and not self.opts["stepMode"]
                and x.ndim == 1 and x.shape == y.shape
                and x.dtype.kind == "f" and y.dtype.kind == "f")

    @staticmethod
    def _take(items: "list[_Curve]", xs: list, ys: list, finite: list) -> None:
        """The lean path of :meth:`setData` for each line: what pyqtgraph's ``updateData``
        does with two such arrays (``finite``: whether all their points are), in order, with
        what the lines share (their view box, their class's signal) looked up once."""
        view = told = kind = signal = None
        for item, x, y, ok in zip(items, xs, ys, finite):
            # (the attributes written to the item's __dict__, one by one: each set through
            # the item goes through PySide's look-up of Qt properties, ~0.5 us apiece, eleven
            # per line; none of these names is a property or a descriptor, and _canvas and
            # _rev, read there, are the class's defaults until the item has its own)
            d = item.__dict__
            d["xData"] = x
            d["yData"] = y
            d["_finite"] = ok
            d["_boundingRect"] = None  # (invalidateBounds)
            d["_boundsCache"] = [None, None]
            canvas = d.get("_canvas")
            if canvas is None:  # (a canvas's line keeps its canvas's rectangle)
                item.prepareGeometryChange()
            vb = item.getViewBox()  # (informViewBoundsChanged, its test once per view)
            if vb is not view:
                view = vb
                told = vb is not None and hasattr(vb, "implements") and vb.implements("ViewBox")
            if told:
                vb.itemBoundsChanged(item)
            d["path"] = None
            d["fillPath"] = None
            d["_fillPathList"] = None
            d["_mouseShape"] = None
            d["_lineSegmentsRendered"] = False
            if canvas is None:
                item.update()
            else:  # (what update does on a canvas)
                d["_rev"] = d.get("_rev", 0) + 1
                canvas.member_changed(item)
            if type(item) is not kind:
                kind = type(item)
                signal = _signal(item, "sigPlotChanged(PyObject)")
            if signal is None or item.isSignalConnected(signal):
                item.sigPlotChanged.emit(item)

    #: True when the data last set through the lean ``setData`` is all finite (then its
    #: path needs no finite check); False: not known
    _finite = False

    def getPath(self):  # noqa: N802 (pyqtgraph's name)
        """The line's path, as pyqtgraph builds it (``arrayToQPath`` with the item's
        ``connect``), without its checks of data known finite (~40 us a line; an edit
        builds the path of every line it moves)."""
        if self.path is None and self._finite and not self.opts["stepMode"] \
                and self.xData is not None and len(self.xData):
            self.path = pg.functions.arrayToQPath(self.xData, self.yData,
                                                  connect=self.opts["connect"],
                                                  finiteCheck=False)
            self.fillPath = None
            self._fillPathList = None
            self._mouseShape = None
        return super().getPath()

    #: (pen, segmentedLineMode, antialias, whether pyqtgraph draws the line as separate
    #: segments, the pen's flat-capped twin when the line may be stroked as segments in
    #: pixels, else None) for the last pen asked about
    _segmented: tuple = (None, None, None, False, None)

    def paint(self, p, opt, widget):
        """A plain line (no fill, no shadow, no composition mode) as pyqtgraph draws it —
        ``drawPath`` (or ``drawLines``) with its pen and antialiasing — without the checks
        and profiler around it (~10 µs a line, and a repaint draws every line); onto
        pixels, a wide antialiased line of long segments is stroked as segments in pixels
        (:meth:`_stroke_segments`, half the cost)."""
        o = self.opts
        pen = o["pen"]
        if (self._exportOpts is not False or o["fillLevel"] is not None
                or o["shadowPen"] is not None or o["compositionMode"] is not None
                or pen is None or isinstance(widget, _GLWidget)):
            super().paint(p, opt, widget)
            return
        if self.xData is None or not len(self.xData) \
                or pen.style() == QtCore.Qt.PenStyle.NoPen:
            return
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, o["antialias"])
        seg = self._segment_choice(pen)
        if seg[3]:
            p.setPen(pen)
            p.drawLines(*self._getLineSegments())
        elif seg[4] is not None and self._try_segments(p, seg[4]):
            return
        elif self._finite and self.xData.size == 2 and o["connect"] == "all":
            # one segment (an op's connector to its link twin, say): the same stroke as its
            # path's, without building the path (~20 us of Python a line)
            p.setPen(pen)
            x, y = self.xData, self.yData
            p.drawLine(QtCore.QLineF(float(x[0]), float(y[0]), float(x[1]), float(y[1])))
        else:
            p.setPen(pen)
            p.drawPath(self.getPath())

    def _segment_choice(self, pen: QtGui.QPen) -> tuple:
        """:attr:`_segmented` for ``pen``: pyqtgraph's choice between segments and one path,
        asked again when the pen (setPen makes a new one) or an option it reads changes
        (~7 us a line), and whether the line may be drawn as antialiased segments in
        pixels (see :meth:`_stroke_segments`)."""
        o = self.opts
        seg = self._segmented
        if seg[0] is not pen or seg[1] != o["segmentedLineMode"] or seg[2] != o["antialias"]:
            seg = self._segmented = (pen, o["segmentedLineMode"], o["antialias"],
                                     self._shouldUseDrawLineSegments(pen),
                                     _flat_twin(pen) if o["antialias"] else None)
        return seg

    def _segment_pen(self, widget) -> QtGui.QPen | None:
        """The flat-capped pen :meth:`paint` would stroke this line's segments in pixels
        with (:meth:`_stroke_segments`), as far as the line alone decides (the painter's
        engine and transform, and whether the segments are long enough, aside); None when
        it would draw the line some other way.  Lets a canvas stroke several lines' segments
        from one numpy pass (:meth:`_Canvas._stroke_live`)."""
        o = self.opts
        pen = o["pen"]
        if (self._exportOpts is not False or o["fillLevel"] is not None
                or o["shadowPen"] is not None or o["compositionMode"] is not None
                or pen is None or isinstance(widget, _GLWidget) or not self._finite
                or o["connect"] != "all" or o["stepMode"]):
            return None
        x = self.xData
        if (x is None or x.size < 2 or x.dtype != np.float64 or self.yData.dtype != np.float64
                or pen.style() == QtCore.Qt.PenStyle.NoPen):
            return None
        seg = self._segment_choice(pen)
        return None if seg[3] else seg[4]

    def _try_segments(self, p: QtGui.QPainter, flat: QtGui.QPen) -> bool:
        """:meth:`_stroke_segments`, and False (the path is drawn instead) should it fail: a
        line is drawn either way.  (An exception leaving a paint has been seen to crash
        the process in PySide6 6.11, with this fast path's first version.)"""
        global _SEGMENTS_FAILED
        tr = p.worldTransform()
        try:
            return self._stroke_segments(p, flat, tr)
        except Exception:  # noqa: BLE001 - never worth the window
            p.setWorldTransform(tr)
            if not _SEGMENTS_FAILED:  # (once: a repaint draws every line)
                _SEGMENTS_FAILED = True
                _log.exception("a line could not be stroked as segments; drawing its path")
            return False

    def _stroke_segments(self, p: QtGui.QPainter, flat: QtGui.QPen,
                         tr: QtGui.QTransform) -> bool:
        """Draw the line as antialiased segments given in pixels, with ``flat`` (the pen with
        flat caps), if it can be: onto pixels (Qt's raster engine: a window, an image), in
        a view not rotated or sheared, its data finite and joined point to point.

        Qt strokes an antialiased pen wider than a pixel through its general stroker (an
        outline with round joins and caps, then filled): ~100 us for a sweep curve across
        the plot.  Segments in pixels with flat caps go to its line rasteriser instead,
        ~50 us (in data coordinates under the view's scale they do not: Qt then strokes
        them as a path).  The joins of a plot line are shallow angles; segment ends
        meeting there cover what a round join covers to within the antialiased edge
        (zoomed pictures of the sweep's knees look the same; a few dozen pixels of a
        plot differ by more than a few levels), and an opaque pen's overlap at a join is
        invisible.  Vector outputs (SVG, PDF) keep the path."""
        if not self._finite or self.opts["connect"] != "all" or self.opts["stepMode"]:
            return False
        engine = p.paintEngine()
        if engine is None or engine.type() != QtGui.QPaintEngine.Type.Raster:
            return False
        if tr.m12() or tr.m21() or tr.m13() or tr.m23():  # (rotated, sheared, projected)
            return False
        x, y = self.xData, self.yData
        n = x.size - 1
        if n < 1:
            return False
        px = x * tr.m11()
        px += tr.dx()
        py = y * tr.m22()
        py += tr.dy()
        # Where two segments meet, each antialiases its own end: the pixels at a join are
        # covered twice in part, a shade lighter than a stroked line.  A few joins in a
        # long line do not show; a dense line (joins every few pixels) would look paler
        # and beaded, so it keeps its path.
        span = abs(px[-1] - px[0]) + abs(py[-1] - py[0])
        if span < _MIN_SEGMENT_PX * n:
            return False
        segs = self._pixel_segments
        if segs is None:
            segs = self._pixel_segments = pg.Qt.internals.PrimitiveArray(QtCore.QLineF, 4)
        segs.resize(n)
        m = segs.ndarray()
        m[:, 0] = px[:-1]
        m[:, 1] = py[:-1]
        m[:, 2] = px[1:]
        m[:, 3] = py[1:]
        p.setPen(flat)
        p.setWorldTransform(_IDENTITY)
        p.drawLines(*segs.drawargs())
        p.setWorldTransform(tr)
        return True

    #: the buffer of the line's segments in pixels (_stroke_segments)
    _pixel_segments = None


class _ViewLayer(pg.GraphicsObject):
    """An item of a view box that draws many marks itself: it covers the view's rectangle
    (the view box clips what it holds to it, and a change then repaints the view box
    alone, not the axes around it), is never under the mouse (the marks it draws answer
    hit tests, where they do, through their plots) and counts in no auto-range."""

    def __init__(self, vb: pg.ViewBox, z: float) -> None:
        super().__init__()
        self._vb = vb
        self._rect = QtCore.QRectF()
        self.setZValue(z)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)
        vb.addItem(self, ignoreBounds=True)
        vb.sigRangeChanged.connect(self._view_changed)
        vb.sigResized.connect(self._view_changed)
        self._view_changed()

    def _view_changed(self, *_args) -> None:
        r = QtCore.QRectF(self._vb.viewRect())
        if r != self._rect:
            self.prepareGeometryChange()
            self._rect_changing()
            self._rect = r

    def _rect_changing(self) -> None:
        """The rectangle is about to change (subclasses: what else must say so first)."""

    def boundingRect(self):  # noqa: N802 (Qt's name)
        return QtCore.QRectF(self._rect)

    def shape(self):  # never under the mouse
        return QtGui.QPainterPath()


class _MarkLayer(_ViewLayer):
    """A :class:`_ViewLayer` whose marks (labels, guides) each ask it to repaint when they
    change: it asks Qt once, then not again until it paints.

    An edit of the sweep changes eight labels' texts and places and eight guides: ~25 asks,
    each a call into Qt (~0.5 us) that finds the layer already marked for repainting.  The
    asks between two paints are one repaint either way, and the paint draws the marks as
    they are then.  Qt paints an item it was asked to repaint unless it cannot be seen
    (hidden, its view hidden or empty), and paints it whole once it can: the layer asks
    again after its next paint.  Subclasses draw in :meth:`paint_marks`."""

    #: whether the layer has asked Qt to repaint it since it last painted (set through the
    #: item's __dict__: setting a Qt object's attribute the usual way costs what the call
    #: into Qt it saves does)
    _asked = False

    def update(self, *args) -> None:
        if args:  # (a rectangle of it: as asked)
            super().update(*args)
        elif not self._asked:
            self.__dict__["_asked"] = True
            super().update()

    def paint(self, p, opt, widget):
        self.__dict__["_asked"] = False  # (what changes from now on asks again)
        self.paint_marks(p, opt, widget)

    def paint_marks(self, p, opt, widget) -> None:
        """Draw the marks (subclasses)."""


class _LayerMark:
    """A mark drawn by a :class:`_ViewLayer` (``_layer``): shown or hidden as an item is,
    its layer repainting when that changes."""

    _layer: _ViewLayer
    _visible = True

    def setVisible(self, visible: bool) -> None:  # noqa: N802 (Qt's name)
        visible = bool(visible)
        if visible != self._visible:
            self._visible = visible
            self._layer.update()

    def isVisible(self) -> bool:  # noqa: N802
        return self._visible and self._layer.isVisible()

    def show(self) -> None:
        self.setVisible(True)

    def hide(self) -> None:
        self.setVisible(False)


class _Canvas(_ViewLayer):
    """Draws a screen plot's lines of one z value, those an edit leaves alone from a cache.

    The lines (``_Curve`` members) stay the plot's items — data, pens, bounds, hit tests,
    tooltips — but no longer paint themselves (``ItemHasNoContents``): the canvas paints
    them, in the order :meth:`set_members` gives, each with its own ``paint``.  The group
    of lines that changed last on its own (the op being edited) is drawn directly; the
    members before it and those after it are each drawn once into an image the size of
    the view at its device pixel ratio and then blitted 1:1, until one of their lines,
    the view's transform, its size or its pixel ratio changes.  So a keystroke in one
    op's fields strokes that op's lines only, and a repaint that changes no line (the
    readout under the mouse) strokes none of the others.

    Only on screen: an export draws its lines itself (vector formats stay vectors).
    """

    def __init__(self, vb: pg.ViewBox, z: float) -> None:
        self.members: list[tuple[object, _Curve]] = []  # (group, line), in drawing order
        self.hot: object = None  # the group drawn directly
        self._changed: set = set()  # groups changed since the last paint
        self._images: dict[str, tuple[tuple, QtGui.QImage]] = {}  # "below"/"above"
        #: images drawn so far (for tests: a repaint of unchanged lines draws none)
        self.renders = 0
        super().__init__(vb, z)

    def set_members(self, members: list[tuple[object, "_Curve"]]) -> None:
        """The lines to draw, in drawing order, each with its group (lines of one group
        are given together)."""
        if len(members) == len(self.members) and all(
                g == h and a is b for (g, a), (h, b) in zip(members, self.members)):
            return
        for g, item in members:
            if item._canvas is not self:
                item.prepareGeometryChange()  # (its rectangle becomes the canvas's)
                item._canvas = self
                item.setFlag(item.GraphicsItemFlag.ItemHasNoContents, True)
            item._group = g
        self.members = list(members)
        self._changed.update(g for g, _ in members)
        self.update()

    def member_changed(self, item: "_Curve") -> None:
        self._changed.add(item._group)
        self.update()

    def _rect_changing(self) -> None:
        for _g, item in self.members:  # (their rectangle is this one: see _Curve)
            if item._canvas is self:
                item.prepareGeometryChange()

    def boundingRect(self):  # noqa: N802 (Qt's name)
        return self._rect  # (the lines answer it too: no copy per call)

    def _split(self) -> tuple[list, list, list]:
        """(below, live, above): the members before the hot group, from its first line to
        its last, and after it."""
        m = self.members
        at = [i for i, (g, _) in enumerate(m) if g == self.hot]
        if not at:
            return [it for _, it in m], [], []
        return ([it for _, it in m[:at[0]]], [it for _, it in m[at[0]:at[-1] + 1]],
                [it for _, it in m[at[-1] + 1:]])

    def paint(self, p, opt, widget):
        changed, self._changed = self._changed, set()
        if len(changed) == 1:
            self.hot = next(iter(changed))
        below, live, above = self._split()
        if widget is None or isinstance(widget, _GLWidget):  # no view to cache for
            for item in below + live + above:
                if item.isVisible():
                    item.paint(p, opt, widget)
            return
        # the painter's transform in the view's own (logical) pixels: its combined transform
        # also holds the screen's pixel ratio (Qt 6), which the image's painter adds itself
        tr = p.worldTransform()
        dpr = widget.devicePixelRatioF()
        size = widget.size()
        view = (tr.m11(), tr.m12(), tr.m21(), tr.m22(), tr.dx(), tr.dy(), size.width(),
                size.height(), dpr)
        self._blit(p, "below", below, view, tr, dpr, size, opt, widget)
        self._stroke_live(p, live, tr, opt, widget)
        self._blit(p, "above", above, view, tr, dpr, size, opt, widget)

    def _stroke_live(self, p, live: list, tr: QtGui.QTransform, opt, widget) -> None:
        """The hot group's lines, in order, as each one's ``paint`` draws them; those it
        would stroke as segments in pixels (:meth:`_Curve._stroke_segments`) are mapped to
        pixels in one numpy pass for them all, each then one ``drawLines`` from a shared
        buffer.  The same segments, pens and order, so the same pixels: an edit's eight
        lines cost ~65 us of Python each through their own ``paint``, ~10 here."""
        shown = [(it, it._segment_pen(widget)) for it in live if it.isVisible()]
        batch = [(it, flat) for it, flat in shown if flat is not None]
        engine = p.paintEngine()
        if (len(batch) < 2 or _SEGMENTS_FAILED or tr.m12() or tr.m21() or tr.m13()
                or tr.m23() or engine is None
                or engine.type() != QtGui.QPaintEngine.Type.Raster):
            for it, _flat in shown:
                it.paint(p, opt, widget)
            return
        try:
            rows, first, long_enough = self._pixel_segments([it for it, _ in batch], tr)
        except Exception:  # noqa: BLE001 - each line then draws itself (see _try_segments)
            _log.exception("lines could not be mapped to pixels together; drawing each")
            for it, _flat in shown:
                it.paint(p, opt, widget)
            return
        aa = QtGui.QPainter.RenderHint.Antialiasing
        in_pixels = False
        k = 0
        for it, flat in shown:
            if flat is not None:
                at, n, ok = first[k], it.xData.size - 1, long_enough[k]
                k += 1
                if ok:
                    if not in_pixels:
                        p.setWorldTransform(_IDENTITY)
                        in_pixels = True
                    p.setRenderHint(aa, it.opts["antialias"])
                    p.setPen(flat)
                    p.drawLines(_wrap(rows + at * _LINEF_BYTES, QtCore.QLineF), n)
                    continue
            if in_pixels:
                p.setWorldTransform(tr)
                in_pixels = False
            it.paint(p, opt, widget)
        if in_pixels:
            p.setWorldTransform(tr)

    #: the segments of the hot group's lines in pixels, one QLineF (4 doubles) a row
    _rows = np.empty((0, 4))
    _rows_at = 0  # the address of _rows' first row

    def _pixel_segments(self, items: list, tr: QtGui.QTransform) -> tuple[int, list, list]:
        """The segments of ``items`` (lines with float64 data, each of 2 points or more) in
        pixels under ``tr``, written to one buffer: its address, each line's first row, and
        whether each line's segments are long enough to stroke as segments (the test of
        :meth:`_Curve._stroke_segments`, whose arithmetic this is, element by element)."""
        xs = [it.xData for it in items]
        sizes = np.array([x.size for x in xs])
        px = np.concatenate(xs)
        px *= tr.m11()
        px += tr.dx()
        py = np.concatenate([it.yData for it in items])
        py *= tr.m22()
        py += tr.dy()
        ends = sizes.cumsum()
        starts = ends - sizes
        last = ends - 1
        span = np.abs(px[last] - px[starts])
        span += np.abs(py[last] - py[starts])
        long_enough = (span >= _MIN_SEGMENT_PX * (sizes - 1)).tolist()
        joins = np.ones(px.size - 1, dtype=bool)  # (no segment from a line's end to the next)
        joins[last[:-1]] = False
        n = px.size - len(items)
        if self._rows.shape[0] < n:
            self._rows = np.empty((max(n, 256), 4))
            self._rows_at = self._rows.ctypes.data
        m = self._rows[:n]
        m[:, 0] = px[:-1][joins]
        m[:, 1] = py[:-1][joins]
        m[:, 2] = px[1:][joins]
        m[:, 3] = py[1:][joins]
        return self._rows_at, (starts - np.arange(len(items))).tolist(), long_enough

    def _blit(self, p, name, items, view, tr, dpr, size, opt, widget) -> None:
        shown = [it for it in items if it.isVisible() and it.xData is not None and len(it.xData)]
        if not shown:
            self._images.pop(name, None)
            return
        sig = view + tuple((id(it), it._rev) for it in shown)
        hit = self._images.get(name)
        if hit is None or hit[0] != sig:
            w, h = max(1, math.ceil(size.width() * dpr)), max(1, math.ceil(size.height() * dpr))
            img = hit[1] if hit is not None and (hit[1].width(), hit[1].height()) == (w, h) \
                else QtGui.QImage(w, h, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
            img.setDevicePixelRatio(dpr)
            img.fill(0)
            ip = QtGui.QPainter(img)
            ip.setWorldTransform(tr)
            for it in shown:
                it.paint(ip, opt, widget)
            ip.end()
            self._images[name] = hit = (sig, img)
            self.renders += 1
        p.save()
        p.resetTransform()
        p.drawImage(QtCore.QPointF(0.0, 0.0), hit[1])
        p.restore()


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
