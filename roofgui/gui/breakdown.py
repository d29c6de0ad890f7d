"""An LLM step's breakdown in the window: View ▸ LLM Breakdown (Ctrl+B) shows each part of the
step as a point on the roofline and the "LLM Breakdown" panel (a table of the parts per phase
and stacked time bars).  Whether it is shown is a view preference, kept in the settings
(``view/llm_breakdown``), not in the scenario.

:func:`install_breakdown` is the hook the window calls once it is built; it uses the window's
public parts only (roofline plot, document, live evaluator, settings, menu bar, results dock).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtGui import QKeySequence

from roofgui.gui.breakdown_panel import BreakdownPanel
from roofgui.gui.keyboard import AFTER_RESULTS, add_to_chain
from roofgui.gui.menus import ensure_mnemonics
from roofgui.gui.window_layout import tabbed_dock
from roofgui.plotting.breakdown_layer import BreakdownLayer
from roofgui.presentation.llm_breakdown import Breakdown, llm_breakdown

SETTING = "view/llm_breakdown"
ACTION_TEXT = "LLM &Breakdown"


class BreakdownSession(QObject):
    """The window's breakdown: ``layer`` (the roofline's part points), ``panel`` in ``dock``,
    ``action`` (the checkable toggle: the dock's own view action) and ``breakdown`` (the last
    one computed; computed only while shown)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.setObjectName("breakdownSession")
        self.w = window
        self.breakdown: Breakdown | None = None
        self.stale = True
        self.closing = False
        self.layer = BreakdownLayer(window.roofline_plot)
        self.panel = BreakdownPanel()
        self.dock = tabbed_dock(window, "LLM Breakdown", "breakdownDock", self.panel)
        add_to_chain(window, AFTER_RESULTS, self.panel.focus_chain)
        self.action = self.dock.toggleViewAction()
        self.action.setText(ACTION_TEXT)
        self.action.setShortcut(QKeySequence("Ctrl+B"))
        tip = ("Show each part of the LLM step (projections, attention, MLP, all-reduces, LM head) "
               "on the roofline, in a table and as stacked time bars")
        self.action.setStatusTip(tip)
        self.action.setToolTip(tip)
        window.addAction(self.action)  # (its shortcut works with the menu closed)
        _add_to_view_menu(window, self.action)
        self.action.toggled.connect(self.on_toggled)
        window.live.evaluated.connect(lambda _ev: self.on_evaluated())
        window.installEventFilter(self)  # (a palette change restyles the bars)
        app = QCoreApplication.instance()
        if app is not None:  # (quitting without closing the window: the setting stays)
            app.aboutToQuit.connect(self.quitting)
        on = str(self.settings().value(SETTING, "false")).lower() == "true"
        self.dock.setVisible(on)
        self.layer.set_shown(on)
        if on:
            self.refresh()

    def quitting(self) -> None:
        self.closing = True

    def settings(self):
        return self.w.controller.settings

    def is_shown(self) -> bool:
        return self.action.isChecked()

    def on_toggled(self, on: bool) -> None:
        if self.closing or not shiboken6.isValid(self.w):  # (the docks hidden as the window
            return                                         # closes or goes: the setting stays)
        if self.dock.isHidden() == on:  # (checked in code: the dock follows, as on a click)
            self.dock.setVisible(on)
        self.settings().setValue(SETTING, "true" if on else "false")
        if on:
            QTimer.singleShot(0, self.dock.raise_)  # (once shown: in front of the results)
            self.refresh()
        self.layer.set_shown(on)

    def on_evaluated(self) -> None:
        self.stale = True
        if self.is_shown():
            self.refresh()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is not self.w:
            return False
        kind = event.type()
        if kind in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            QTimer.singleShot(0, self.restyle)
        elif kind == QEvent.Type.Close:  # (written as it is now; closing hides the docks)
            self.settings().setValue(SETTING, "true" if self.is_shown() else "false")
            self.closing = True
        elif kind == QEvent.Type.Show:
            self.closing = False
        return False

    def restyle(self) -> None:
        self.panel.set_style(self.w.roofline_plot.style)
        self.stale = True
        if self.is_shown():
            self.refresh()

    def refresh(self) -> None:
        """Break the scenario's LLM op down against the window's last evaluation."""
        if not self.stale:
            return
        self.stale = False
        w = self.w
        self.panel.style = w.roofline_plot.style
        self.breakdown = llm_breakdown(w.doc.scenario, w.evaluation)
        self.layer.set_points(self.breakdown.points, w.chip_colours())
        self.panel.set_breakdown(self.breakdown)


def _add_to_view_menu(window, action) -> None:
    """The toggle in the View menu, after the panels' toggles."""
    for top in window.menuBar().actions():
        menu = top.menu()
        if menu is None or top.text().replace("&", "") != "View":
            continue
        acts = menu.actions()
        docks = [i for i, a in enumerate(acts) if a.isCheckable()]
        at = docks[-1] + 1 if docks else len(acts)
        menu.insertAction(acts[at] if at < len(acts) else None, action)
        ensure_mnemonics(menu)


def install_breakdown(window) -> BreakdownSession:
    """Add the LLM breakdown to a built main window (once: a second call gives it back)."""
    return session(window) or BreakdownSession(window)


def session(window) -> BreakdownSession | None:
    return window.findChild(BreakdownSession, "breakdownSession")
