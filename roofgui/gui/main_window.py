"""The main window: it assembles the parts and delegates to them.

* :class:`~roofgui.gui.document.ScenarioDocument` holds the scenario, the file and undo;
  :class:`~roofgui.gui.document.DocumentController` the File/Edit actions and the session.
* :class:`~roofgui.gui.form.ScenarioForm` and :class:`~roofgui.gui.chips_panel.ChipsPanel`
  write the scenario; :class:`LiveEvaluator` evaluates it through the model once per
  burst of edits and hands the result to the plots, the results panel and the notice bar.

The window itself computes nothing.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QPalette
from PySide6.QtWidgets import (QApplication, QDockWidget, QFrame, QHBoxLayout, QLabel,
                               QMainWindow, QScrollArea, QStackedWidget, QTabWidget, QToolButton,
                               QVBoxLayout, QWidget)

from roofgui.model.catalog import Catalog
from roofgui.model.errors import ModelError
from roofgui.model.ops import load_optional_op_kinds
from roofgui.presentation.plotdata import assign_colours
from roofgui.model.scenario import Scenario
from roofgui.model.evaluate import Evaluation, evaluate_scenario, resolve_chips, sweep_scenario
from roofgui.gui.autosave import Autosaver
from roofgui.gui.chips_panel import ChipsPanel
from roofgui.gui.document import DocumentController, ScenarioDocument
from roofgui.gui.form import ScenarioForm, SweepControls
from roofgui.gui.results import ResultsPanel
from roofgui.gui.widgets import ShownParts

APP_TITLE = "Roofline Explorer"
TAB_ROOFLINE, TAB_SWEEP = 0, 1


def palette_is_dark(palette: QPalette | None = None) -> bool:
    p = palette or QApplication.palette()
    return p.color(QPalette.ColorRole.Window).lightness() < 128


class NoticeBar(QFrame):
    """Problems the model reported (a chip without a link, a dtype with no peak …), above the plot."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notices")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        self.icon = QLabel("⚠")
        lay.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName("Notices")
        lay.addWidget(self.label, 1)
        self._messages: list[str] = []
        self._dark: bool | None = None
        self._restyle()
        self.hide()

    def _restyle(self) -> None:
        dark = palette_is_dark(QApplication.palette())
        if dark == self._dark:  # a style sheet change is itself a palette change: stop there
            return
        self._dark = dark
        bg, fg, border = (("#3a3000", "#ffe08a", "#6b5a00") if dark
                          else ("#fff4ce", "#5c4400", "#e0c060"))
        self.setStyleSheet(f"#notices {{ background: {bg}; border: 1px solid {border}; "
                           f"border-radius: 4px; }} #notices QLabel {{ color: {fg}; }}")

    def changeEvent(self, e: QEvent) -> None:  # noqa: N802
        if e.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._restyle()
        super().changeEvent(e)

    def set_messages(self, messages: list[str]) -> None:
        seen: list[str] = []
        for m in messages:
            if m not in seen:
                seen.append(m)
        if seen == self._messages:
            return
        self._messages = seen
        if not seen:
            self.hide()
            self.label.clear()
            return
        shown = seen[:3]
        text = "\n".join(shown)
        if len(seen) > 3:
            text += f"\n… and {len(seen) - 3} more (hover to see all)"
        self.label.setText(text)
        self.setToolTip("\n".join(seen))
        self.show()

    def messages(self) -> list[str]:
        return list(self._messages)


def _same_drawing(a: Evaluation | None, sa, b: Evaluation, sb) -> bool:
    """Whether the roofline of ``b`` is the one already drawn for ``a``: the same chips, the
    same settings and the very same analyses (the model reuses them for unchanged ops), under
    the same labels.  Selecting another op, for one, changes nothing on the plot."""
    if a is None or sa != sb or len(a.chips) != len(b.chips) or len(a.entries) != len(b.entries):
        return False
    return (all(x is y for x, y in zip(a.chips, b.chips))
            and all(x.analysis is y.analysis and x.op_index == y.op_index and x.phase == y.phase
                    and x.chip_id == y.chip_id and x.label == y.label
                    for x, y in zip(a.entries, b.entries)))


class LiveEvaluator(QObject):
    """Evaluate the scenario through the model and show the result, once per burst of edits.

    ``schedule()`` starts a zero-interval single-shot timer: every edit made
    before control returns to the event loop (a burst of keystrokes, spin-wheel
    steps, an undo of several fields) is drawn by one evaluation, with no
    added delay.  Only the visible plot is drawn (the other when its tab is
    shown).  The panels around it (results table and working, the chips'
    colours, the ops' bounds, notices) follow in the next pass of the event
    loop, once the plot has painted, so a keystroke's first pixels are the plot's.
    :meth:`flush` does both at once.
    """

    evaluated = Signal(object)  # Evaluation

    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.w = window
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.refresh)
        self.panels_timer = QTimer(self)
        self.panels_timer.setSingleShot(True)
        self.panels_timer.setInterval(0)
        self.panels_timer.timeout.connect(self.refresh_panels)
        # The refresh asks for the plot's repaint, which the next pass of the event loop
        # delivers ahead of its timers; this hop starts the panels' timer from that pass,
        # so the panels' update runs in the pass after the plot's paint, not in it.
        self.hop_timer = QTimer(self)
        self.hop_timer.setSingleShot(True)
        self.hop_timer.setInterval(0)
        self.hop_timer.timeout.connect(self.panels_timer.start)
        self._evaluation: Evaluation | None = None
        self._evaluation_stale = False  # an edit not yet evaluated (see evaluation)
        self.sweep_errors: list[str] = []
        self._sweep_stale = True
        self._settings = None
        #: what the roofline plot shows (it is redrawn only while its tab is visible)
        self._drawn: tuple[Evaluation | None, object] = (None, None)
        #: palette slot per chip id, shared by every plot: a chip has one colour throughout
        self.colours: dict[str, int] = {}
        self.count = 0
        #: (analysis, phase, (its label, its bound)) of the last panels' update
        self._bounds_seen: list[tuple[object, str, tuple[str, str]]] = []

    def schedule(self, *_args) -> None:
        self._sweep_stale = True
        if not self.timer.isActive():
            self.timer.start()

    def flush(self) -> None:
        """Run a pending evaluation, and the panels' update after it, now (tests, export)."""
        if self.timer.isActive():
            self.timer.stop()
            self.refresh()
        if self.panels_timer.isActive() or self.hop_timer.isActive():
            self.hop_timer.stop()
            self.refresh_panels()
        self.w.roofline_plot.flush_legend()  # (placed after the plot's paint: see there)
        if self.w._sweep_plot is not None:
            self.w._sweep_plot.flush_legend()

    def pending(self) -> bool:
        """Whether an evaluation, a panels' update or a plot legend's placement is still
        to come."""
        sp = self.w._sweep_plot
        return (self.timer.isActive() or self.hop_timer.isActive()
                or self.panels_timer.isActive() or self.w.roofline_plot.legend_pending()
                or (sp is not None and sp.legend_pending()))

    @property
    def evaluation(self) -> Evaluation | None:
        """The roofline evaluation of the scenario as it is (evaluated when first read
        after an edit: on the Sweep tab that is the panels' update, after the plot)."""
        if self._evaluation_stale:
            self._evaluate()
        return self._evaluation

    def _evaluate(self) -> None:
        w = self.w
        sc = w.doc.scenario
        ev = evaluate_scenario(sc, w.catalog)
        self.colours = assign_colours([c.id for c in ev.chips], self.colours,
                                      len(w.roofline_plot.style.palette))
        self._evaluation, self._settings = ev, sc.settings()
        self._evaluation_stale = False

    def refresh(self) -> None:
        w = self.w
        sc = w.doc.scenario
        self.count += 1
        if w.tabs.currentIndex() == TAB_SWEEP:
            # The sweep needs the chips' colours, not the roofline evaluation: that is for
            # the panels, which follow the plot's paint (and the roofline, when shown).
            self._evaluation_stale = True
            chips, _ = resolve_chips(sc, w.catalog)
            self.colours = assign_colours([c.id for c in chips], self.colours,
                                          len(w.roofline_plot.style.palette))
            self.refresh_sweep()  # (the roofline is redrawn when its tab is shown again)
        else:
            self._evaluate()
            self.refresh_roofline()
        self.hop_timer.start()  # (the panels follow the plot's paint: see the class docstring)

    def refresh_panels(self) -> None:
        """Show the last evaluation in the panels around the plot."""
        self.hop_timer.stop()
        self.panels_timer.stop()
        w = self.w
        sc = w.doc.scenario
        ev = self.evaluation
        if ev is None:
            return
        w.results.update_from(sc, ev)
        w.chips_panel.set_colours(w.chip_colours())
        bounds: dict[int, list[tuple[str, str]]] = {}
        # (an unchanged op keeps its analyses: their labels and bounds are reused)
        seen = {(id(a), p): (a, wb) for a, p, wb in self._bounds_seen}
        now: list[tuple[object, str, tuple[str, str]]] = []
        for e in ev.entries:
            hit = seen.get((id(e.analysis), e.phase))
            if hit is not None and hit[0] is e.analysis:
                wb = hit[1]
            else:
                wb = (e.analysis.chip.label() + (f" · {e.phase}" if e.phase else ""),
                      str(e.analysis.result.bound))
            now.append((e.analysis, e.phase, wb))
            bounds.setdefault(e.op_index, []).append(wb)
        self._bounds_seen = now
        w.form.ops.set_bounds(bounds)
        w.notices.set_messages(w.catalog_messages() + ev.errors
                               + (self.sweep_errors if not self._sweep_stale else []))
        self.evaluated.emit(ev)

    def refresh_roofline(self) -> None:
        """Draw the last evaluation on the roofline plot, unless it shows it already."""
        w = self.w
        sc = w.doc.scenario
        ev, settings = self.evaluation, self._settings
        if ev is None:
            return
        if not _same_drawing(*self._drawn, ev, settings):
            w.roofline_plot.update_from(sc, ev, colours=self.colours)
            self._drawn = (ev, settings)  # (another op selected: the plot is as it was)
        w.roofline_plot.set_selected_op(sc.selected if sc.ops else None)  # its label in bold

    def refresh_sweep(self) -> None:
        w = self.w
        sc = w.doc.scenario
        if w.show_sweep_view():  # an LLM step's throughput / latency against batch
            from roofgui.model.llm import llm_sweep_scenario

            res = llm_sweep_scenario(sc, w.catalog)
            self.sweep_errors = list(res.errors)
            self._sweep_stale = False
            w.llm_sweep_plot.update_from(sc, res, colours=dict(self.colours))
            if self._evaluation is not None and not self._evaluation_stale:
                w.notices.set_messages(w.catalog_messages() + self._evaluation.errors
                                       + self.sweep_errors)  # (else the panels' update does)
            return
        try:
            curves, errors = sweep_scenario(sc, w.catalog)
        except ModelError as e:
            curves, errors = [], [str(e)]
        self.sweep_errors = errors
        self._sweep_stale = False
        w.sweep_plot.update_from(sc, curves, colours=dict(self.colours))  # (as on the roofline)
        if self._evaluation is not None and not self._evaluation_stale:
            w.notices.set_messages(w.catalog_messages() + self._evaluation.errors + errors)

    def sweep_if_stale(self) -> None:
        if self._sweep_stale:
            self.refresh_sweep()


class MainWindow(QMainWindow):
    """Roofline Explorer's window: form and chips on the left, plots in the centre, results below."""

    def __init__(self, catalog: Catalog | None = None, open_path: str | Path | None = None,
                 *, restore: bool = True) -> None:
        super().__init__()
        from roofgui.plotting.plots import RooflinePlot
        from roofgui.presentation.style import screen_style

        self._screen_style = screen_style
        load_optional_op_kinds()  # (the form lists every op kind, the LLM step's too)
        self.catalog = catalog if catalog is not None else Catalog.load()
        self.setObjectName("MainWindow")
        self.setWindowTitle(APP_TITLE)
        self.setDockNestingEnabled(True)
        self.setAcceptDrops(True)  # drop a scenario file on the window to open it
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._layout_restored = False
        self.doc = ScenarioDocument(parent=self)
        self.controller = DocumentController(self.doc, self)
        self.controller.messageShown.connect(lambda m: self.statusBar().showMessage(m, 5000))

        # centre: title, notices, tabs
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
        self.roofline_plot.use_screen_caches()  # (axes, legend and labels kept as pictures)
        self.roofline_plot.setAccessibleName("Roofline plot")
        self.roofline_plot.setToolTip("")
        self.tabs.addTab(self.roofline_plot, "&Roofline")
        sweep_page = QWidget()
        sl = QVBoxLayout(sweep_page)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.setSpacing(0)
        self.sweep_controls = SweepControls(self.doc)
        sl.addWidget(self.sweep_controls)
        # the sweep plots are built when the tab first shows them (see sweep_plot), and
        # the LLM step's views (throughput, per-token latency against batch) share the tab
        # (see llm_sweep_plot): neither costs anything at start-up
        self._sweep_plot = None
        from roofgui.gui.llm_choices import install_sweep_choices

        self._llm_sweep_plot = None
        self.sweep_stack = QStackedWidget()
        sl.addWidget(self.sweep_stack, 1)
        install_sweep_choices(self.sweep_controls)
        self.tabs.addTab(sweep_page, "S&weep")
        self.tabs.setTabToolTip(TAB_ROOFLINE, "Attainable FLOP/s against arithmetic intensity (Ctrl+1)")
        self.tabs.setTabToolTip(TAB_SWEEP, "Attainable FLOP/s or time against one dimension; for an "
                                "LLM step, throughput or per-token latency against batch (Ctrl+2)")
        fit = QToolButton()
        fit.setText("Fit")
        fit.setAccessibleName("Fit")
        fit.setToolTip("Reset the zoom to show everything (Ctrl+0)")
        fit.clicked.connect(self.fit_view)
        fit.setAutoRaise(True)
        self.tabs.setCornerWidget(fit, Qt.Corner.TopRightCorner)
        cl.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        # docks
        self.form = ScenarioForm(self.doc, self.catalog)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.form)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.form_dock = self._dock("Scenario", "scenarioDock", scroll, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.chips_panel = ChipsPanel(self.doc, self.catalog)
        self.chips_dock = self._dock("Chips", "chipsDock", self.chips_panel,
                                     Qt.DockWidgetArea.LeftDockWidgetArea)
        self.splitDockWidget(self.form_dock, self.chips_dock, Qt.Orientation.Vertical)
        self.results = ResultsPanel()
        self.results_dock = self._dock("Results", "resultsDock", self.results,
                                       Qt.DockWidgetArea.BottomDockWidgetArea)
        self.results_dock.dockLocationChanged.connect(self._results_moved)
        scroll.setMinimumWidth(self.form.minimumSizeHint().width() + 4)
        self.resize(1440, 900)

        # live evaluation
        self.live = LiveEvaluator(self)
        self._heading_shown = ShownParts(lambda sc: sc.title)
        self.doc.changed.connect(self.live.schedule)
        self.doc.changed.connect(self._update_heading)
        self.doc.fileChanged.connect(self._update_title)
        self.doc.replaced.connect(self._on_replaced)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.roofline_plot.viewChangedByUser.connect(self.doc.set_view)
        self.roofline_plot.opClicked.connect(self.select_op)
        self._build_menus()
        self._apply_palette()
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_color_scheme)

        # what to show first
        self._default_state = self.saveState()
        if restore:
            self._restore_layout()
        opened = False
        if open_path is not None:
            opened = self.controller.open_path(open_path, ask=False)
        if not opened and restore:
            opened = self.controller.restore_session()
        if not opened:
            self.doc.load(self.doc.scenario)  # the default example (first launch)
        # unsaved work is autosaved; after a crash the next launch offers it back
        self.autosaver = Autosaver(self.doc, self)
        self.autosaver.message.connect(lambda m: self.statusBar().showMessage(m, 15000))
        if restore:
            self.autosaver.offer_restore(self)
        if self.catalog.errors:
            self.statusBar().showMessage(
                f"{len(self.catalog.errors)} chip file(s) could not be read: "
                + "; ".join(str(e) for e in self.catalog.errors[:2]), 15000)
        # Lay the window out now, at its size, as show() will: the plots then see one
        # resize fewer on the way to the first paint (each costs a relayout of every item).
        self.layout().activate()
        if not self._layout_restored:
            self._default_dock_sizes()  # (again in the first showEvent, for the size shown)
            self.layout().activate()
        self.live.flush()
        self._update_title()
        self._update_heading()
        if os.environ.get("ROOFGUI_BENCH_FIRST_PAINT"):  # tests/bench/bench_cold.py
            from roofgui.gui.first_paint import install

            install(self.current_plot().viewport(), os.environ["ROOFGUI_BENCH_FIRST_PAINT"])

    # -- construction helpers --------------------------------------------------------
    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(name)
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                      | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                      | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, d)
        return d

    def _build_menus(self) -> None:
        c = self.controller
        mb = self.menuBar()
        file = mb.addMenu("&File")
        file.addAction(c.new_action)
        file.addAction(c.open_action)
        file.addMenu(c.recent_menu)
        file.addMenu(c.examples_menu)
        file.addSeparator()
        file.addAction(c.save_action)
        file.addAction(c.save_as_action)
        file.addSeparator()
        self.export_action = QAction("&Export…", self)
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        self.export_action.setStatusTip("Export the plot as PNG, SVG or PDF, or the data as CSV")
        self.export_action.triggered.connect(self.open_export)
        self.copy_image_action = QAction("&Copy Plot Image", self)
        self.copy_image_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.copy_image_action.setStatusTip("Copy the current plot to the clipboard as an image")
        self.copy_image_action.triggered.connect(self.copy_plot_image)
        available = importlib.util.find_spec("roofgui.gui.export_dialog") is not None
        self.export_action.setEnabled(available)
        self.copy_image_action.setEnabled(available)
        if not available:
            self.export_action.setToolTip("Export is not available in this build")
        file.addAction(self.export_action)
        file.addAction(self.copy_image_action)
        file.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        quit_action.triggered.connect(self.close)
        file.addAction(quit_action)
        self.quit_action = quit_action

        edit = mb.addMenu("&Edit")
        edit.addAction(c.undo_action)
        edit.addAction(c.redo_action)
        edit.addSeparator()
        ops = self.form.ops
        self.add_op_action = QAction("&Add Op", self)
        self.add_op_action.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.add_op_action.triggered.connect(lambda: ops.add_op())
        edit.addAction(self.add_op_action)
        dup = edit.addAction("&Duplicate Op")
        dup.triggered.connect(ops.duplicate_op)
        rem = edit.addAction("&Remove Op")
        rem.triggered.connect(ops.remove_op)

        view = mb.addMenu("&View")
        for i, (text, key) in enumerate((("&Roofline", "Ctrl+1"), ("&Sweep", "Ctrl+2"))):
            a = view.addAction(text)
            a.setShortcut(QKeySequence(key))
            a.triggered.connect(lambda _=False, i=i: self.tabs.setCurrentIndex(i))
        fit = view.addAction("&Fit View")
        fit.setShortcut(QKeySequence("Ctrl+0"))
        fit.triggered.connect(self.fit_view)
        view.addSeparator()
        for d in (self.form_dock, self.chips_dock, self.results_dock):
            view.addAction(d.toggleViewAction())
        view.addSeparator()
        view.addAction("Reset &Layout").triggered.connect(self.reset_layout)

        chips = mb.addMenu("&Chips")
        chips.addAction("Show &Spec…").triggered.connect(self.chips_panel.show_spec)
        chips.addAction("&New Custom Chip…").triggered.connect(lambda: self.chips_panel.new_custom())
        chips.addAction("Find &Chip").triggered.connect(self._focus_chip_filter)

        helpm = mb.addMenu("&Help")
        helpm.addAction("&About Roofline Explorer").triggered.connect(self.show_about)

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
        self.live.flush()
        if index == TAB_SWEEP:
            self.live.sweep_if_stale()
        else:
            self.live.refresh_roofline()  # (a no-op when it already shows this)

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
        # a new document: show its saved zoom, or fit
        self.live.flush()
        # (labels follow at the next evaluation or paint, whichever comes first)
        self.roofline_plot.set_view(self.doc.scenario.view.roofline, layout=False)
        for p in (self._sweep_plot, self._llm_sweep_plot):
            if p is not None:
                p.fit(layout=False)

    def _update_title(self) -> None:
        # (Qt is told only of a change)
        title, modified = f"{self.doc.display_name()}[*] — {APP_TITLE}", self.doc.is_modified()
        if title != self.windowTitle():
            self.setWindowTitle(title)
        if modified != self.isWindowModified():
            self.setWindowModified(modified)

    def _update_heading(self, origin: object = None) -> None:
        if not self._heading_shown.changed(self.doc.scenario, origin):
            return  # (an edit that left the title as it was)
        t = self.doc.scenario.title
        self.heading.setText(t)
        self.heading.setVisible(bool(t))

    def _results_moved(self, area: Qt.DockWidgetArea) -> None:
        vertical = area in (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        self.results.set_orientation(Qt.Orientation.Vertical if vertical else Qt.Orientation.Horizontal)

    def _focus_chip_filter(self) -> None:
        self.chips_dock.show()
        self.chips_panel.filter.setFocus()
        self.chips_panel.filter.selectAll()

    def open_export(self) -> None:
        try:
            from roofgui.gui.export_dialog import ExportDialog  # type: ignore[import-not-found]
        except ImportError as e:
            self.statusBar().showMessage(f"Export is not available: {e}", 5000)
            return
        self.live.flush()
        dlg = ExportDialog(self)
        dlg.open() if hasattr(dlg, "open") else dlg.exec()

    def copy_plot_image(self) -> None:
        self.live.flush()
        try:
            from roofgui.gui import export_dialog  # type: ignore[attr-defined]
        except ImportError:
            export_dialog = None
        fn = getattr(export_dialog, "copy_to_clipboard", None) if export_dialog else None
        if fn is not None:
            fn(self)
        else:
            QGuiApplication.clipboard().setPixmap(self.current_plot().grab())
        self.statusBar().showMessage("Plot copied to the clipboard", 3000)

    def show_about(self) -> None:
        try:
            from roofgui.gui.about import show_about
        except ImportError:
            return
        show_about(self)

    # -- palette -------------------------------------------------------------------------
    def _apply_palette(self) -> None:
        style = self._screen_style(palette_is_dark(self.palette()))
        for p in (self.roofline_plot, self._sweep_plot, self._llm_sweep_plot):
            if p is None:
                continue
            if p.style != style:
                p.set_style(style)
        self.chips_panel.set_colours(self.chip_colours())

    def _on_color_scheme(self, *_args) -> None:
        self._apply_palette()

    def changeEvent(self, e: QEvent) -> None:  # noqa: N802
        if e.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._apply_palette()
        super().changeEvent(e)

    # -- drag and drop ------------------------------------------------------------------------
    @staticmethod
    def _dropped_scenario(event) -> str | None:
        md = event.mimeData()
        if md is None or not md.hasUrls():
            return None
        for url in md.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
                return url.toLocalFile()
        return None

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if self._dropped_scenario(event):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        path = self._dropped_scenario(event)
        if path is None:
            super().dropEvent(event)
            return
        event.acceptProposedAction()
        self.controller.open_path(path)  # asks about unsaved changes first

    # -- layout and closing ------------------------------------------------------------------
    def _restore_layout(self) -> None:
        s = self.controller.settings
        geo = s.value("window/geometry")
        state = s.value("window/state")
        if isinstance(geo, QByteArray) and not geo.isEmpty():
            self.restoreGeometry(geo)
        if isinstance(state, QByteArray) and not state.isEmpty():
            self._layout_restored = self.restoreState(state)
        tab = s.value("window/tab", 0)
        try:
            self.tabs.setCurrentIndex(int(tab))
        except (TypeError, ValueError):
            pass

    def _default_dock_sizes(self) -> None:
        h = max(self.height(), 600)
        self.resizeDocks([self.form_dock], [390], Qt.Orientation.Horizontal)
        self.resizeDocks([self.form_dock, self.chips_dock], [int(h * 0.6), int(h * 0.4)],
                         Qt.Orientation.Vertical)
        self.resizeDocks([self.results_dock], [int(h * 0.32)], Qt.Orientation.Vertical)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._layout_restored:
            self._layout_restored = True
            self._default_dock_sizes()

    def reset_layout(self) -> None:
        state = getattr(self, "_default_state", None)
        for d in (self.form_dock, self.chips_dock, self.results_dock):
            d.setFloating(False)
            d.show()
        if state is not None:
            self.restoreState(state)
        self._default_dock_sizes()

    def save_layout(self) -> None:
        s = self.controller.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/tab", self.tabs.currentIndex())
        self.controller.save_session()

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.controller.maybe_save():
            event.ignore()
            return
        self.save_layout()
        self.autosaver.finish()  # a clean exit: no autosave left to offer
        event.accept()
