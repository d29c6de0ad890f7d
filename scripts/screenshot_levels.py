"""Screenshot of the hierarchical roofline: a bf16 matmul tiled 128×128×64 on TPU v5e,
H100 SXM and MI300X, one roof and one point per on-chip memory level.

Run under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_levels.py

Writes screenshots/memory-levels.png (``--out`` to change), with a throw-away settings
directory, so it neither reads nor changes yours.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from shot_window import ROOT, open_app, parse, run, show_window
from shot_window import settle as settle_window

SCENARIO = {
    "format": "roofgui-scenario", "version": 1,
    "title": "bf16 matmul tiled 128×128×64: which memory level binds?",
    "ops": [{"name": "matmul 2048×8192×8192", "kind": "matmul",
             "dims": {"B": 2048, "D": 8192, "F": 8192},
             "dtypes": {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"},
             "tile": {"bm": 128, "bn": 128, "bk": 64}}],
    "chips": ["tpu-v5e", "h100-sxm", "mi300x"],
}


def main(argv: list[str] | None = None) -> int:
    args = parse(__doc__, str(ROOT / "screenshots" / "memory-levels.png"), argv)
    import json

    app = open_app()

    scenario = Path(tempfile.mkdtemp(prefix="roofgui-shot-")) / "memory-levels.json"
    scenario.write_text(json.dumps(SCENARIO), encoding="utf-8")
    win = show_window(scenario, args.size)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        settle_window(app, win)

    def shoot() -> None:
        settle()
        win.roofline_plot.fit()
        win.roofline_plot.set_view([0.6, 4.4, 12.6, 15.7])  # every level roof and point
        settle()
        win.grab().save(str(out))

    run(app, win, shoot)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
