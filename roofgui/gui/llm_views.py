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
    fit = tabs.cornerWidget(Qt.Corner.TopRightCorner)

    def on_tab(i: int) -> None:
        shown = tabs.widget(i) is page
        if fit is not None:
            fit.setVisible(not shown)  # (the window's Fit acts on its own plots)
        if shown:
            page.refresh()

    tabs.currentChanged.connect(on_tab)
    action = window.addAction(FRONTIER_TAB_TEXT.replace("&", ""))
    action.setShortcut(QKeySequence("Ctrl+3"))
    action.triggered.connect(lambda: tabs.setCurrentWidget(page))
    _add_to_view_menu(window, action)
    return page


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
