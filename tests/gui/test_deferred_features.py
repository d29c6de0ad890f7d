"""A cold start shows the plot first: the window the app opens (``defer_features=True``)
installs its measured kernels, memory levels and LLM views once the plot has been painted —
and then they all work as in a window built with them (dropping a measurement file, the
Frontier tab, the LLM Breakdown toggle)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from gui_helpers import close_quietly
from roofgui.gui.main_window import MainWindow
from roofgui.gui.measured import session as measured_session
from roofgui.model.measured import parse_measurements

NCU = Path(__file__).resolve().parents[1] / "fixtures" / "measured" / "ncu_metrics.csv"


def menu_texts(w) -> list[str]:
    return [a.text().replace("&", "") for top in w.menuBar().actions() if top.menu()
            for a in top.menu().actions()]


def tab_texts(w) -> list[str]:
    return [w.tabs.tabText(i).replace("&", "") for i in range(w.tabs.count())]


def test_features_arrive_after_the_first_paint_and_work(qtbot, shipped):
    w = MainWindow(catalog=shipped, restore=False, defer_features=True)
    try:
        # built, not yet painted: the plot is there, the features are not
        assert w.features is None
        assert "Frontier" not in tab_texts(w) and "Import Measurements…" not in menu_texts(w)
        w.show()
        qtbot.waitUntil(lambda: w.features is not None, timeout=10_000)
        assert "Frontier" in tab_texts(w)
        assert "Import Measurements…" in menu_texts(w) and "LLM Breakdown" in menu_texts(w)
        # a measurement file dropped on the window is imported
        md = QMimeData()
        md.setUrls([QUrl.fromLocalFile(str(NCU))])
        enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, md,
                                Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        w.dragEnterEvent(enter)
        assert enter.isAccepted()
        drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, md, Qt.MouseButton.NoButton,
                          Qt.KeyboardModifier.NoModifier)
        w.dropEvent(drop)
        assert drop.isAccepted()
        kernels = parse_measurements(NCU).kernels
        assert len(kernels) > 0
        assert measured_session(w).panel.table.rowCount() == len(kernels)
    finally:
        close_quietly(w)


def test_installing_twice_adds_nothing(qtbot, shipped):
    w = MainWindow(catalog=shipped, restore=False)
    try:
        before = (tab_texts(w), menu_texts(w))
        w.install_features()
        assert (tab_texts(w), menu_texts(w)) == before
        assert before[0].count("Frontier") == 1
    finally:
        close_quietly(w)
