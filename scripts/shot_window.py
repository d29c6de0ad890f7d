"""What the screenshot scripts share: their two options, a throw-away settings folder, the
application in the Fusion style, the window on a scenario at a size, and settling it."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def parse(doc: str, out: str, argv: list[str] | None, size: str = "1600x1000"):
    """``--out`` (default ``out``) and ``--size`` WxH, for a script whose docstring is ``doc``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", default=out, help="output PNG or directory")
    ap.add_argument("--size", default=size, help="window size WxH")
    return ap.parse_args(argv)


def open_app():
    """The QApplication, with settings in a throw-away folder (never the user's)."""
    os.environ["ROOFGUI_HOME"] = tempfile.mkdtemp(prefix="roofgui-shot-")
    sys.path.insert(0, str(ROOT))
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setApplicationName("Roofline Explorer")
    app.setStyle("Fusion")
    return app


def show_window(scenario, size: str):
    """The main window on ``scenario`` at ``size`` (WxH), shown, its status bar clear (as
    it is a few seconds after opening: "Opened <path>" would show this checkout's path)."""
    from roofgui.gui.main_window import MainWindow

    w, h = (int(v) for v in size.lower().split("x"))
    win = MainWindow(open_path=scenario, restore=False)
    win.statusBar().clearMessage()
    win.resize(w, h)
    win.show()
    return win


def settle(app, win) -> None:
    """Let the window lay out, evaluate and paint."""
    for _ in range(5):
        app.processEvents()
    win.live.flush()
    app.processEvents()


def run(app, win, shoot) -> None:
    """Call ``shoot()`` once the window is on screen, then close it without a question about
    unsaved changes and leave the event loop."""
    from PySide6.QtCore import QTimer

    def once() -> None:
        shoot()
        win.doc.load(win.doc.scenario)  # nothing to ask about on close
        app.quit()

    QTimer.singleShot(300, once)
    app.exec()
