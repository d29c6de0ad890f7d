"""Screenshot of measured kernels in the window: the busy example (H100, H200, B200) with an
Nsight Compute CSV and a plain CSV imported onto the H100, the "Measured" panel shown.

Run under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_measured.py

Writes /tmp/mgui/measured.png (``--out`` to change).  It calls
:func:`roofgui.gui.measured.install_measured` itself (a window that already installs it is
left as it is), and uses a throw-away settings directory, so it neither reads nor changes
yours.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "resources" / "examples" / "09-mlp-on-three-gpus.json"
FILES = [ROOT / "tests" / "fixtures" / "measured" / n for n in ("ncu_metrics.csv", "plain.csv")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/mgui/measured.png", help="output PNG")
    ap.add_argument("--size", default="1600x1000", help="window size WxH")
    args = ap.parse_args(argv)
    os.environ["ROOFGUI_HOME"] = tempfile.mkdtemp(prefix="roofgui-shot-")
    sys.path.insert(0, str(ROOT))

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setApplicationName("Roofline Explorer")
    app.setStyle("Fusion")
    from roofgui.gui.main_window import MainWindow
    from roofgui.gui.measured import install_measured, session

    w, h = (int(v) for v in args.size.lower().split("x"))
    win = MainWindow(open_path=EXAMPLE, restore=False)
    win.resize(w, h)
    win.show()
    measured = session(win) or install_measured(win)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        for _ in range(5):
            app.processEvents()
        win.live.flush()
        app.processEvents()

    def shoot() -> None:
        settle()
        win.roofline_plot.fit()
        if not measured.import_files([str(p) for p in FILES]):
            print("import failed", file=sys.stderr)
        settle()
        win.grab().save(str(out))
        win.doc.load(win.doc.scenario)  # nothing to ask about on close
        app.quit()

    QTimer.singleShot(300, shoot)
    app.exec()
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
