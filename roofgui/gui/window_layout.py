"""The main window's layout kept between launches, its default dock sizes, and the scenario
files dropped on it."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget

from roofgui.gui.results_layout import comfortable_height


def first_size(w) -> None:
    """The size before any saved one: 90 % of the screen's available area, centred, so a
    laptop's 1280×720 shows the whole window (a saved geometry replaces it)."""
    screen = w.screen() or QGuiApplication.primaryScreen()
    avail = screen.availableGeometry() if screen is not None else None
    if avail is None or avail.isEmpty():
        w.resize(1440, 900)
        return
    w.resize(int(avail.width() * 0.9), int(avail.height() * 0.9))
    w.move(avail.center() - w.rect().center())


def restore_layout(w, s: QSettings) -> bool:
    """The window's geometry, docks and tab as last saved; True when the docks were restored."""
    geo = _setting(s, "window/geometry")
    state = _setting(s, "window/state")
    restored = False
    if isinstance(geo, QByteArray) and not geo.isEmpty():
        w.restoreGeometry(geo)
    if isinstance(state, QByteArray) and not state.isEmpty():
        restored = w.restoreState(state)
    tab = int_setting(s, "window/tab", 0, 0, w.tabs.count() - 1)
    w.tabs.setCurrentIndex(tab)
    return restored


def int_setting(s: QSettings, key: str, default: int, lo: int, hi: int) -> int:
    """An integer setting within [lo, hi]; anything else (a string, a list, a number too
    large for Qt, a value that cannot be read) gives ``default``."""
    try:
        v = s.value(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, str)) or len(str(v)) > 20:
            return default
        n = int(v)
    except (TypeError, ValueError, OverflowError, RuntimeError):
        return default
    return n if lo <= n <= hi else default


def _setting(s: QSettings, key: str):
    try:
        return s.value(key)
    except (TypeError, ValueError, RuntimeError):  # (a value Qt cannot turn into Python)
        return None


def save_layout(w, s: QSettings) -> None:
    s.setValue("window/geometry", w.saveGeometry())
    s.setValue("window/state", w.saveState())
    s.setValue("window/tab", w.tabs.currentIndex())


def default_dock_sizes(w) -> None:
    """The form beside the plot, the chips beneath the form, the results beneath the plot:
    a third of the height, or up to 36 % (while 460 px stay for the rest) to show the
    summary's verdicts and a few of the selected op's figures."""
    h = max(w.height(), 600)
    w.resizeDocks([w.form_dock], [390], Qt.Orientation.Horizontal)
    w.resizeDocks([w.form_dock, w.chips_dock], [int(h * 0.6), int(h * 0.4)], Qt.Orientation.Vertical)
    dock = w.results_dock
    title = dock.fontMetrics().height() + 8  # (the dock's title bar)
    need = comfortable_height(w.results) + title
    grown = min(need, int(h * 0.36), h - 460)  # (the plot keeps 460 px: its legend inside)
    w.resizeDocks([dock], [max(int(h * 0.32), grown)], Qt.Orientation.Vertical)


def dropped_scenario(event) -> str | None:
    """The scenario file (``.json``) dragged onto the window, if any."""
    md = event.mimeData()
    if md is None or not md.hasUrls():
        return None
    for url in md.urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
            return url.toLocalFile()
    return None


def accept_drag(w, event) -> bool:
    """For the window's ``dragEnterEvent``: measurement files (once the window's features are
    installed) or a scenario file are accepted (True)."""
    if w.features is not None and w.features.drag_enter_measured(w, event):
        return True
    if dropped_scenario(event):
        event.acceptProposedAction()
        return True
    return False


def take_drop(w, event) -> bool:
    """For the window's ``dropEvent``: import dropped measurements or open a dropped scenario
    (asking about unsaved changes first); False when the drop is neither."""
    if w.features is not None and w.features.drop_measured(w, event):
        return True
    path = dropped_scenario(event)
    if path is None:
        return False
    event.acceptProposedAction()
    w.controller.open_path(path)
    return True


def add_dock(w, title: str, name: str, widget, area: Qt.DockWidgetArea) -> QDockWidget:
    """A dock of the window holding ``widget`` (movable, floatable, closable) in ``area``;
    ``name`` keeps its place in the saved layout."""
    d = QDockWidget(title, w)
    d.setObjectName(name)
    d.setWidget(widget)
    d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                  | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                  | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    w.addDockWidget(area, d)
    return d


def tabbed_dock(w, title: str, name: str, widget):
    """A hidden dock for a feature's panel, tabbed behind the window's Results (the
    Measured and LLM Breakdown panels)."""
    d = add_dock(w, title, name, widget, Qt.DockWidgetArea.BottomDockWidgetArea)
    results = getattr(w, "results_dock", None)
    if results is not None:
        w.tabifyDockWidget(results, d)
    d.hide()
    return d
