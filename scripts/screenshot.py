"""Take the README screenshot: the real window with a busy scenario (3 chips, 3 ops, one sharded).

Run under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot.py

Writes screenshots/main-window.png (and main-window-sweep.png, main-window-dark.png, and
main-window-llm.png / main-window-llm-sweep.png: the LLM example opened from File ▸ Examples).
It uses a throw-away settings directory, so it neither reads nor changes yours.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "resources" / "examples" / "09-mlp-on-three-gpus.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "screenshots"), help="output directory")
    ap.add_argument("--scenario", default=str(EXAMPLE), help="scenario JSON to show")
    ap.add_argument("--size", default="1440x900", help="window size WxH")
    args = ap.parse_args(argv)
    os.environ["ROOFGUI_HOME"] = tempfile.mkdtemp(prefix="roofgui-shot-")
    sys.path.insert(0, str(ROOT))

    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setApplicationName("Roofline Explorer")
    app.setStyle("Fusion")
    from roofgui.gui.main_window import TAB_ROOFLINE, TAB_SWEEP, MainWindow

    w, h = (int(v) for v in args.size.lower().split("x"))
    win = MainWindow(open_path=args.scenario, restore=False)
    win.resize(w, h)
    win.show()
    # select the sharded op, so the results panel shows the link figures
    sc = win.doc.scenario
    sharded = [i for i, op in enumerate(sc.ops) if op.shard is not None]
    if sharded:
        win.form.ops.list.setCurrentRow(sharded[0])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        for _ in range(5):
            app.processEvents()
        win.live.flush()
        app.processEvents()

    def both_tabs(stem: str) -> None:
        """``stem``.png on the Roofline tab, ``stem``-sweep.png on the Sweep tab."""
        settle()
        win.statusBar().clearMessage()  # (as a few seconds after opening: no checkout's path)
        win.grab().save(str(out / f"{stem}.png"))
        win.tabs.setCurrentIndex(TAB_SWEEP)
        settle()
        win.grab().save(str(out / f"{stem}-sweep.png"))
        win.tabs.setCurrentIndex(TAB_ROOFLINE)

    def shoot() -> None:
        settle()
        win.tabs.setCurrentIndex(TAB_ROOFLINE)
        win.roofline_plot.fit()
        both_tabs("main-window")
        # an LLM step, opened as a user would: File ▸ Examples
        llm = [a for a in win.controller.examples_menu.actions() if a.iconText().startswith("Llama-3 70B")]
        if llm:
            llm[0].trigger()
            both_tabs("main-window-llm")
            win.controller.open_path(args.scenario, ask=False)
            if sharded:
                win.form.ops.list.setCurrentRow(sharded[0])
            settle()
            win.roofline_plot.fit()
        dark = QPalette()
        for role, colour in ((QPalette.ColorRole.Window, "#2b2d30"), (QPalette.ColorRole.Base, "#1e1f22"),
                             (QPalette.ColorRole.AlternateBase, "#26282b"),
                             (QPalette.ColorRole.WindowText, "#e6e6e6"), (QPalette.ColorRole.Text, "#e6e6e6"),
                             (QPalette.ColorRole.Button, "#3c3f41"), (QPalette.ColorRole.ButtonText, "#e6e6e6"),
                             (QPalette.ColorRole.Highlight, "#2f65ca"),
                             (QPalette.ColorRole.HighlightedText, "#ffffff")):
            dark.setColor(role, QColor(colour))
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                     QPalette.ColorRole.ButtonText):  # greyed-out buttons and fields read as such
            dark.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
        dark.setColor(QPalette.ColorRole.PlaceholderText, QColor("#8c8c8c"))
        app.setPalette(dark)
        settle()
        win.statusBar().clearMessage()
        win.grab().save(str(out / "main-window-dark.png"))
        win.doc.load(win.doc.scenario)  # nothing to ask about on close
        app.quit()

    QTimer.singleShot(300, shoot)
    app.exec()
    for name in ("main-window.png", "main-window-sweep.png", "main-window-llm.png",
                 "main-window-llm-sweep.png", "main-window-dark.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
