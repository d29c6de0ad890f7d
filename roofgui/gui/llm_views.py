"""The LLM step's views beyond the note's single step: the breakdown of a step into its parts
(:mod:`~roofgui.gui.breakdown`) and the latency–throughput frontier, a third plot tab
(View ▸ Frontier, Ctrl+3; :mod:`~roofgui.gui.frontier_page`).

:func:`install_llm_views` is the one hook the window calls once it is built.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from roofgui.gui.breakdown import install_breakdown
from roofgui.gui.frontier_page import FrontierPage
from roofgui.gui.keyboard import AFTER_PLOTS, add_to_chain
from roofgui.gui.menus import ensure_mnemonics

FRONTIER_TAB_TEXT = "Fro&ntier"


def install_llm_views(window) -> None:
    """Add the breakdown and the Frontier tab to a built main window (once)."""
    install_breakdown(window)
    if frontier_page(window) is None:
        install_frontier(window)


def frontier_page(window) -> FrontierPage | None:
    return window.findChild(FrontierPage, "frontierPage")


def install_frontier(window) -> FrontierPage:
    """The Frontier tab after the window's own; drawn when shown and the scenario changed."""
    page = FrontierPage(window)
    page.setObjectName("frontierPage")
    tabs = window.tabs
    index = tabs.addTab(page, FRONTIER_TAB_TEXT)
    tabs.setTabToolTip(index, "Tokens/s per chip against tokens/s per user over batch and "
                              "tensor parallelism, with TTFT and TPOT limits (Ctrl+3)")
    window.live.evaluated.connect(lambda _ev: page.mark_stale())
    add_to_chain(window, AFTER_PLOTS, page.focus_chain)  # (Tab: shown with its tab only)
    fit = tabs.cornerWidget(Qt.Corner.TopRightCorner)
    # the window's Fit, Export and Copy act on its own plots: off while the Frontier shows
    # (the page has its own Fit, Ctrl+0), and back as they were when it is left
    own = [a for a in (_view_action(window, "Fit View"), getattr(window, "export_action", None),
                       getattr(window, "copy_image_action", None)) if a is not None]
    was = {}

    def on_tab(i: int) -> None:
        shown = tabs.widget(i) is page
        if fit is not None:
            fit.setVisible(not shown)
        for a in own:
            if shown and a not in was:
                was[a] = a.isEnabled()
                a.setEnabled(False)
            elif not shown and a in was:
                a.setEnabled(was.pop(a))
        if shown:
            page.refresh()

    tabs.currentChanged.connect(on_tab)
    action = window.addAction(FRONTIER_TAB_TEXT.replace("&", ""))
    action.setShortcut(QKeySequence("Ctrl+3"))
    action.triggered.connect(lambda: tabs.setCurrentWidget(page))
    _add_to_view_menu(window, action)
    return page


def _view_action(window, text: str):
    """The View menu's action of that text (less its mnemonic), if any."""
    for top in window.menuBar().actions():
        if top.menu() is not None and top.text().replace("&", "") == "View":
            return next((a for a in top.menu().actions() if a.text().replace("&", "") == text), None)
    return None


def _add_to_view_menu(window, action) -> None:
    """View ▸ Frontier after View ▸ Sweep."""
    for top in window.menuBar().actions():
        menu = top.menu()
        if menu is None or top.text().replace("&", "") != "View":
            continue
        acts = menu.actions()
        at = next((i + 1 for i, a in enumerate(acts) if a.text().replace("&", "") == "Sweep"), 0)
        action.setText(FRONTIER_TAB_TEXT)
        menu.insertAction(acts[at] if at < len(acts) else None, action)
        ensure_mnemonics(menu)
