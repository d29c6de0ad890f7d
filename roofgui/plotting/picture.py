"""On screen, an item and its children drawn from one kept picture (the legend's).

The legend lies over the plot's lines, so every keystroke's repaint repaints it too: its
frame, twelve samples, twelve texts — ~37 items, each a call into Python and Qt's
per-item work (style options, bounding rectangles), ~1.4 M of the 8.4 M instructions of
a sweep edit's paint.  :class:`Picture`, set as the legend's graphics effect, draws them
once into an image and then blits it, until one of them changes.
"""

from __future__ import annotations

import logging
import math

from PySide6 import QtCore, QtGui, QtWidgets

_log = logging.getLogger(__name__)

_DEVICE = QtCore.Qt.CoordinateSystem.DeviceCoordinates
_NO_PAD = QtWidgets.QGraphicsEffect.PixmapPadMode.NoPad
_F = QtWidgets.QGraphicsItem.GraphicsItemFlag
#: flags under which an item is not simply painted through its transform (then the
#: picture is not used: the items draw themselves)
_UNUSUAL = (_F.ItemClipsToShape | _F.ItemClipsChildrenToShape | _F.ItemIgnoresTransformations
            | _F.ItemStacksBehindParent | _F.ItemIgnoresParentOpacity)


class Picture(QtWidgets.QGraphicsEffect):
    """A graphics effect that draws its item and the item's children from a kept picture.

    **Exact.**  The picture is an image from the view's corner to the items' far corner
    (at most the view's size), drawn at the view's own coordinates: each item through its
    own screen transform, fractions of a pixel included.  An image moved by whole pixels
    would round the items' edges anew (809.5 is not 218.5 in floating point): a frame or
    a line end would be a pixel off.  Only the items' rectangle is cleared, drawn and
    blitted, whole and unclipped: the painter's clip (the view's edges, the region being
    repainted) clips the blit as it would have clipped the items.  What the screen then
    shows differs from the items drawn directly only by the rounding a composited
    picture adds (a step or two in 255: see ``tests/gui/gui_helpers.assert_same_picture``).

    **Drawn again** when one of the items changes, or when the items' place on the screen,
    the view's size or its pixel ratio change; not for a repaint of another region.  Qt
    keeps its own picture of an effect's items and drops it in ``QGraphicsItem::update``
    of any of them.  Its key (``sourcePixmap().cacheKey()``) therefore tells that they
    changed, before the paint: ``sourceChanged`` comes an event-loop pass later, after a
    ``grab``.  Qt's picture itself is not shown.  It is drawn at coordinates moved by
    whole pixels, so it has the rounding above; and it costs one extra drawing per change
    of the legend.

    **Not used** (the items draw themselves, as without the effect) for:
    - a painter that is not Qt's raster engine on a widget (an export, a printer);
    - a view that is rotated, scaled or sheared;
    - items that clip, ignore transformations or are not opaque.
    """

    def __init__(self, item: QtWidgets.QGraphicsItem) -> None:
        super().__init__()
        #: the item whose picture this is (Qt gives an effect no way back to its item)
        self.item = item
        self._image: QtGui.QImage | None = None
        self._rect = QtCore.QRect()  # the items' pixels in the image (logical)
        self._sig: tuple | None = None
        self._qt_at = QtCore.QPoint()  # (where Qt's picture would go: unused)
        #: pictures drawn so far (for tests: a repaint that changes no item draws none)
        self.renders = 0
        item.setGraphicsEffect(self)  # (Qt owns the effect from here on)

    def sourceChanged(self, flags) -> None:  # noqa: N802 (Qt's name)
        self._sig = None

    def draw(self, painter: QtGui.QPainter) -> None:
        try:
            if self._draw_kept(painter):
                return
            tree = self._tree(self.item)
            if tree is not None:
                # the items drawn directly (not ``drawSource``: once this effect has asked
                # for Qt's picture, Qt blits that, at the screen's coordinates, on any painter)
                dev = painter.device()
                self._paint_tree(painter, tree, painter.worldTransform(),
                                 dev if isinstance(dev, QtWidgets.QWidget) else None)
                return
        except Exception:  # noqa: BLE001 - never worth the window: draw the items directly
            # (an exception leaving a Qt virtual has crashed PySide6 6.11)
            _log.exception("the legend's picture could not be drawn; drawing its items")
            self._image = self._sig = None
        self.drawSource(painter)

    def _draw_kept(self, painter: QtGui.QPainter) -> bool:
        """Blit the picture (drawn first if stale); False when it cannot stand in for the
        items (see the class's notes)."""
        tr = painter.worldTransform()
        engine = painter.paintEngine()
        dev = painter.device()
        if (engine is None or engine.type() != QtGui.QPaintEngine.Type.Raster
                or not isinstance(dev, QtWidgets.QWidget)
                or tr.m11() != 1.0 or tr.m22() != 1.0 or tr.m12() or tr.m21()
                or tr.m13() or tr.m23()):
            return False
        dpr = dev.devicePixelRatioF()
        size = dev.size()
        box = self.sourceBoundingRect(_DEVICE)
        key = self.sourcePixmap(_DEVICE, self._qt_at, _NO_PAD).cacheKey()
        # (not the painter's clip: a repaint of a small region, the readout's under the
        # mouse, say, clips the blit as it would have clipped the items)
        sig = (key, tr.dx(), tr.dy(), size.width(), size.height(), dpr, box.getRect())
        if sig != self._sig or self._image is None:
            # (the items are looked at only now: Qt's key changes when one of them moves,
            # shows, hides or changes; a walk over the ~37 items, PySide's flag arithmetic
            # and all, cost ~2 M instructions a paint, more than the picture saved)
            tree = self._tree(self.item)
            if tree is None:
                self._sig = None
                return False
            self._render(tree, tr, painter.renderHints(), dpr, size, box, dev)
            self._sig = sig
        if self._image is not None:
            r = QtCore.QRectF(self._rect)  # (logical pixels; the image's: dpr times as many)
            d = self._image.devicePixelRatio()
            painter.save()
            painter.resetTransform()
            painter.drawImage(r, self._image,
                              QtCore.QRectF(r.x() * d, r.y() * d, r.width() * d, r.height() * d))
            painter.restore()
        return True

    @staticmethod
    def _tree(item: QtWidgets.QGraphicsItem) -> list | None:
        """The item and its shown descendants in the order Qt paints them (each before its
        children, children in stacking order), or None if one would not be painted simply
        through its transform."""
        out = []

        def visit(it) -> bool:
            if not it.isVisible():
                return True
            flags = it.flags()
            if it is item:  # (its transform is the painter's, however Qt worked it out)
                flags &= ~_F.ItemIgnoresTransformations
            elif it.graphicsEffect() is not None:
                return False
            if (flags & _UNUSUAL) or it.opacity() != 1.0 or it.zValue() < 0:
                return False
            if not flags & _F.ItemHasNoContents:
                out.append(it)
            return all(visit(c) for c in it.childItems())

        return out if visit(item) else None

    def _paint_tree(self, p: QtGui.QPainter, tree: list, tr: QtGui.QTransform, widget) -> None:
        """Paint ``tree`` (see :meth:`_tree`) with ``p``, the root item through ``tr`` and
        each other item through its transform to the root and on through ``tr``: what Qt's
        scene does for them (each item's paint with its painter state kept from the next)."""
        root = self.item
        for it in tree:
            p.save()
            p.setWorldTransform(tr if it is root else it.itemTransform(root)[0] * tr)
            opt = QtWidgets.QStyleOptionGraphicsItem()
            opt.exposedRect = it.boundingRect()
            opt.rect = opt.exposedRect.toRect()
            opt.state = QtWidgets.QStyle.StateFlag.State_Enabled
            it.paint(p, opt, widget)
            p.restore()

    def _render(self, tree, tr, hints, dpr, size, box, widget) -> None:
        r = box.adjusted(-2.0, -2.0, 2.0, 2.0).toAlignedRect()  # (antialiased edges)
        r &= QtCore.QRect(0, 0, size.width(), size.height())
        if r.isEmpty():
            self._image = None
            return
        # (from the view's corner to the items' far corner: the view's coordinates, and
        # no more pixels than that; the image is kept while that size holds)
        w, h = math.ceil((r.x() + r.width()) * dpr), math.ceil((r.y() + r.height()) * dpr)
        img = self._image
        if img is None or (img.width(), img.height()) != (w, h) \
                or img.devicePixelRatio() != dpr:
            img = QtGui.QImage(w, h, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
            img.setDevicePixelRatio(dpr)
        ip = QtGui.QPainter(img)
        try:
            ip.setCompositionMode(QtGui.QPainter.CompositionMode.CompositionMode_Source)
            ip.fillRect(r, QtCore.Qt.GlobalColor.transparent)
            ip.setCompositionMode(QtGui.QPainter.CompositionMode.CompositionMode_SourceOver)
            ip.setClipRect(r)
            ip.setRenderHints(hints)  # (the screen painter's: each item starts from them)
            self._paint_tree(ip, tree, tr, widget)
        finally:
            ip.end()
        self._image, self._rect = img, r
        self.renders += 1
