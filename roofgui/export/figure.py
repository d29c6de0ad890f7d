"""The picture every export paints: the plot laid out offscreen with its title and caption.

One class lays out and paints every export, whatever the device, so the window's
export dialog, the clipboard and ``roofgui export`` give the same picture:

* the plot widget (:class:`~roofgui.plotting.plots.RooflinePlot`,
  :class:`~roofgui.plotting.sweep_plot.SweepPlot` or, for an LLM step's
  throughput or latency, :class:`~roofgui.plotting.llm_sweep.LlmSweepPlot`) is
  built offscreen at the size it has in the picture, with its style scaled by
  ``min(width / 1920, height / 1080)``: pyqtgraph's pens are cosmetic, so
  widths, markers and fonts are scaled by the style, not by a painter
  transform, and a 4K picture is a 1080p picture with everything twice as big;
* the title goes above, the caption below (:mod:`roofgui.export.layout`); the
  plot places its legend in the corner of the axes that covers the least data;
* the hidden widget's own paints are off; pyqtgraph finishes its layout in one
  paint of the scene onto a 1 × 1 image (:meth:`Figure.settle`), so the picture
  is rasterised once, when it is painted;
* lines are cut to the axes, so vector files hold nothing outside the plot;
* the scene is painted through ``QGraphicsScene.render`` (item by item for SVG,
  :mod:`roofgui.export.paint`) with pyqtgraph's export mode on, so markers are
  vector shapes, not pixmaps.
"""

from __future__ import annotations

from roofgui.export import vector
from roofgui.export.layout import lay_out, qcolor
from roofgui.export.options import ExportOptions, export_style, scale_factor, screen_dpi
from roofgui.export.paint import paint_items
from roofgui.export.png import encode_png
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario
from roofgui.model.scenario import Scenario
from roofgui.presentation.polylines import drawn_samples


def make_plot(scenario: Scenario, plot: str):
    """The window's plot widget that draws ``plot`` for ``scenario``."""
    if plot == "roofline":
        from roofgui.plotting.plots import RooflinePlot

        return RooflinePlot()
    if is_llm_view(scenario, plot):
        from roofgui.plotting.llm_sweep import LlmSweepPlot

        return LlmSweepPlot()
    from roofgui.plotting.sweep_plot import SweepPlot

    return SweepPlot()


def is_llm_view(scenario: Scenario, plot: str) -> bool:
    """Whether the sweep shows an LLM step's throughput or latency (the window's LLM sweep view)."""
    from roofgui.model.llm import SWEEP_VIEWS

    return plot == "sweep" and scenario.sweep.y in SWEEP_VIEWS


class Figure:
    """A picture ready to paint: the plot widget laid out offscreen, title and caption placed.

    Build it, :meth:`paint` it on as many devices as needed, then :meth:`close` it
    (or use it as a context manager).
    """

    def __init__(self, scenario: Scenario, catalog, options: ExportOptions) -> None:
        from roofgui.presentation.caption import build_caption

        opts = options.validated()
        self.options = opts
        self.scenario = scenario
        self.size = (opts.width, opts.height)
        self.factor = scale_factor(opts.width, opts.height, opts.style)
        self.dpi = screen_dpi()
        self.style = export_style(opts.style, opts.width, opts.height, opts.transparent, self.dpi)
        self.evaluation = evaluate_scenario(scenario, catalog)
        caption = build_caption(scenario, self.evaluation) if opts.caption else None
        self.layout = lay_out(opts, self.style, self.factor, self.dpi, caption)
        self.curves: list = []
        self.widget = self._build_plot(catalog)
        self.settle()
        self.legend_position = self._place_legend()
        self._clip_curves_to_view()

    def _build_plot(self, catalog):
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication

        if QApplication.instance() is None:
            raise RuntimeError("no QApplication; call roofgui.export.qtapp.ensure_app() first")
        sc, plot = self.scenario, self.options.plot
        w = make_plot(sc, plot)
        w.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        w.viewport().setUpdatesEnabled(False)  # no paint events: see settle()
        w.resize(int(self.layout.plot_rect.width()), int(self.layout.plot_rect.height()))
        w.set_style(self.style)
        if plot == "roofline":
            w.update_from(sc, self.evaluation)
        elif is_llm_view(sc, plot):  # throughput / latency against batch
            from roofgui.model.llm import llm_sweep_scenario

            w.update_from(sc, llm_sweep_scenario(sc, catalog))
        else:
            # (the points the picture draws, as in the window)
            self.curves, _errors = sweep_scenario(
                sc, catalog, max_points=drawn_samples(sc.sweep.start, sc.sweep.stop))
            w.update_from(sc, self.curves)
        w.show()
        rng = sc.view.roofline if plot == "roofline" else None
        if rng is not None:
            w.set_view(list(rng))
        else:
            w.fit()
        if plot == "roofline":
            self._add_levels(w)
        return w

    def _add_levels(self, w) -> None:
        """The memory levels' roofs and points of tiled matmuls, as the window shows them."""
        from roofgui.plotting.levels_layer import LevelsLayer
        from roofgui.presentation.levels_geom import levels_geometry

        g = levels_geometry(self.evaluation, w.geometry.colours)
        if g.roofs or g.marks:
            self.levels = LevelsLayer(w)
            self.levels.set_geometry(g)

    def settle(self) -> None:
        """Let Qt and pyqtgraph finish the offscreen plot's layout.

        pyqtgraph finishes some layout while painting (an axis sizes itself to its
        tick labels, a text item takes its transform), so the scene is painted once
        between two passes of events, onto a 1 × 1 image: every item's paint runs and
        the raster engine clips nearly all of it away.  The widget's own paint events
        are off (its viewport's updates are disabled): at 4K they cost about a second."""
        from PySide6.QtCore import QEventLoop, QRectF
        from PySide6.QtGui import QImage, QPainter
        from PySide6.QtWidgets import QApplication

        # layout requests only: no user input (the export dialog must not be closed mid-render)
        flags = QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents
        for warm_up in (True, False):
            for _ in range(3):
                QApplication.sendPostedEvents()
                QApplication.processEvents(flags)
            if warm_up:
                pixel = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
                painter = QPainter(pixel)
                rect = self.widget.viewport().rect()
                self.widget.render(painter, QRectF(rect), rect)
                painter.end()

    def plot_item(self):
        return self.widget.getPlotItem()

    def source_rect(self):
        """The plot (PlotItem) rectangle in scene coordinates."""
        return self.plot_item().sceneBoundingRect()

    @property
    def axes_rect(self):
        """The axes rectangle in picture coordinates (where the data may be drawn)."""
        view = self.plot_item().getViewBox().sceneBoundingRect()
        return view.translated(self.layout.plot_rect.topLeft() - self.source_rect().topLeft())

    def _place_legend(self) -> str | None:
        """The corner the plot put its legend in (None without a legend)."""
        legend = self.widget.legend
        return self.widget.legend_corner if legend is not None and legend.isVisible() else None

    def _clip_curves_to_view(self) -> None:
        """Cut every line to the axes, so vector files carry no geometry outside the plot
        area; markers and text are left to the clip path."""
        import numpy as np
        import pyqtgraph as pg

        from roofgui.export.geometry import clip_polylines

        vb = self.plot_item().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        lines = []
        for item in vb.childGroup.childItems():
            if isinstance(item, pg.LinearRegionItem):  # region bands: to the view's width
                lo, hi = (x0, x1) if item.orientation == "vertical" else (y0, y1)
                a, b = item.getRegion()
                a, b = max(a, lo), min(b, hi)
                item.setRegion((a, b)) if a < b else item.setVisible(False)
            elif isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)) \
                    and item.opts.get("symbol") is None and item.opts.get("connect") != "pairs":
                x, y = item.xData, item.yData  # (a grid draws its own pairs: left alone)
                if x is not None and y is not None and len(x):
                    lines.append((item, np.asarray(x, float), np.asarray(y, float)))
        clipped = clip_polylines([(x, y) for _, x, y in lines], x0, x1, y0, y1)
        for (item, _, _), (cx, cy) in zip(lines, clipped):
            item.setData(cx, cy, connect="finite")
            if isinstance(item, pg.PlotCurveItem):  # (one path a line: no segment joins)
                item.setSegmentedLineMode("off")
        self.settle()

    # -- painting -------------------------------------------------------------
    def paint(self, painter, per_item: bool = False) -> None:
        """Paint the whole picture with ``painter`` (on a W × H device at the figure's dpi).

        ``per_item`` paints the plot's items one by one, each with its clip set
        afresh (see :func:`~roofgui.export.paint.paint_items`), for the SVG generator."""
        from PySide6.QtCore import QPointF, QRectF, Qt
        from PySide6.QtGui import QFontMetricsF, QPainter, QPen

        st, lay = self.style, self.layout
        page = QRectF(0, 0, *self.size)
        painter.save()
        for hint in ("Antialiasing", "TextAntialiasing", "SmoothPixmapTransform"):
            painter.setRenderHint(getattr(QPainter.RenderHint, hint), True)
        bg = qcolor(st.background)
        if bg.alpha() > 0:
            painter.fillRect(page, bg)
        painter.setClipRect(page)
        if lay.title_lines:
            painter.setFont(lay.title_font)
            painter.setPen(QPen(qcolor(st.foreground)))
            tfm = QFontMetricsF(lay.title_font)
            for k, line in enumerate(lay.title_lines):
                painter.drawText(QPointF(lay.title_rect.left(), lay.title_rect.top() + tfm.ascent()
                                         + k * tfm.lineSpacing()), line)
        self._paint_plot(painter, per_item)
        # set the page clip again explicitly: Qt's SVG generator does not restore clips
        painter.setClipRect(page, Qt.ClipOperation.ReplaceClip)
        if lay.caption_lines:
            painter.setFont(lay.caption_font)
            painter.setPen(QPen(qcolor(st.muted)))
            fm = QFontMetricsF(lay.caption_font)
            y = lay.caption_rect.top() + fm.ascent()
            for line in lay.caption_lines:
                painter.drawText(QPointF(lay.caption_rect.left(), y), line)
                y += fm.lineSpacing()
        painter.restore()

    def _paint_plot(self, painter, per_item: bool) -> None:
        scene = self.widget.scene()
        items = [it for it in scene.items() if hasattr(it, "setExportMode")]
        opts = {"antialias": True, "background": qcolor(self.style.background), "painter": painter}
        for it in items:
            it.setExportMode(True, opts)
        try:
            if per_item:
                paint_items(painter, scene, self.source_rect(), self.layout.plot_rect)
            else:
                scene.render(painter, self.layout.plot_rect, self.source_rect())
        finally:
            for it in items:
                it.setExportMode(False, None)

    # -- outputs --------------------------------------------------------------
    def image(self):
        """The picture as a W × H ARGB image."""
        from PySide6.QtGui import QImage

        return self.painted_image().convertToFormat(QImage.Format.Format_ARGB32)

    def painted_image(self):
        """The picture as painted: RGB32 on an opaque background, premultiplied ARGB on
        a translucent one; its resolution is the figure's dpi."""
        from PySide6.QtGui import QImage, QPainter

        opaque = qcolor(self.style.background).alpha() == 255
        fmt = QImage.Format.Format_RGB32 if opaque else QImage.Format.Format_ARGB32_Premultiplied
        img = QImage(*self.size, fmt)
        dpm = round(self.dpi / 0.0254)  # fonts in points resolve as in the plot's layout
        img.setDotsPerMeterX(dpm)
        img.setDotsPerMeterY(dpm)
        if not opaque:
            img.fill(0)  # (an opaque background is painted over every pixel anyway)
        p = QPainter(img)
        try:
            self.paint(p)
        finally:
            p.end()
        return img

    def png_bytes(self) -> bytes:
        return encode_png(self.painted_image())

    def svg_bytes(self) -> bytes:
        title = self.options.title or self.scenario.title or "Roofline"
        return vector.svg_bytes(lambda p: self.paint(p, per_item=True), *self.size, self.dpi,
                                title, self.layout.caption_text or "Roofline Explorer")

    def pdf_bytes(self) -> bytes:
        title = self.options.title or self.scenario.title or "Roofline"
        return vector.pdf_bytes(self.paint, *self.size, self.dpi, title)

    def close(self) -> None:
        """Delete the offscreen plot now: a deferred delete waits for an event loop to run
        it, and a process with none (``roofgui export``, a script, the soak's window driven
        from a loop of its own) kept every figure's plot (issue 28)."""
        from PySide6.QtCore import QCoreApplication, QEvent

        if self.widget is not None:
            self.widget.hide()
            self.widget.setParent(None)
            self.widget.deleteLater()
            QCoreApplication.sendPostedEvents(self.widget, QEvent.Type.DeferredDelete)
            self.widget = None

    def __enter__(self) -> "Figure":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
