"""Screenshots of an LLM step's breakdown and its latency–throughput frontier: the
Llama-3 70B on 8×H100 vs 8×MI300X example, View ▸ LLM Breakdown on, then the Frontier tab
with a 2 s TTFT and a 50 ms TPOT limit.

Run under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_llm.py

Writes screenshots/llm-breakdown.png and screenshots/llm-frontier.png (``--out`` for another
directory).  It uses a throw-away settings directory, so it neither reads nor changes yours.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "resources" / "examples" / "10-llm-llama-3-70b-eight-gpus.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "screenshots"), help="output directory")
    ap.add_argument("--size", default="1600x1000", help="window size WxH")
    args = ap.parse_args(argv)
    os.environ["ROOFGUI_HOME"] = tempfile.mkdtemp(prefix="roofgui-shot-")
    sys.path.insert(0, str(ROOT))

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setApplicationName("Roofline Explorer")
    app.setStyle("Fusion")
    from roofgui.gui.breakdown import session
    from roofgui.gui.llm_views import frontier_page
    from roofgui.gui.main_window import TAB_ROOFLINE, MainWindow

    w, h = (int(v) for v in args.size.lower().split("x"))
    win = MainWindow(open_path=EXAMPLE, restore=False)
    win.resize(w, h)
    win.show()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        for _ in range(5):
            app.processEvents()
        win.live.flush()
        app.processEvents()

    def shoot() -> None:
        settle()
        win.tabs.setCurrentIndex(TAB_ROOFLINE)
        session(win).action.setChecked(True)
        settle()
        win.roofline_plot.fit()
        settle()
        win.grab().save(str(out / "llm-breakdown.png"))
        page = frontier_page(win)
        page.ttft_edit.setText("2 s")
        page.tpot_edit.setText("50 ms")
        win.tabs.setCurrentWidget(page)
        settle()
        page.refresh()
        settle()
        win.grab().save(str(out / "llm-frontier.png"))
        win.doc.load(win.doc.scenario)  # nothing to ask about on close
        app.quit()

    QTimer.singleShot(300, shoot)
    app.exec()
    print(out / "llm-breakdown.png", out / "llm-frontier.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
