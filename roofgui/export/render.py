"""Render the roofline or sweep plot as a designed picture: PNG, SVG, PDF, clipboard.

One function lays out and paints every export, whatever the device, so the
window, the clipboard and ``roofgui export`` give the same picture:

* the plot widget (:class:`~roofgui.plotting.plots.RooflinePlot` or
  :class:`~roofgui.plotting.sweep_plot.SweepPlot`) is built offscreen at the size it
  will have in the picture, with its style scaled by
  ``min(width / 1920, height / 1080)`` — pyqtgraph's pens are cosmetic, so
  widths, markers and fonts are scaled by the style, not by a painter
  transform, and a 4K picture is a 1080p picture with everything twice as big;
* Qt still paints that hidden widget while it settles (pyqtgraph finishes its
  layout in those paints), but onto a null paint device: nothing is rasterised
  until the picture itself is painted, once (:func:`_paint_without_pixels`);
* the optional title goes above, the optional caption (op, shapes, dtypes,
  chips, sources) below; the legend is moved to the corner of the axes that
  covers the least data;
* the scene is painted through ``QGraphicsScene.render`` onto a ``QImage``, a
  ``QSvgGenerator`` (SVG 1.1, so the axes' clipping is written as clip paths —
  pyqtgraph's own SVG exporter crashes on PySide6 ≥ 6.11) or a ``QPdfWriter``
  (96 dpi, a page the size of the picture), with pyqtgraph's export mode on so
  markers are vector shapes, not pixmaps;
* a PNG is encoded by :func:`~roofgui.export.png.encode_png` (Qt converts, zlib
  deflates row bands on a few threads into one stream), not by Qt's much slower
  PNG writer; the SVG is post-processed by :mod:`roofgui.export.svg`.

Every file is written to a temporary file beside the target and renamed over
it (:func:`roofgui.model.paths.atomic_write`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Callable

from roofgui.model.paths import atomic_write
from roofgui.model.scenario import Scenario
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario
# (the options, PNG and SVG helpers live in their own modules; their names are
# importable from here too, as before the split)
from roofgui.export.options import (BASE_SIZE, DEFAULT_SIZE, FORMATS, MAX_PIXELS, MAX_SIDE,  # noqa: F401
                      MIN_SIDE, PLOTS, PRESETS, PX_PER_PT, SCREEN_BASE_SIZE, STYLES,
                      ExportError, ExportOptions, check_size, export_style, format_for,
                      scale_factor, screen_dpi)
from roofgui.export.png import adler32_combine, encode_png, png_threads, zlib_parallel  # noqa: F401
from roofgui.export.svg import _svg_pixel_size, flatten_svg  # noqa: F401

# ---------------------------------------------------------------------------
# The figure: a laid-out plot widget, title and caption, paintable on any device
# ---------------------------------------------------------------------------

def _qcolor(text: str):
    from PySide6.QtGui import QColor

    if text == "transparent":
        return QColor(0, 0, 0, 0)
    if text.startswith("#") and len(text) == 9:  # #rrggbbaa
        c = QColor(text[:7])
        c.setAlpha(int(text[7:9], 16))
        return c
    return QColor(text)


def _font(family: str, px: float, bold: bool = False):
    from PySide6.QtGui import QFont

    f = QFont()
    fam = [x.strip() for x in family.split(",") if x.strip()] if family else []
    if fam and fam != ["sans-serif"]:
        f.setFamilies(fam)
    f.setStyleHint(QFont.StyleHint.SansSerif)
    f.setPixelSize(max(1, round(px)))
    f.setBold(bold)
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return f


def _wrap(text: str, metrics, width: float) -> list[str]:
    """Greedy word wrap of one paragraph to ``width`` pixels."""
    words = text.split(" ")
    lines: list[str] = []
    cur = ""
    for w in words:
        trial = w if not cur else f"{cur} {w}"
        if metrics.horizontalAdvance(trial) <= width or not cur:
            cur = trial
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    out = []
    for ln in lines:  # a single word wider than the line: elide it
        if metrics.horizontalAdvance(ln) > width:
            from PySide6.QtCore import Qt
            ln = metrics.elidedText(ln, Qt.TextElideMode.ElideRight, int(width))
        out.append(ln)
    return out


def _null_device(width: int, height: int, dpi: float):
    """A paint device whose engine draws nothing: painting on it runs every item's
    ``paint`` (and whatever pyqtgraph does there) without rasterising anything."""
    from PySide6.QtGui import QPaintDevice, QPaintEngine

    Metric = QPaintDevice.PaintDeviceMetric

    class _NullEngine(QPaintEngine):
        def __init__(self):
            # every feature, so QPainter emulates nothing (no stroking into fills, …)
            super().__init__(QPaintEngine.PaintEngineFeature.AllFeatures)

        def begin(self, device):
            return True

        def end(self):
            return True

        def type(self):
            return QPaintEngine.Type.User

        def updateState(self, state):  # noqa: N802 (Qt naming)
            pass

        def drawPixmap(self, r, pm, sr):  # noqa: N802
            pass

        def drawTiledPixmap(self, *args):  # noqa: N802
            pass

        def drawImage(self, *args):  # noqa: N802
            pass

        def drawPath(self, path):  # noqa: N802
            pass

        def drawPolygon(self, *args):  # noqa: N802
            pass

        def drawTextItem(self, p, item):  # noqa: N802
            pass

        def drawRects(self, *args):  # noqa: N802
            pass

        def drawLines(self, *args):  # noqa: N802
            pass

        def drawEllipse(self, *args):  # noqa: N802
            pass

        def drawPoints(self, *args):  # noqa: N802
            pass

    class _NullDevice(QPaintDevice):
        def __init__(self):
            super().__init__()
            self._engine = _NullEngine()
            self.pixel_size = (width, height)
            d = round(dpi)
            self._metrics = {
                Metric.PdmWidth: width, Metric.PdmHeight: height,
                Metric.PdmWidthMM: round(width * 25.4 / dpi),
                Metric.PdmHeightMM: round(height * 25.4 / dpi),
                Metric.PdmNumColors: 0xFFFFFFFF, Metric.PdmDepth: 32,
                Metric.PdmDpiX: d, Metric.PdmDpiY: d, Metric.PdmPhysicalDpiX: d,
                Metric.PdmPhysicalDpiY: d, Metric.PdmDevicePixelRatio: 1,
                Metric.PdmDevicePixelRatioScaled: round(QPaintDevice.devicePixelRatioFScale()),
            }

        def paintEngine(self):  # noqa: N802
            return self._engine

        def metric(self, m):
            return self._metrics.get(m, 0)

    return _NullDevice()


def _paint_without_pixels(view, dpi: float):
    """Make the offscreen view's paints draw nothing: an event filter on its viewport
    answers each paint event by rendering the view onto a null paint device.

    Qt paints the hidden widget several times while it settles, and pyqtgraph
    finishes some layout during a paint (a TextItem takes its transform at its
    first paint, an axis sizes itself to its tick labels), so those paints must
    still happen, and when Qt does them; but the picture is painted once more for
    the export, so rasterising them at the picture's size (thick antialiased pens
    at 4K) is waste.
    """
    from PySide6.QtCore import QEvent, QObject, QRectF
    from PySide6.QtGui import QPainter

    if not (hasattr(view, "viewport") and hasattr(view, "render")):
        return None  # not a graphics view: let it paint as it does

    class _Filter(QObject):
        device = None

        def eventFilter(self, obj, event):  # noqa: N802 (Qt naming)
            if event.type() != QEvent.Type.Paint:
                return False
            vp = view.viewport()
            if self.device is None or self.device.pixel_size != (vp.width(), vp.height()):
                self.device = _null_device(vp.width(), vp.height(), dpi)
            p = QPainter(self.device)
            try:
                # pyqtgraph's GraphicsView.render: prepareForPaint, then the items, as
                # the view's own paint event does
                p.setRenderHints(view.renderHints())
                view.render(p, QRectF(vp.rect()), vp.rect())
            finally:
                p.end()
            return True

    f = _Filter(view)
    view.viewport().installEventFilter(f)
    return f


def _make_plot(plot: str):
    from roofgui.plotting import plots
    from roofgui.plotting.sweep_plot import SweepPlot

    return plots.RooflinePlot() if plot == "roofline" else SweepPlot()


def _llm_view(scenario: Scenario, plot: str) -> bool:
    """Whether the sweep shows an LLM step's throughput or latency (the window's LLM sweep view)."""
    if plot != "sweep":
        return False
    try:
        from roofgui.model.llm import SWEEP_VIEWS
    except ImportError:
        return False
    return scenario.sweep.y in SWEEP_VIEWS


def _make_llm_sweep_plot(plot: str):
    from roofgui.plotting.llm_sweep import LlmSweepPlot

    return LlmSweepPlot()


class Figure:
    """A picture ready to paint: the plot widget laid out offscreen, title and caption placed.

    Build it, :meth:`paint` it on as many devices as needed, then :meth:`close` it
    (or use it as a context manager).  The offscreen widget's own paint events draw
    nothing (see :func:`_paint_without_pixels`): paint the figure, do not grab the widget.
    """

    def __init__(self, scenario: Scenario, catalog, options: ExportOptions,
                 plot_factory: Callable[[str], object] | None = None) -> None:
        from PySide6.QtCore import QRectF, Qt
        from PySide6.QtGui import QFontMetricsF
        from PySide6.QtWidgets import QApplication

        from roofgui.presentation.caption import build_caption

        opts = options.validated()
        self.options = opts
        self.scenario = scenario
        W, H = opts.width, opts.height
        self.size = (W, H)
        f = scale_factor(W, H, opts.style)
        self.factor = f
        self.dpi = screen_dpi()
        self.style = export_style(opts.style, W, H, opts.transparent, self.dpi)
        st = self.style
        self.evaluation = evaluate_scenario(scenario, catalog)
        slide = opts.style == "slide"

        # -- layout -----------------------------------------------------------
        pad = (40.0 if slide else 20.0) * f
        gap = (18.0 if slide else 10.0) * f
        top, bottom = pad * 0.8, H - pad * 0.8
        left, right = pad * 0.6, W - pad * 0.6
        px = self.dpi / 72.0  # the style's points, rescaled above, back to design pixels
        self.title_font = _font(st.font_family, st.title_font_pt * px * (1.25 if slide else 1.1),
                                bold=True)
        self.caption_font = _font(st.font_family, st.annotation_font_pt * px * (0.82 if slide else 1.0))
        self.title_lines: list[str] = []
        self.title_rect = QRectF()
        if opts.title:
            fm = QFontMetricsF(self.title_font)
            text = fm.elidedText(opts.title, Qt.TextElideMode.ElideRight, right - left - pad)
            self.title_lines = [text]
            h = fm.height()
            self.title_rect = QRectF(left + pad * 0.4, top, right - left - pad * 0.4, h)
            top += h + gap
        self.caption_lines: list[str] = []
        self.caption_rect = QRectF()
        self.caption_text = ""
        if opts.caption:
            cap = build_caption(scenario, self.evaluation)
            self.caption_text = cap.text()
            fm = QFontMetricsF(self.caption_font)
            width = right - left - pad * 0.4
            lines: list[str] = []
            for para in cap.paragraphs():
                lines += _wrap(para, fm, width)
            max_lines = max(1, int((H * 0.28) // fm.lineSpacing()))
            if len(lines) > max_lines:
                lines = lines[:max_lines]
                lines[-1] = fm.elidedText(lines[-1] + " …", Qt.TextElideMode.ElideRight, int(width))
            self.caption_lines = lines
            h = fm.lineSpacing() * len(lines)
            self.caption_rect = QRectF(left + pad * 0.4, bottom - h, width, h)
            bottom -= h + gap
        self.plot_rect = QRectF(round(left), round(top), round(right - left), round(bottom - top))
        if self.plot_rect.width() < 32 or self.plot_rect.height() < 32:
            raise ExportError(f"{W} × {H} leaves no room for the plot; make the picture larger "
                              "or leave out the caption", "size")

        # -- the plot ---------------------------------------------------------
        app = QApplication.instance()
        if app is None:
            raise RuntimeError("no QApplication; call roofgui.export.qtapp.ensure_app() first")
        llm_view = _llm_view(scenario, opts.plot)
        factory = plot_factory or (_make_llm_sweep_plot if llm_view else _make_plot)
        w = factory(opts.plot)
        self.widget = w
        w.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self._paint_filter = _paint_without_pixels(w, self.dpi)
        w.resize(int(self.plot_rect.width()), int(self.plot_rect.height()))
        w.set_style(st)
        if opts.plot == "roofline":
            w.update_from(scenario, self.evaluation)
        elif llm_view and hasattr(w, "walls"):  # throughput / latency against batch
            from roofgui.model.llm import llm_sweep_scenario

            self.curves = []
            w.update_from(scenario, llm_sweep_scenario(scenario, catalog))
        else:
            curves, _errors = sweep_scenario(scenario, catalog)
            self.curves = curves
            w.update_from(scenario, curves)
        w.show()
        self._apply_view()
        self._settle()
        self.legend_position = self._place_legend()
        self._clip_curves_to_view()

    # -- helpers --------------------------------------------------------------
    def _settle(self) -> None:
        from PySide6.QtCore import QEventLoop
        from PySide6.QtWidgets import QApplication

        # layout requests only: no user input (the export dialog must not be closed mid-render)
        flags = QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents
        for _ in range(3):
            QApplication.sendPostedEvents()
            QApplication.processEvents(flags)

    def _apply_view(self) -> None:
        rng = self.scenario.view.roofline if self.options.plot == "roofline" else None
        if rng is not None and hasattr(self.widget, "set_view"):
            self.widget.set_view(list(rng))
        else:
            self.widget.fit()

    def plot_item(self):
        return self.widget.getPlotItem()

    def view_rect_scene(self):
        """The axes (ViewBox) rectangle in scene coordinates."""
        return self.plot_item().getViewBox().sceneBoundingRect()

    @property
    def axes_rect(self):
        """The axes rectangle in picture coordinates (where the data may be drawn)."""
        src = self.source_rect()
        return self.view_rect_scene().translated(self.plot_rect.topLeft() - src.topLeft())

    def source_rect(self):
        return self.plot_item().sceneBoundingRect()

    def _legend(self):
        legend = getattr(self.widget, "legend", None)
        return legend if legend is not None else getattr(self.plot_item(), "legend", None)

    def _place_legend(self) -> str | None:
        """Move the legend to the corner of the axes that covers the least data."""
        legend = self._legend()
        if legend is None or not legend.isVisible() or not hasattr(self.style, "legend_position"):
            return None
        if hasattr(self.widget, "legend_corner"):
            # the plot places its own legend ("auto": the corner covering the least data)
            if self.style.legend_position != "auto":
                self.style = replace(self.style, legend_position="auto")
                self.widget.set_style(self.style)
                self._settle()
            return self.widget.legend_corner
        obstacles = data_points_scene(self.plot_item().getViewBox())
        best = None
        order = [self.style.legend_position] + [c for c in LEGEND_CORNERS
                                                 if c != self.style.legend_position]
        for corner in order:
            self.widget.set_style(replace(self.style, legend_position=corner))
            self._settle()
            rect = legend.sceneBoundingRect()
            score = _covered(obstacles, rect, margin=6 * self.factor)
            if best is None or score < best[0]:
                best = (score, corner)
            if score == 0:
                break
        if best[1] != corner:
            self.widget.set_style(replace(self.style, legend_position=best[1]))
            self._settle()
        self.style = replace(self.style, legend_position=best[1])
        return best[1]

    def _clip_curves_to_view(self) -> None:
        """Cut every line to the axes (plus a sliver), so vector files carry no
        geometry outside the plot area; markers and text are left to the clip path."""
        import numpy as np
        import pyqtgraph as pg

        from roofgui.export.geometry import clip_polylines

        vb = self.plot_item().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        mx = my = 0.0
        lines = []
        for item in vb.childGroup.childItems():
            if isinstance(item, pg.LinearRegionItem):  # region bands: to the view's width
                a, b = item.getRegion()
                lo, hi = (x0, x1) if item.orientation == "vertical" else (y0, y1)
                a, b = max(a, lo), min(b, hi)
                if a < b:
                    item.setRegion((a, b))
                else:
                    item.setVisible(False)
                continue
            if not isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)) \
                    or item.opts.get("symbol") is not None \
                    or item.opts.get("connect") == "pairs":  # (the grid: its own segments)
                continue
            x, y = item.xData, item.yData
            if x is None or y is None or len(x) == 0:
                continue
            lines.append((item, np.asarray(x, float), np.asarray(y, float)))
        clipped = clip_polylines([(x, y) for _, x, y in lines], x0 - mx, x1 + mx, y0 - my, y1 + my)
        for (item, _, _), (cx, cy) in zip(lines, clipped):
            item.setData(cx, cy, connect="finite")
        self._settle()

    # -- painting -------------------------------------------------------------
    def paint(self, painter, per_item: bool = False) -> None:
        """Paint the whole picture with ``painter`` (on a W × H device at 96 dpi).

        ``per_item`` paints the plot's items one by one, each with its clip set
        afresh (see :func:`paint_items`), for the SVG generator."""
        from PySide6.QtCore import QPointF, QRectF, Qt
        from PySide6.QtGui import QFontMetricsF, QPainter, QPen

        st = self.style
        W, H = self.size
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        bg = _qcolor(st.background)
        if bg.alpha() > 0:
            painter.fillRect(QRectF(0, 0, W, H), bg)
        painter.setClipRect(QRectF(0, 0, W, H))
        if self.title_lines:
            painter.setFont(self.title_font)
            painter.setPen(QPen(_qcolor(st.foreground)))
            fm = QFontMetricsF(self.title_font)
            painter.drawText(QPointF(self.title_rect.left(), self.title_rect.top() + fm.ascent()),
                             self.title_lines[0])
        self._paint_plot(painter, per_item)
        # set the page clip again explicitly: Qt's SVG generator does not restore clips
        painter.setClipRect(QRectF(0, 0, W, H), Qt.ClipOperation.ReplaceClip)
        if self.caption_lines:
            painter.setFont(self.caption_font)
            painter.setPen(QPen(_qcolor(st.muted)))
            fm = QFontMetricsF(self.caption_font)
            y = self.caption_rect.top() + fm.ascent()
            for line in self.caption_lines:
                painter.drawText(QPointF(self.caption_rect.left(), y), line)
                y += fm.lineSpacing()
        painter.restore()

    def _paint_plot(self, painter, per_item: bool = False) -> None:
        scene = self.widget.scene()
        items = [it for it in scene.items() if hasattr(it, "setExportMode")]
        opts = {"antialias": True, "background": _qcolor(self.style.background), "painter": painter}
        for it in items:
            it.setExportMode(True, opts)
        try:
            src = self.source_rect()
            target = self.plot_rect
            if per_item:
                paint_items(painter, scene, src, target)
            else:
                scene.render(painter, target, src)
        finally:
            for it in items:
                it.setExportMode(False, None)

    # -- outputs --------------------------------------------------------------
    def image(self):
        """The picture as a W × H ARGB image (96 dpi)."""
        from PySide6.QtGui import QImage

        return self._painted_image().convertToFormat(QImage.Format.Format_ARGB32)

    def _painted_image(self):
        """The picture as painted: a W × H premultiplied ARGB image (96 dpi)."""
        from PySide6.QtGui import QImage, QPainter

        W, H = self.size
        img = QImage(W, H, QImage.Format.Format_ARGB32_Premultiplied)
        dpm = round(self.dpi / 0.0254)  # fonts in points resolve as in the plot's layout
        img.setDotsPerMeterX(dpm)
        img.setDotsPerMeterY(dpm)
        if _qcolor(self.style.background).alpha() < 255:
            img.fill(0)  # an opaque background is painted over every pixel anyway
        p = QPainter(img)
        try:
            self.paint(p)
        finally:
            p.end()
        return img

    def png_bytes(self) -> bytes:
        # an opaque background is painted under everything: every pixel is opaque
        opaque = True if _qcolor(self.style.background).alpha() == 255 else None
        return encode_png(self._painted_image(), opaque=opaque)

    def svg_bytes(self) -> bytes:
        from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        W, H = self.size
        data = QByteArray()
        buf = QBuffer(data)
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        gen = QSvgGenerator(QSvgGenerator.SvgVersion.Svg11)  # 1.1: clip paths are written
        gen.setOutputDevice(buf)
        gen.setSize(QSize(W, H))
        gen.setViewBox(QRect(0, 0, W, H))
        gen.setResolution(round(self.dpi))
        gen.setTitle(self.options.title or self.scenario.title or "Roofline")
        gen.setDescription(self.caption_text or "Roofline Explorer")
        p = QPainter(gen)
        try:
            self.paint(p, per_item=True)
        finally:
            p.end()
        buf.close()
        return flatten_svg(_svg_pixel_size(bytes(data.data()), W, H))

    def pdf_bytes(self) -> bytes:
        from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF
        from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter

        W, H = self.size
        data = QByteArray()
        buf = QBuffer(data)
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        writer = QPdfWriter(buf)
        dpi = round(self.dpi)
        writer.setResolution(dpi)
        size = QPageSize(QSizeF(W * 72 / dpi, H * 72 / dpi), QPageSize.Unit.Point, "",
                         QPageSize.SizeMatchPolicy.ExactMatch)
        writer.setPageLayout(QPageLayout(size, QPageLayout.Orientation.Portrait,
                                         QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Point))
        writer.setTitle(self.options.title or self.scenario.title or "Roofline")
        writer.setCreator("Roofline Explorer")
        p = QPainter(writer)
        try:
            # the page is W × H at 96 dpi; guard against rounding of the page size
            sx = writer.width() / W
            sy = writer.height() / H
            if abs(sx - 1) > 1e-3 or abs(sy - 1) > 1e-3:
                p.scale(sx, sy)
            self.paint(p)
        finally:
            p.end()
        buf.close()
        return bytes(data.data())

    def close(self) -> None:
        w = getattr(self, "widget", None)
        if w is not None:
            w.hide()
            w.setParent(None)
            w.deleteLater()
            self.widget = None

    def __enter__(self) -> "Figure":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def paint_items(painter, scene, source, target) -> None:
    """Paint a scene's items one by one, as ``QGraphicsScene.render`` would, but give
    every item its clip afresh (``ReplaceClip``) instead of relying on save/restore.

    Qt's SVG generator does not restore the clip on ``QPainter.restore()``: after
    a text item (which clips itself to its box) every later item would be written
    under the text's clip path.  Setting each item's clip explicitly writes the
    right clip path for every element.
    """
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QPainterPath, QTransform
    from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

    Flag = QGraphicsItem.GraphicsItemFlag
    if hasattr(scene, "prepareForPaint"):
        scene.prepareForPaint()  # pyqtgraph items update their pictures on this signal
    to_target = QTransform()
    to_target.translate(target.left(), target.top())
    to_target.scale(target.width() / source.width(), target.height() / source.height())
    to_target.translate(-source.left(), -source.top())
    frame = QPainterPath()
    frame.addRect(QRectF(target))
    base = painter.transform()
    for item in scene.items(Qt.SortOrder.AscendingOrder):
        if not item.isVisible() or item.flags() & Flag.ItemHasNoContents:
            continue
        opacity = item.effectiveOpacity()
        if opacity <= 0:
            continue
        clip = QPainterPath(frame)
        node = item if item.flags() & Flag.ItemClipsToShape else item.parentItem()
        while node is not None:
            if node.flags() & Flag.ItemClipsChildrenToShape or (
                    node is item and node.flags() & Flag.ItemClipsToShape):
                clip = clip.intersected(to_target.map(node.mapToScene(node.shape())))
            node = node.parentItem()
        if clip.isEmpty():
            continue
        tr = item.sceneTransform() * to_target
        if not clip.boundingRect().intersects(tr.mapRect(item.boundingRect())):
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


LEGEND_CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")


def data_points_scene(viewbox, step_px: float = 4.0) -> list[tuple[float, float]]:
    """Scene positions of everything data-like in a ViewBox: curve samples (densified
    to ``step_px``), scatter points and text labels.  Region fills are background."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtCore import QPointF

    pts: list[tuple[float, float]] = []
    rect = viewbox.sceneBoundingRect()
    group = getattr(viewbox, "childGroup", None)
    items = list(group.childItems()) if group is not None else list(viewbox.addedItems)
    for item in items:
        if not item.isVisible():
            continue
        if isinstance(item, (pg.FillBetweenItem, pg.LinearRegionItem)):
            continue
        if isinstance(item, pg.TextItem):
            r = item.sceneBoundingRect()
            for fx in (0.0, 0.25, 0.5, 0.75, 1.0):
                for fy in (0.0, 0.5, 1.0):
                    pts.append((r.left() + fx * r.width(), r.top() + fy * r.height()))
            continue
        if isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem, pg.ScatterPlotItem)):
            try:
                x, y = item.getData()
            except Exception:  # noqa: BLE001 - an item without data adds nothing
                continue
            if x is None or y is None or len(x) == 0:
                continue
            x = np.asarray(x, dtype=float)
            y = np.asarray(y, dtype=float)
            ok = np.isfinite(x) & np.isfinite(y)
            x, y = x[ok], y[ok]
            if x.size == 0:
                continue
            tr = item.sceneTransform()
            sx = tr.m11() * x + tr.m21() * y + tr.m31()
            sy = tr.m12() * x + tr.m22() * y + tr.m32()
            draws_line = isinstance(item, pg.PlotCurveItem) or (
                isinstance(item, pg.PlotDataItem) and item.opts.get("pen") is not None)
            if draws_line and sx.size > 1:
                seg = np.hypot(np.diff(sx), np.diff(sy))
                for i in range(sx.size - 1):
                    n = int(min(max(1, math.ceil(seg[i] / step_px)), 4000))
                    t = np.linspace(0.0, 1.0, n, endpoint=False)
                    xs = sx[i] + t * (sx[i + 1] - sx[i])
                    ys = sy[i] + t * (sy[i + 1] - sy[i])
                    inside = ((xs >= rect.left()) & (xs <= rect.right())
                              & (ys >= rect.top()) & (ys <= rect.bottom()))
                    pts += list(zip(xs[inside].tolist(), ys[inside].tolist()))
            for a, b in zip(sx.tolist(), sy.tolist()):
                if rect.contains(QPointF(a, b)):
                    pts.append((a, b))
        elif isinstance(item, pg.InfiniteLine):
            r = item.mapRectToScene(item.boundingRect()).intersected(rect)
            n = int(max(2, (r.width() + r.height()) / step_px))
            for i in range(n + 1):
                pts.append((r.left() + r.width() * i / n, r.top() + r.height() * i / n))
    return pts



def _covered(points, rect, margin: float = 0.0) -> int:
    r = rect.adjusted(-margin, -margin, margin, margin)
    x0, x1, y0, y1 = r.left(), r.right(), r.top(), r.bottom()
    return sum(1 for x, y in points if x0 <= x <= x1 and y0 <= y <= y1)



def _image_bytes(img, fmt: str) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, fmt):
        raise ExportError(f"could not encode the image as {fmt}")
    buf.close()
    return bytes(data.data())


# ---------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------

def _options(plot, width, height, style, title, caption, transparent) -> ExportOptions:
    return ExportOptions(plot, width, height, style, title, caption, transparent).validated()


def render_image(scenario: Scenario, catalog, plot: str = "roofline", width: int = 1920,
                 height: int = 1080, style: str = "slide", title: str | None = None,
                 caption: bool = False, transparent: bool = False):
    """The picture as a ``width`` × ``height`` QImage (ARGB32, 96 dpi)."""
    opts = _options(plot, width, height, style, title, caption, transparent)
    with Figure(scenario, catalog, opts) as fig:
        return fig.image()


def render_bytes(fmt: str, scenario: Scenario, catalog, options: ExportOptions) -> bytes:
    """The encoded file content for ``fmt`` (``png``, ``svg``, ``pdf`` or ``csv``)."""
    if fmt == "csv":
        from roofgui.export.csv import table_csv
        return table_csv(scenario, catalog, options.plot).encode("utf-8")
    with Figure(scenario, catalog, options.validated()) as fig:
        if fmt == "png":
            return fig.png_bytes()
        if fmt == "svg":
            return fig.svg_bytes()
        if fmt == "pdf":
            return fig.pdf_bytes()
    raise ExportError(f"unknown format {fmt!r}", "format")


def export_file(path: str | Path, scenario: Scenario, catalog, plot: str = "roofline",
                width: int = 1920, height: int = 1080, style: str = "slide",
                title: str | None = None, caption: bool = False,
                transparent: bool = False) -> Path:
    """Write the picture (PNG, SVG, PDF) or the table (CSV) chosen by ``path``'s suffix.

    The file is complete or untouched: it is written beside the target under a
    temporary name and renamed over it.  Raises :class:`ExportError` for a bad
    suffix or size and ``OSError`` when the file cannot be written.
    """
    p = Path(path)
    fmt = format_for(p)
    opts = _options(plot, width, height, style, title, caption, transparent)
    data = render_bytes(fmt, scenario, catalog, opts)
    atomic_write(p, data)
    return p


def copy_plot_to_clipboard(scenario: Scenario, catalog=None, plot: str = "roofline",
                           width: int = 1920, height: int = 1080, style: str = "slide",
                           title: str | None = None, caption: bool = False,
                           transparent: bool = False):
    """Put the picture on the clipboard (as an image); returns the QImage."""
    from PySide6.QtWidgets import QApplication

    if catalog is None:
        from roofgui.model.catalog import Catalog
        catalog = Catalog.load()
    img = render_image(scenario, catalog, plot, width, height, style, title, caption, transparent)
    QApplication.clipboard().setImage(img)
    return img
