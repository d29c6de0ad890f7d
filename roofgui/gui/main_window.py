"""The main window: it assembles the parts and delegates to them.

* :class:`~roofgui.gui.document.ScenarioDocument` holds the scenario, the file and undo;
  :class:`~roofgui.gui.controller.DocumentController` the File/Edit actions and the session.
* :class:`~roofgui.gui.form.ScenarioForm` and :class:`~roofgui.gui.chips_panel.ChipsPanel`
  write the scenario; :class:`~roofgui.gui.live.LiveEvaluator` evaluates it through the
  model once per burst of edits and hands the result to the plots, the results panel and
  the notice bar.  The window itself computes nothing.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QFrame, QLabel, QMainWindow, QScrollArea,
                               QStackedWidget, QTabWidget, QToolButton, QVBoxLayout, QWidget)

from roofgui.gui.autosave import Autosaver
from roofgui.gui.chips_panel import ChipsPanel
from roofgui.gui.controller import DocumentController
from roofgui.gui.document import ALL, TITLE, ScenarioDocument
from roofgui.gui.form import ScenarioForm, SweepControls
from roofgui.gui.heap import pin_mmap_threshold
from roofgui.gui.keyboard import make_focusable, next_in_chain
from roofgui.gui.live import TAB_ROOFLINE, TAB_SWEEP, LiveEvaluator
from roofgui.gui.llm_choices import install_sweep_choices
from roofgui.gui.first_paint import after_first_paint, stamp_first_paint
from roofgui.gui.menus import build_menus
from roofgui.gui.notice_bar import NoticeBar, palette_is_dark
from roofgui.gui import window_layout as wl
from roofgui.gui.results import ResultsPanel
from roofgui.model.catalog import Catalog
from roofgui.model.ops import load_optional_op_kinds
from roofgui.model.evaluate import Evaluation
from roofgui.model.scenario import Scenario
from roofgui.plotting.plots import RooflinePlot
from roofgui.presentation.style import screen_style

APP_TITLE = "Roofline Explorer"
__all__ = ["APP_TITLE", "MainWindow", "TAB_ROOFLINE", "TAB_SWEEP", "palette_is_dark"]


class MainWindow(QMainWindow):
    """Roofline Explorer's window: form and chips on the left, plots in the centre, results below."""

    def __init__(self, catalog: Catalog | None = None, open_path: str | Path | None = None,
                 *, restore: bool = True, defer_features: bool = False) -> None:
        super().__init__()
        pin_mmap_threshold()  # (view-sized pictures mapped and returned: see roofgui.gui.heap)
        load_optional_op_kinds()  # (the form lists every op kind, the LLM step's too)
        self.catalog = catalog if catalog is not None else Catalog.load()
        self.setObjectName("MainWindow")
        self.setWindowTitle(APP_TITLE)
        self.setDockNestingEnabled(True)
        self.setAcceptDrops(True)  # drop a scenario file on the window to open it
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._layout_restored = False
        self.features = None  # (roofgui.gui.features, once installed)
        self.doc = ScenarioDocument(parent=self)
        self.controller = DocumentController(self.doc, self)
        self.controller.messageShown.connect(lambda m: self.statusBar().showMessage(m, 5000))
        self.setCentralWidget(self._build_centre())
        self._build_docks()
        wl.first_size(self)
        self.live = LiveEvaluator(self)
        self.doc.changed.connect(self.live.on_changed)
        self.doc.changed.connect(self._update_heading)
        self.doc.fileChanged.connect(self._update_title)
        self.doc.replaced.connect(self._on_replaced)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.roofline_plot.viewChangedByUser.connect(self.doc.set_view)
        self.roofline_plot.opClicked.connect(self.select_op)
        self.results.summary.opChosen.connect(self.select_op)
        build_menus(self)
        make_focusable(self)
        self._apply_palette()
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(lambda *_: self._apply_palette())
        self._default_state = self.saveState()
        self._open_first(open_path, restore)
        if defer_features:  # (a cold start: the plot first, then the rest)
            after_first_paint(self.current_plot().viewport(), self.install_features)
        else:
            self.install_features()
        stamp_first_paint(self.current_plot().viewport())  # (last: its filter runs first)

    def install_features(self) -> None:
        """Measured kernels, memory levels, the LLM step's breakdown and frontier (once)."""
        if self.features is None:
            from roofgui.gui import features  # (imported here: ~70 ms of a cold start)

            features.install_features(self)
            self.features = features

    # -- construction helpers --------------------------------------------------------
    def _build_centre(self) -> QWidget:
        """The title, the notices and the tabs of plots."""
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(6, 6, 6, 0)
        cl.setSpacing(4)
        self.heading = QLabel()
        self.heading.setObjectName("scenarioTitle")
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        hf = self.heading.font()
        hf.setPointSizeF(hf.pointSizeF() * 1.25)
        hf.setBold(True)
        self.heading.setFont(hf)
        cl.addWidget(self.heading)
        self.notices = NoticeBar()
        cl.addWidget(self.notices)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.roofline_plot = RooflinePlot()
        self.roofline_plot.use_screen_caches()
        self.roofline_plot.setAccessibleName("Roofline plot")
        self.roofline_plot.setToolTip("")
        self.tabs.addTab(self.roofline_plot, "&Roofline")
        self.tabs.addTab(self._build_sweep_page(), "S&weep")
        self.tabs.setTabToolTip(TAB_ROOFLINE, "Attainable FLOP/s against arithmetic intensity (Ctrl+1)")
        self.tabs.setTabToolTip(TAB_SWEEP, "Attainable FLOP/s or time against one dimension; for an "
                                "LLM step, throughput or per-token latency against batch (Ctrl+2)")
        fit = QToolButton(text="Fit", accessibleName="Fit")
        fit.setToolTip("Reset the zoom to show everything (Ctrl+0)")
        fit.clicked.connect(self.fit_view)
        fit.setAutoRaise(True)
        self.tabs.setCornerWidget(fit, Qt.Corner.TopRightCorner)
        cl.addWidget(self.tabs, 1)
        return central

    def _build_sweep_page(self) -> QWidget:
        """The sweep controls over a stack for the sweep plots.  The plots are built when
        the tab first shows them (see :attr:`sweep_plot`); the LLM step's views share it."""
        page = QWidget()
        sl = QVBoxLayout(page)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.setSpacing(0)
        self.sweep_controls = SweepControls(self.doc)
        sl.addWidget(self.sweep_controls)
        self._sweep_plot = self._llm_sweep_plot = None
        self.sweep_stack = QStackedWidget()
        sl.addWidget(self.sweep_stack, 1)
        install_sweep_choices(self.sweep_controls)
        return page

    def _build_docks(self) -> None:
        self.form = ScenarioForm(self.doc, self.catalog)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.form)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        self.form_dock = wl.add_dock(self, "Scenario", "scenarioDock", scroll, left)
        self.chips_panel = ChipsPanel(self.doc, self.catalog)
        self.chips_dock = wl.add_dock(self, "Chips", "chipsDock", self.chips_panel, left)
        self.splitDockWidget(self.form_dock, self.chips_dock, Qt.Orientation.Vertical)
        self.results = ResultsPanel()
        self.results_dock = wl.add_dock(self, "Results", "resultsDock", self.results,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.results_dock.dockLocationChanged.connect(self._results_moved)
        scroll.setMinimumWidth(self.form.minimumSizeHint().width() + 4  # (and its scroll bar)
                               + scroll.verticalScrollBar().sizeHint().width())

    def _open_first(self, open_path: str | Path | None, restore: bool) -> None:
        """What to show first: the file asked for, the last session, or the default example."""
        if restore:
            self._layout_restored = wl.restore_layout(self, self.controller.settings)
        opened = failed = False
        if open_path is not None:  # (unreadable: said in the notice bar, not in a box before
            opened = self.controller.open_path(open_path, ask=False, modal=False)  # the window)
            failed = not opened
        if not opened and restore:
            opened = self.controller.restore_session()
        if not opened:
            self.doc.load(self.doc.scenario)  # the default example (first launch)
        if failed:
            self.live.opened_notices.append(f"Cannot open scenario: {self.controller.open_error}")
        # unsaved work is autosaved; after a crash the next launch offers it back
        self.autosaver = Autosaver(self.doc, self)
        self.autosaver.message.connect(lambda m: self.statusBar().showMessage(m, 15000))
        if restore:
            self.autosaver.offer_restore(self)
        if self.catalog.errors:
            self.statusBar().showMessage(
                f"{len(self.catalog.errors)} chip file(s) could not be read: "
                + "; ".join(str(e) for e in self.catalog.errors[:2]), 15000)
        if not self._layout_restored:
            wl.default_dock_sizes(self)  # (again in the first showEvent, for the size shown)
        self.live.flush()
        self._update_title()
        self._update_heading(ALL)

    # -- reading (export, tests) --------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        return self.doc.scenario

    @property
    def evaluation(self) -> Evaluation | None:
        return self.live.evaluation

    def current_plot(self):
        if self.tabs.currentIndex() != TAB_SWEEP:
            return self.roofline_plot
        return self.llm_sweep_plot if self.show_sweep_view() else self.sweep_plot

    @property
    def sweep_plot(self):
        """The sweep plot (:class:`~roofgui.plotting.sweep_plot.SweepPlot`), built on first use."""
        if self._sweep_plot is None:
            from roofgui.plotting.sweep_plot import SweepPlot

            p = SweepPlot(style=self.roofline_plot.style)  # (the window's style: _apply_palette)
            p.use_screen_caches()  # (an edit strokes the edited op's curves only)
            p.setAccessibleName("Sweep plot")
            self.sweep_stack.insertWidget(0, p)  # (the LLM view, if built already, stays shown)
            self._sweep_plot = p
        return self._sweep_plot

    @property
    def llm_sweep_plot(self):
        """The LLM step's sweep views (:class:`~roofgui.plotting.llm_sweep.LlmSweepPlot`), built on first use."""
        if self._llm_sweep_plot is None:
            from roofgui.plotting.llm_sweep import LlmSweepPlot

            p = LlmSweepPlot(style=self.roofline_plot.style)
            p.setAccessibleName("LLM sweep plot")
            self.sweep_stack.addWidget(p)
            self._llm_sweep_plot = p
        return self._llm_sweep_plot

    def built_plots(self) -> list:
        """The plots built so far (the sweep plots are built when first shown)."""
        return [p for p in (self.roofline_plot, self._sweep_plot, self._llm_sweep_plot)
                if p is not None]

    def show_sweep_view(self) -> bool:
        """Show the sweep's LLM view (or the generic one), as the scenario asks; True for LLM."""
        from roofgui.plotting.llm_sweep import is_llm_view

        llm_view = is_llm_view(self.doc.scenario.sweep.y)
        if llm_view or self._llm_sweep_plot is not None:
            self.sweep_stack.setCurrentWidget(self.llm_sweep_plot if llm_view else self.sweep_plot)
        return llm_view

    def catalog_messages(self) -> list[str]:
        """Chip files that could not be read (each names the file, the key and the problem)."""
        return [f"Chip file skipped: {e}" for e in self.catalog.errors]

    def chip_colours(self) -> dict[str, str]:
        style = self.roofline_plot.style
        return {cid: style.colour(slot) for cid, slot in self.live.colours.items()}

    # -- slots ---------------------------------------------------------------------------
    def _tab_changed(self, index: int) -> None:
        if index in (TAB_ROOFLINE, TAB_SWEEP):  # (saved: the file reopens on it)
            self.doc.set_tab(("roofline", "sweep")[index])
        self.live.flush()
        self.live.show_tab(index)  # (a no-op when it shows the last evaluation already)
        make_focusable(self)  # (a sweep plot built just now)

    def select_op(self, index: int) -> None:
        """Select an op (clicked on the roofline): the op list, the form and the results follow."""
        if 0 <= index < self.form.ops.list.count():
            self.form.ops.list.setCurrentRow(index)

    def fit_view(self) -> None:
        if self.tabs.currentIndex() == TAB_SWEEP:
            self.current_plot().fit()
        else:
            self.roofline_plot.fit()
            self.doc.set_view(None)

    def _on_replaced(self) -> None:
        """A new document: show its saved zoom, or fit."""
        self.live.flush()
        # (labels follow at the next evaluation or paint, whichever comes first)
        view = self.doc.scenario.view
        self.roofline_plot.set_view(view.roofline, layout=False)
        for p in self.built_plots()[1:]:
            p.fit(layout=False)
        if view.tab is not None:  # (else the tab on show stays)
            self.tabs.setCurrentIndex({"sweep": TAB_SWEEP}.get(view.tab, TAB_ROOFLINE))

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.doc.display_name()}[*] — {APP_TITLE}")
        self.setWindowModified(self.doc.is_modified())

    def _update_heading(self, part: str, _origin: object = None) -> None:
        if part not in (TITLE, ALL):
            return
        t = self.doc.scenario.title
        self.heading.setText(t)
        self.heading.setVisible(bool(t))

    def _results_moved(self, area: Qt.DockWidgetArea) -> None:
        vertical = area in (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        self.results.set_orientation(Qt.Orientation.Vertical if vertical else Qt.Orientation.Horizontal)

    def focus_chip_filter(self) -> None:
        self.chips_dock.show()
        self.chips_panel.filter.setFocus()
        self.chips_panel.filter.selectAll()

    def open_export(self) -> None:
        try:
            from roofgui.gui.export_dialog import ExportDialog
        except ImportError as e:  # (a build without export)
            self.statusBar().showMessage(f"Export is not available: {e}", 5000)
            return
        self.live.flush()
        ExportDialog(self).open()

    def copy_plot_image(self) -> None:
        self.live.flush()
        try:
            from roofgui.gui.export_dialog import copy_to_clipboard
        except ImportError:  # (a build without export: the plot as it is on screen)
            QGuiApplication.clipboard().setPixmap(self.current_plot().grab())
        else:
            copy_to_clipboard(self)
        self.statusBar().showMessage("Plot copied to the clipboard", 3000)

    def show_about(self) -> None:
        from roofgui.gui.about import show_about
        show_about(self)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt API
        """Tab and Shift+Tab: the scenario, the chips, the plots, the results, and round again."""
        target = next_in_chain(self, next)
        if target is None:
            return super().focusNextPrevChild(next)
        target.setFocus(Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason)
        return True

    # -- palette -------------------------------------------------------------------------
    def _apply_palette(self) -> None:
        style = screen_style(palette_is_dark(self.palette()))
        for p in self.built_plots():
            if p.style != style:
                p.set_style(style)
        self.chips_panel.set_colours(self.chip_colours())

    def changeEvent(self, e: QEvent) -> None:  # noqa: N802
        if e.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._apply_palette()
        super().changeEvent(e)

    # -- drag and drop ------------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if not wl.accept_drag(self, event):
            super().dragEnterEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        if not wl.take_drop(self, event):
            super().dropEvent(event)

    # -- layout and closing ------------------------------------------------------------------
    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._layout_restored:
            self._layout_restored = True
            wl.default_dock_sizes(self)

    def reset_layout(self) -> None:
        for d in (self.form_dock, self.chips_dock, self.results_dock):
            d.setFloating(False)
            d.show()
        self.restoreState(self._default_state)
        wl.default_dock_sizes(self)

    def save_layout(self) -> None:
        wl.save_layout(self, self.controller.settings)
        self.controller.save_session()

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.controller.maybe_save():
            event.ignore()
            return
        self.save_layout()
        self.autosaver.finish()  # a clean exit: no autosave left to offer
        event.accept()
