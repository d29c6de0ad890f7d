"""Many plot labels drawn by one item: the sweep's critical labels (``B* = 241``).

A :class:`~roofgui.plotting.label._Label` is an item of the scene: Qt indexes it, asks its
rectangle several times a paint, calls its ``paint`` through Python, and every move or
new text runs ``prepareGeometryChange`` and pyqtgraph's transform bookkeeping.  The sweep
moves and retitles eight of its sixteen labels on every keystroke; as items they cost
about as much as everything else the plot updates (measured: an edit of the busy sweep
took ~2 ms less with its labels hidden, half in the update and half in the paint).

A :class:`LabelLayer` is one item of the view box holding any number of
:class:`LayerLabel` objects.  A layer label answers what the plots ask of a label (text,
colour, font, halo, place, anchor, visibility, scene rectangle) and is laid out by the
same :class:`~roofgui.plotting.label.LabelText`; the layer draws each where its item would
have drawn it — its text upright and unscaled at its anchor point, after its halo — so
the pixels are the item's (tested against ``_Label`` and pyqtgraph's ``TextItem``).
Upright labels only: no angle.

A change of any label repaints the layer's whole rectangle (the view).  That suits the
sweep, whose edit repaints the whole view anyway (its curves span it).  The roofline's
labels stay items: an edit there repaints a small region around the moved point and its
label, and a layer would make it repaint everything (measured: its paint 2.3 -> 4.9 ms).
"""

from __future__ import annotations

import pyqtgraph as pg
from pyqtgraph.Point import Point
from PySide6 import QtCore, QtGui

from roofgui.plotting.label import LabelText
from roofgui.plotting.plot_items import _LayerMark, _MarkLayer

__all__ = ["LabelLayer", "LayerLabel"]

_AA = QtGui.QPainter.RenderHint.Antialiasing
_NO_PEN = QtCore.Qt.PenStyle.NoPen
_NO_BRUSH = QtCore.Qt.BrushStyle.NoBrush


class LayerLabel(_LayerMark):
    """One label of a :class:`LabelLayer`: plain text at a point of the view (data
    coordinates), placed by its anchor (``(0.5, 1.0)``: centred above the point), with a
    halo (``fill``) and a frame (``border``) as pyqtgraph's ``TextItem`` has.

    Not an item of the scene: its layer draws it.  The names are a ``TextItem``'s, so that
    the plots place and style it as they do their label items.
    """

    def __init__(self, layer: "LabelLayer", anchor=(0.5, 1.0)) -> None:
        self._layer = layer
        self._x = self._y = 0.0
        self._visible = True
        self._fill = pg.mkBrush(None)
        self._border = pg.mkPen(None)
        self._boxed = False  # a halo or a frame to draw (read at every paint)
        self._rect = QtCore.QRectF()
        self._numbers: tuple[float, float, float, float] | None = None  # _rect's
        self._poly = QtGui.QPolygonF()  # the rectangle as the halo's polygon
        self.textItem = LabelText(self)
        a = Point(anchor)
        #: the anchor as two floats (read on every placement; ``anchor`` gives a Point)
        self._ax, self._ay = a.x(), a.y()
        self.color = pg.mkColor(200, 200, 200)
        self.textItem.setDefaultTextColor(self.color)
        self.updateTextPos()

    # -- what LabelText asks of its owner -------------------------------------------------
    def update(self) -> None:
        """Something drawn changed: the layer repaints (a shown label only)."""
        if self._visible:
            self._layer.update()

    # -- text and look ------------------------------------------------------------------
    def setText(self, text: str, color=None) -> None:  # noqa: N802 (TextItem's name)
        if color is not None:
            self.setColor(color)
        self.setPlainText(text)

    def setPlainText(self, text: str) -> None:  # noqa: N802
        """New text, laid out and placed, and one repaint (the same text changes nothing)."""
        if self.textItem.take_text(text):
            self._place_text()
            self.update()

    def toPlainText(self) -> str:  # noqa: N802
        return self.textItem.toPlainText()

    def setColor(self, color) -> None:  # noqa: N802
        self.color = pg.mkColor(color)
        self.textItem.setDefaultTextColor(self.color)

    def setFont(self, font: QtGui.QFont) -> None:  # noqa: N802
        self.textItem.setFont(font)
        self.updateTextPos()

    @property
    def fill(self) -> QtGui.QBrush:
        """The halo's brush (``TextItem.fill``)."""
        return self._fill

    @fill.setter
    def fill(self, brush) -> None:
        self._fill = pg.mkBrush(brush)
        self._boxed = self._box()
        self.update()

    @property
    def border(self) -> QtGui.QPen:
        """The frame's pen (``TextItem.border``)."""
        return self._border

    @border.setter
    def border(self, pen) -> None:
        self._border = pg.mkPen(pen)
        self._boxed = self._box()
        self.update()

    def _box(self) -> bool:
        return self._border.style() != _NO_PEN or self._fill.style() != _NO_BRUSH

    # -- place --------------------------------------------------------------------------
    @property
    def anchor(self) -> Point:
        """Where the label's point is in its text's rectangle (``TextItem.anchor``)."""
        return Point(self._ax, self._ay)

    @anchor.setter
    def anchor(self, anchor) -> None:
        self.setAnchor(anchor)

    def setAnchor(self, anchor) -> None:  # noqa: N802
        a = Point(anchor)
        self._ax, self._ay = a.x(), a.y()
        self.updateTextPos()

    def place(self, x: float, y: float, ax: float, ay: float) -> None:
        """``setPos(x, y)`` and ``setAnchor((ax, ay))``, each only if it changes, and one
        repaint if either does: what a plot's ``_set_pos`` and ``_set_anchor`` do, in
        Python floats (through the Qt points they read, ~4 us a label; the sweep places
        its sixteen critical labels on every edit)."""
        x, y, ax, ay = float(x), float(y), float(ax), float(ay)
        moved = x != self._x or y != self._y
        if moved:
            self._x, self._y = x, y
        if ax != self._ax or ay != self._ay:
            self._ax, self._ay = ax, ay
            moved = self._place_text() or moved
        if moved:
            self.update()

    def setPos(self, x, y=None) -> None:  # noqa: N802
        if y is None:
            x, y = x.x(), x.y()
        x, y = float(x), float(y)
        if (x, y) != (self._x, self._y):
            self._x, self._y = x, y
            self.update()

    def pos(self) -> QtCore.QPointF:
        return QtCore.QPointF(self._x, self._y)

    def updateTextPos(self) -> None:  # noqa: N802 (TextItem's name)
        """The text's offset for the anchor, as ``_Label.updateTextPos`` works it out: the
        text's size times the anchor, in pixels from the label's point."""
        if self._place_text():
            self.update()

    def _place_text(self) -> bool:
        """:meth:`updateTextPos` without the repaint: True when the text moved in the label
        (the caller repaints).  The text's size is its layout's (the numbers its
        ``boundingRect`` holds), and the rectangle and the halo's polygon are made anew
        only when they change."""
        t = self.textItem
        t._laid_out()
        w, h = t._size
        x, y = -(w * self._ax), -(h * self._ay)
        moved = x != t._x or y != t._y  # (LabelText.setPos, without its repaint)
        if moved:
            t._x, t._y = x, y
        box = (x, y, w, h)
        if box != self._numbers:
            self._numbers = box
            self._rect = QtCore.QRectF(x, y, w, h)
            self._poly = QtGui.QPolygonF(self._rect)
        return moved

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        """The text's rectangle in pixels about the label's point."""
        return QtCore.QRectF(self._rect)

    def sceneBoundingRect(self) -> QtCore.QRectF:  # noqa: N802
        """The text's rectangle in the scene (pixels of the view)."""
        p = self._layer.mapToScene(QtCore.QPointF(self._x, self._y))
        return self._rect.translated(p)

    # -- drawing ------------------------------------------------------------------------
    def draw(self, p: QtGui.QPainter, aa: bool | None = None) -> None:
        """Halo, frame and text, the painter at the label's point (pixels, upright): what
        ``_Label.paint`` draws.  ``aa``: whether the painter antialiases (when known)."""
        if self._boxed:
            if aa is None:
                aa = p.testRenderHint(_AA)
            p.setPen(self._border)
            p.setBrush(self._fill)
            if not aa:
                p.setRenderHint(_AA, True)
            p.drawPolygon(self._poly)
            if not aa:
                p.setRenderHint(_AA, False)  # (the text as the view's hints draw it)
        self.textItem.draw(p)


class LabelLayer(_MarkLayer):
    """Draws its :class:`LayerLabel` objects, in the order they were made (as items of one
    z value are stacked), each upright and unscaled at its point of the view (a
    :class:`_ViewLayer`: the view's rectangle, never under the mouse, in no auto-range;
    its labels' changes between two paints ask Qt for one repaint: :class:`_MarkLayer`).
    """

    def __init__(self, vb: pg.ViewBox, z: float) -> None:
        self.labels: list[LayerLabel] = []
        super().__init__(vb, z)

    def new_label(self, anchor=(0.5, 1.0)) -> LayerLabel:
        lab = LayerLabel(self, anchor)
        self.labels.append(lab)
        self.update()
        return lab

    def paint_marks(self, p, opt, widget):
        tr = p.transform()
        if not tr.isAffine():  # (never in a plot: a label's point alone would be wrong)
            return
        m11, m12, m21, m22, dx, dy = tr.m11(), tr.m12(), tr.m21(), tr.m22(), tr.dx(), tr.dy()
        aa = p.testRenderHint(_AA)  # (each label leaves it as it found it)
        at = QtGui.QTransform.fromTranslate
        for lab in self.labels:
            if not lab._visible:
                continue
            x, y = lab._x, lab._y
            p.setTransform(at(m11 * x + m21 * y + dx, m12 * x + m22 * y + dy))
            lab.draw(p, aa)
        p.setTransform(tr)
