"""A minimal launcher for the window (development and screenshots).

The installed app starts through :mod:`roofgui.app`, which also checks the
display and sets the icon; this module only opens the window:
``python -m roofgui.gui.launch [SCENARIO.json]``.
"""

from __future__ import annotations

import sys


def run(argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    from PySide6.QtWidgets import QApplication

    from ..app import use_interactive_qt_settings

    use_interactive_qt_settings()  # (as the installed app: before the QApplication)
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("Roofline Explorer")
    app.setOrganizationName("roofgui")
    from .main_window import MainWindow

    path = argv[1] if len(argv) > 1 else None
    w = MainWindow(catalog=None, open_path=path)
    w.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(run())
