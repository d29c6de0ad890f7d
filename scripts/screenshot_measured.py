"""Screenshot of measured kernels in the window: the busy example (H100, H200, B200) with an
Nsight Compute CSV and a plain CSV imported onto the H100, the "Measured" panel shown
with the H100's row of its Calibration box selected, so that its fit is spelt out.

Run under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_measured.py

Writes screenshots/measured-kernels.png (``--out`` to change).  It calls
:func:`roofgui.gui.measured.install_measured` itself (a window that already installs it is
left as it is), and uses a throw-away settings directory, so it neither reads nor changes
yours.
"""

from __future__ import annotations

import sys
from pathlib import Path

from shot_window import ROOT, open_app, parse, run, show_window
from shot_window import settle as settle_window

EXAMPLE = ROOT / "resources" / "examples" / "09-mlp-on-three-gpus.json"
FILES = [ROOT / "tests" / "fixtures" / "measured" / n
         for n in ("ncu_metrics.csv", "calibration_h100.csv")]


def main(argv: list[str] | None = None) -> int:
    args = parse(__doc__, str(ROOT / "screenshots" / "measured-kernels.png"), argv)

    app = open_app()
    from roofgui.gui.measured import install_measured, session

    win = show_window(EXAMPLE, args.size)
    measured = session(win) or install_measured(win)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        settle_window(app, win)

    def shoot() -> None:
        settle()
        win.roofline_plot.fit()
        if not measured.import_files([str(p) for p in FILES]):
            print("import failed", file=sys.stderr)
        settle()
        box = measured.panel.calibration
        box.table.selectRow(box.chip_ids.index("h100-sxm"))  # (its fit in the text below)
        head = box.table.horizontalHeader()  # (the calibration as wide as its columns)
        last = head.count() - 1
        want = sum(head.sectionSize(c) for c in range(last)) + head.sectionSizeHint(last) + 40
        split = box.parentWidget()  # (the kernels | calibration splitter)
        split.setSizes([split.width() - want, want])
        measured.panel.table.setColumnWidth(0, 190)  # (the kernels' names, to show their times)
        settle()
        win.grab().save(str(out))

    run(app, win, shoot)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
