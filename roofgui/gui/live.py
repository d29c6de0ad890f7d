"""The live evaluation: the scenario through the model, once per burst of edits, onto the
plots and the panels around them."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from roofgui.gui.document import ALL, SELECTED, TITLE
from roofgui.model.errors import ModelError
from roofgui.model.evaluate import Evaluation, evaluate_scenario, resolve_chips, sweep_scenario
from roofgui.presentation.plotdata import assign_colours
from roofgui.plotting.sweep_focus import selected_op
from roofgui.presentation.polylines import drawn_samples

TAB_ROOFLINE, TAB_SWEEP = 0, 1


def op_bounds(ev: Evaluation) -> dict[int, list[tuple[str, str]]]:
    """Per op: (chip and phase, what bounds it there), as the op list marks them."""
    bounds: dict[int, list[tuple[str, str]]] = {}
    for e in ev.entries:
        who = e.analysis.chip.label() + (f" · {e.phase}" if e.phase else "")
        bounds.setdefault(e.op_index, []).append((who, str(e.analysis.result.bound)))
    return bounds


class LiveEvaluator(QObject):
    """Evaluate the scenario through the model and show the result, once per burst of edits.

    A change starts a zero-interval single-shot timer: every edit made before control
    returns to the event loop (a burst of keystrokes, spin-wheel steps, an undo of several
    fields) is drawn by one evaluation, with no added delay.  The panels around the plot
    (results, chips' colours, the ops' bounds, notices) follow in the next pass of the
    event loop, after the plot's paint: they cost a few milliseconds that would otherwise
    delay its pixels (measured: see the commit that made them so).  Only the visible plot is
    drawn; the other is drawn when its tab is shown.  On the Sweep tab the roofline
    evaluation, which only the panels need there, is made after the sweep's paint too.  A title changes nothing plotted,
    and another op selected needs no evaluation (only the op the roofline emphasises, the
    results, and the LLM sweep, which follows the step selected, change).
    """

    evaluated = Signal(object)  # Evaluation

    def __init__(self, window) -> None:
        super().__init__(window)
        self.w = window
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.refresh)
        # The panels follow in the pass of the event loop after the plot's paint: the refresh
        # asks for the repaint, which the next pass delivers ahead of its timers; the hop
        # starts the panels' timer from that pass, so they run in the one after it.
        self.panels_timer = QTimer(self)
        self.panels_timer.setSingleShot(True)
        self.panels_timer.setInterval(0)
        self.panels_timer.timeout.connect(self.refresh_panels)
        self.hop_timer = QTimer(self)
        self.hop_timer.setSingleShot(True)
        self.hop_timer.setInterval(0)
        self.hop_timer.timeout.connect(self.panels_timer.start)
        self._evaluation: Evaluation | None = None  # (None: to evaluate when first read)
        self.sweep_errors: list[str] = []
        #: palette slot per chip id, shared by every plot: a chip has one colour throughout
        self.colours: dict[str, int] = {}
        #: refreshes run (tests: one per burst of edits)
        self.count = 0
        self.model_changed = True  # the next refresh evaluates (else: another op selected)
        self.stale = {TAB_ROOFLINE: True, TAB_SWEEP: True}  # plots to draw when shown
        #: what reading the document set right (``Scenario.notices``): shown in the notice
        #: bar from its opening until the first edit
        self.opened_notices: list[str] = []
        window.doc.replaced.connect(self.on_replaced)

    def on_replaced(self) -> None:
        """A document opened: its reading's notices show until the first edit, and its chips
        take their colours afresh (as the same file exported or opened first would)."""
        self.opened_notices = list(self.w.doc.scenario.notices)
        self.colours = {}  # (the changed(ALL) that follows evaluates and assigns them)

    @property
    def evaluation(self) -> Evaluation:
        """The roofline evaluation of the scenario as at the last refresh.  On the Sweep tab
        it is made after the sweep's paint, for the panels: the sweep needs only the chips."""
        if self._evaluation is None:
            self._evaluation = evaluate_scenario(self.w.doc.scenario, self.w.catalog)
        return self._evaluation

    def on_changed(self, part: str, _origin: object = None) -> None:
        """The document's change: evaluate again unless it changed nothing plotted."""
        if part not in (ALL, SELECTED) and self.opened_notices:
            self.opened_notices = []  # (an edit: the notices of the opening have been read)
            if part == TITLE:
                self.show_notices()  # (a title evaluates nothing: the bar is told here)
        if part == TITLE:
            return
        if part == SELECTED:
            self.stale[TAB_SWEEP] = True  # (an LLM step's sweep follows the step selected)
        else:
            self.model_changed = True
        self.schedule()

    def schedule(self) -> None:
        if not self.timer.isActive():
            self.timer.start()

    def flush(self) -> None:
        """Run a pending evaluation and panels' update now, and place the plots' legends
        (tests, export)."""
        if self.timer.isActive():
            self.refresh()
        if self.hop_timer.isActive() or self.panels_timer.isActive():
            self.refresh_panels()
        for p in self.w.built_plots():
            p.flush_layout()

    def pending(self) -> bool:
        """Whether an evaluation or a panels' update is still to come."""
        return self.timer.isActive() or self.hop_timer.isActive() or self.panels_timer.isActive()

    def refresh(self) -> None:
        """Evaluate (if the model's inputs changed) and draw the visible plot; the panels
        follow once the plot has painted."""
        self.timer.stop()
        self.count += 1
        w = self.w
        if self.model_changed:
            self.model_changed = False
            self._evaluation = None
            chips, _ = resolve_chips(w.doc.scenario, w.catalog)
            self.colours = assign_colours([c.id for c in chips], self.colours,
                                          len(w.roofline_plot.style.palette))
            self.stale = {TAB_ROOFLINE: True, TAB_SWEEP: True}
        self.show_tab(w.tabs.currentIndex())
        self.hop_timer.start()

    def show_tab(self, index: int) -> None:
        """Draw the plot of a tab, unless it shows the last evaluation already."""
        w = self.w
        sc = w.doc.scenario
        if index == TAB_SWEEP:
            if self.stale[TAB_SWEEP]:
                self.stale[TAB_SWEEP] = False
                self.draw_sweep()
                if self._evaluation is not None:  # (else the panels show the notices)
                    self.show_notices()
            return
        if self.stale[TAB_ROOFLINE]:
            self.stale[TAB_ROOFLINE] = False
            w.roofline_plot.update_from(sc, self.evaluation, colours=self.colours)
        w.roofline_plot.set_selected_op(sc.selected if sc.ops else None)  # its label in bold

    def draw_sweep(self) -> None:
        w = self.w
        sc = w.doc.scenario
        if w.show_sweep_view():  # an LLM step's throughput / latency against batch
            from roofgui.model.llm import llm_sweep_scenario

            res = llm_sweep_scenario(sc, w.catalog)
            self.sweep_errors = list(res.errors)
            w.llm_sweep_plot.update_from(sc, res, colours=dict(self.colours))
            return
        try:
            # (the points it draws, log-spaced over the range; the drawing adds each curve's
            # knees exactly.  An export of the sweep's table evaluates every point asked for.)
            drawn = drawn_samples(sc.sweep.start, sc.sweep.stop)
            # the curves the plot draws (focus_curves): the selected op's alone unless the
            # sweep shows every op, or that op has no such dimension (then every op's)
            only = None if sc.sweep.all_ops else selected_op(sc)
            curves, errors = sweep_scenario(sc, w.catalog, max_points=drawn, only=only)
            if only is not None and not curves:
                curves, errors = sweep_scenario(sc, w.catalog, max_points=drawn)
        except ModelError as e:
            curves, errors = [], [str(e)]
        self.sweep_errors = errors
        w.sweep_plot.update_from(sc, curves, colours=dict(self.colours))

    def show_notices(self) -> None:
        """The model's problems above the plot (the sweep's once it is drawn)."""
        w = self.w
        sweep = [] if self.stale[TAB_SWEEP] else self.sweep_errors
        w.notices.set_messages(w.catalog_messages() + self.opened_notices
                               + self.evaluation.errors + sweep)

    def refresh_panels(self) -> None:
        """Show the last evaluation in the panels around the plot."""
        self.hop_timer.stop()
        self.panels_timer.stop()
        w = self.w
        ev = self.evaluation
        w.results.update_from(w.doc.scenario, ev)
        w.chips_panel.set_colours(w.chip_colours())
        w.form.ops.set_bounds(op_bounds(ev))
        self.show_notices()
        self.evaluated.emit(ev)
