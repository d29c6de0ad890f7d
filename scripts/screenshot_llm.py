"""Screenshots of an LLM step's breakdown and its latency–throughput frontier: the
Llama-3 70B on 8×H100 vs 8×MI300X example, View ▸ LLM Breakdown on, then the Frontier tab
with a 2 s TTFT and a 50 ms TPOT limit.

Run under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_llm.py

Writes screenshots/llm-breakdown.png and screenshots/llm-frontier.png (``--out`` for another
directory).  It uses a throw-away settings directory, so it neither reads nor changes yours.
"""

from __future__ import annotations

import sys
from pathlib import Path

from shot_window import ROOT, open_app, parse, run, show_window
from shot_window import settle as settle_window

EXAMPLE = ROOT / "resources" / "examples" / "10-llm-llama-3-70b-eight-gpus.json"


def main(argv: list[str] | None = None) -> int:
    args = parse(__doc__, str(ROOT / "screenshots"), argv)

    app = open_app()
    from roofgui.gui.breakdown import session
    from roofgui.gui.llm_views import frontier_page
    from roofgui.gui.main_window import TAB_ROOFLINE

    win = show_window(EXAMPLE, args.size)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        settle_window(app, win)

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

    run(app, win, shoot)
    print(out / "llm-breakdown.png", out / "llm-frontier.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
