"""Painting a plot's scene item by item, each with its clip set afresh (for SVG).

Qt's SVG generator does not restore the clip on ``QPainter.restore()``: after
a text item (which clips itself to its box) every later item would be written
under the text's clip path.  :func:`paint_items` paints the items as
``QGraphicsScene.render`` would, but sets each one's clip explicitly
(``ReplaceClip``), so every element gets the right clip path.
"""

from __future__ import annotations


def scene_to_target(source, target):
    """The QTransform taking the scene rectangle ``source`` onto the picture's ``target``."""
    from PySide6.QtGui import QTransform

    tr = QTransform()
    tr.translate(target.left(), target.top())
    tr.scale(target.width() / source.width(), target.height() / source.height())
    tr.translate(-source.left(), -source.top())
    return tr


def item_clip(item, frame, to_target):
    """The clip path (picture coordinates) of ``item``: the frame, cut by every ancestor
    that clips its children and by the item itself if it clips to its shape."""
    from PySide6.QtGui import QPainterPath
    from PySide6.QtWidgets import QGraphicsItem

    Flag = QGraphicsItem.GraphicsItemFlag
    clip = QPainterPath(frame)
    node = item if item.flags() & Flag.ItemClipsToShape else item.parentItem()
    while node is not None:
        if node.flags() & Flag.ItemClipsChildrenToShape or (
                node is item and node.flags() & Flag.ItemClipsToShape):
            clip = clip.intersected(to_target.map(node.mapToScene(node.shape())))
        node = node.parentItem()
    return clip


def paint_items(painter, scene, source, target) -> None:
    """Paint ``scene``'s items in ``source`` (scene coordinates) onto ``target``, one by one."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QPainterPath
    from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

    if hasattr(scene, "prepareForPaint"):
        scene.prepareForPaint()  # pyqtgraph items update their pictures on this signal
    to_target = scene_to_target(source, target)
    frame = QPainterPath()
    frame.addRect(QRectF(target))
    base = painter.transform()
    for item in scene.items(Qt.SortOrder.AscendingOrder):
        if not item.isVisible() or item.flags() & QGraphicsItem.GraphicsItemFlag.ItemHasNoContents:
            continue
        opacity = item.effectiveOpacity()
        clip = item_clip(item, frame, to_target) if opacity > 0 else QPainterPath()
        tr = item.sceneTransform() * to_target
        if clip.isEmpty() or not clip.boundingRect().intersects(tr.mapRect(item.boundingRect())):
            continue
        painter.save()
        painter.setTransform(base)
        painter.setClipPath(clip, Qt.ClipOperation.ReplaceClip)
        painter.setTransform(tr * base)
        painter.setOpacity(opacity)
        option = QStyleOptionGraphicsItem()
        option.exposedRect = item.boundingRect()
        try:
            item.paint(painter, option, None)
        finally:
            painter.restore()
