"""The sweep's critical guides (the dotted line under each critical marker) drawn by one
item.

A guide is one segment: from its critical marker straight down, past the bottom of the
view.  As a line item of its own (a ``_Curve`` drawn through a canvas) each guide an edit
moves paid ``setData`` — bounds, view notices, its canvas's bookkeeping, ~30 µs — and the
guides the edit left alone were blitted from a kept picture the size of the view.  A
:class:`GuideLayer` holds every guide as a few numbers and a pen and draws them all, as
the line items drew them (``drawLine`` with the pen, antialiased, in the view's
coordinates): an edit sets eight guides' numbers and the layer repaints.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

__all__ = ["GuideLayer", "Guide"]

_AA = QtGui.QPainter.RenderHint.Antialiasing


class Guide:
    """One guide of a :class:`GuideLayer`: the segment from ``(x, y0)`` down to ``(x, y1)``
    (``y1 <= y0``) in the view's coordinates, drawn with ``pen`` while shown.  ``getData`` answers as a line
    item's does."""

    __slots__ = ("_layer", "x", "y0", "y1", "pen", "_visible")

    def __init__(self, layer: "GuideLayer") -> None:
        self._layer = layer
        self.x = self.y0 = self.y1 = 0.0
        self.pen = QtGui.QPen(QtCore.Qt.PenStyle.NoPen)
        self._visible = False

    def set(self, x: float, y0: float, y1: float) -> None:
        """The segment's place (a repaint when it moves)."""
        x, y0, y1 = float(x), float(y0), float(y1)
        if (x, y0, y1) != (self.x, self.y0, self.y1):
            self.x, self.y0, self.y1 = x, y0, y1
            if self._visible:
                self._layer.update()

    def setPen(self, pen: QtGui.QPen) -> None:  # noqa: N802 (a line item's name)
        self.pen = pen
        if self._visible:
            self._layer.update()

    def setVisible(self, visible: bool) -> None:  # noqa: N802
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

    def getData(self):  # noqa: N802 (a line item's name)
        import numpy as np
        return np.array([self.x, self.x]), np.array([self.y0, self.y1])


class GuideLayer(pg.GraphicsObject):
    """Draws its guides in the order :meth:`set_order` gives (else as made), antialiased,
    each with its pen, in the view box's coordinates.  It covers the view box's rectangle
    (the view box clips what it holds to it), is never under the mouse and counts in no
    auto-range."""

    def __init__(self, vb: pg.ViewBox, z: float) -> None:
        super().__init__()
        self._vb = vb
        self.guides: list[Guide] = []
        self._order: list[Guide] | None = None
        self._rect = QtCore.QRectF()
        self.setZValue(z)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)
        vb.addItem(self, ignoreBounds=True)
        vb.sigRangeChanged.connect(self._view_changed)
        vb.sigResized.connect(self._view_changed)
        self._view_changed()

    def new_guide(self) -> Guide:
        g = Guide(self)
        self.guides.append(g)
        return g

    def set_order(self, guides: list[Guide]) -> None:
        """The drawing order (guides not listed are not drawn)."""
        if self._order is None or len(guides) != len(self._order) or any(
                a is not b for a, b in zip(guides, self._order)):
            self._order = list(guides)
            self.update()

    def _view_changed(self, *_args) -> None:
        r = QtCore.QRectF(self._vb.viewRect())
        if r != self._rect:
            self.prepareGeometryChange()
            self._rect = r

    def boundingRect(self):  # noqa: N802 (Qt's name)
        return QtCore.QRectF(self._rect)

    def shape(self):  # never under the mouse
        return QtGui.QPainterPath()

    def paint(self, p, opt, widget):
        """Each shown guide from its top (``y0``, where its dots start) down to a few
        pixels past the bottom of the view (a guide runs far below it: a vector export
        then carries no line outside the plot, as its other lines are cut to the view)."""
        p.setRenderHint(_AA, True)
        line = QtCore.QLineF
        scale = abs(p.transform().m22())
        floor = self._rect.top() - (4.0 / scale if scale > 0 else 0.0)  # (the view's least y)
        for g in self.guides if self._order is None else self._order:
            if g._visible and g.y0 >= floor:
                p.setPen(g.pen)
                p.drawLine(line(g.x, g.y0, g.x, max(g.y1, floor)))
