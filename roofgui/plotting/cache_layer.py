"""A picture of the lines an edit leaves alone, for the window's plots.

Measured on the busy MLP example (3 chips, 4 ops): painting the roofs, ridges, guides and
the roofline's translucent bands as pyqtgraph items costs several milliseconds of a
keystroke's repaint (the bands alone ~2 ms), the sweep's unedited curves as much;
blitting one picture of them costs ~0.3 ms.  (The sweep's grid alone is not worth one.)  A
:class:`CacheLayer` draws its member items (lines, bands, spots: items in the view's
coordinates) into one image the size of the view, again only when a member changes
(:meth:`CacheLayer.invalidate`) or the view's transform, size or pixel ratio does, and
blits it on every other paint.  A paint that finds the image stale paints the members
themselves and leaves the new image to the event-loop pass after it, so a frame that moves
the view costs no more than a plain plot's.  The members stay the plot's items (data, hit tests,
tooltips); Qt only no longer paints them (``ItemHasNoContents``).  On screen only: an
export paints its items itself, so vector files keep vectors.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

_NO_CONTENTS = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents


class CacheLayer(pg.GraphicsObject):
    """Draws ``members`` (in order) from one kept image of the view."""

    def __init__(self, vb: pg.ViewBox, z: float) -> None:
        super().__init__()
        self.vb = vb
        self.members: list = []
        self.key: tuple | None = None  # the view the image was drawn for
        self.image: QtGui.QImage | None = None
        #: (transform, width, height, pixel ratio, key) of a paint that found the
        #: image stale: its picture is drawn in the event-loop pass after that paint
        self.pending: tuple | None = None
        #: images drawn so far (tests: a repaint of unchanged members draws none)
        self.renders = 0
        self.setZValue(z)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        vb.addItem(self, ignoreBounds=True)
        vb.sigRangeChanged.connect(self._view_changed)
        vb.sigResized.connect(self._view_changed)

    def _view_changed(self, *_args) -> None:
        self.prepareGeometryChange()

    def boundingRect(self):  # noqa: N802 (Qt's name)
        return QtCore.QRectF(self.vb.viewRect())

    def shape(self):  # never under the mouse
        return QtGui.QPainterPath()

    def set_members(self, items: list) -> None:
        """Draw ``items`` (in this order) from the image; items no longer listed paint
        themselves again."""
        if len(items) == len(self.members) and all(a is b for a, b in zip(items, self.members)):
            return
        for item in self.members:
            if not any(item is i for i in items):
                item.setFlag(_NO_CONTENTS, False)
                item.update()
        for item in items:
            item.setFlag(_NO_CONTENTS, True)
        self.members = list(items)
        self.invalidate()

    def invalidate(self) -> None:
        """A member changed: draw the image again at the next paint."""
        self.key = None
        self.update()

    def paint(self, p, opt, widget):
        shown = [m for m in self.members if m.isVisible()]
        if not shown:  # (an empty picture: no blit)
            return
        if widget is None:  # (no view to keep a picture for)
            for m in shown:
                m.paint(p, opt, widget)
            return
        # the painter's transform in the view's logical pixels (Qt adds the pixel ratio)
        tr = p.worldTransform()
        dpr = widget.devicePixelRatioF()
        size = widget.size()
        key = (tr.m11(), tr.m12(), tr.m21(), tr.m22(), tr.dx(), tr.dy(), size.width(),
               size.height(), dpr)
        if key == self.key and self.image is not None:
            p.save()
            p.resetTransform()
            p.drawImage(QtCore.QPointF(0.0, 0.0), self.image)
            p.restore()
            return
        # The view or a member changed: paint the members as they are, and draw the picture
        # for the paints to come once this frame is on screen.  (Drawing it now and then
        # blitting it cost a frame that moves the view 12 ms of 35 on the busy example.)
        for m in shown:
            p.save()
            m.paint(p, opt, widget)
            p.restore()
        self.pending = (tr, size.width(), size.height(), dpr, key)
        QtCore.QTimer.singleShot(0, self, self.draw_picture)

    def draw_picture(self) -> None:
        """Draw the image of the members for the view last painted (after that paint)."""
        if self.pending is None:
            return
        tr, width, height, dpr, key = self.pending
        self.pending = None
        if key == self.key and self.image is not None:
            return
        img = QtGui.QImage(max(1, math.ceil(width * dpr)), max(1, math.ceil(height * dpr)),
                           QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.setDevicePixelRatio(dpr)
        img.fill(0)
        ip = QtGui.QPainter(img)
        ip.setWorldTransform(tr)
        opt = QtWidgets.QStyleOptionGraphicsItem()
        for m in (m for m in self.members if m.isVisible()):
            ip.save()  # (a scatter resets the transform to draw its symbols)
            m.paint(ip, opt, None)  # (the view may be gone by now: its ratio is in dpr)
            ip.restore()
        ip.end()
        self.image, self.key = img, key
        self.renders += 1
