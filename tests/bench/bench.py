"""Roofline Explorer's benchmark: each figure beside a bare pyqtgraph baseline from the same run.

    make bench                                # = .venv/bin/python tests/bench/bench.py
    .venv/bin/python tests/bench/bench.py --quick     # fewer repetitions, a smoke run
    .venv/bin/python tests/bench/bench.py --root DIR  # measure another checkout's code

Every part runs in fresh processes (this one never imports Qt).  It prints a Markdown
table and asserts nothing.  What each line measures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EXAMPLE = Path("resources/examples/09-mlp-on-three-gpus.json")
#: The scale case: 16 ops × 16 chips, its sweep asked for SCALE_POINTS points
SCALE_EXAMPLE = Path("resources/examples/11-transformer-block-16-chips.json")
SCALE_POINTS = 10_000


def env_for(root: Path, home: Path, stamp: Path | None = None) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ROOFGUI_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # (an installed app has its bytecode compiled)
    if stamp is not None:
        env["ROOFGUI_BENCH_FIRST_PAINT"] = str(stamp)
    return env


def run_child(root: Path, mode: str, keystrokes: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="roofgui-bench-") as d:
        out = Path(d) / "out.json"
        example = root / EXAMPLE
        if mode == "scale":  # (a copy of the 16 × 16 example with a 10,000-point sweep)
            data = json.loads((root / SCALE_EXAMPLE).read_text())
            data["sweep"]["points"] = SCALE_POINTS
            example = Path(d) / "scale.json"
            example.write_text(json.dumps(data))
        r = subprocess.run([sys.executable, str(HERE / "child.py"), mode, str(example),
                            str(keystrokes), str(out)], cwd=root, env=env_for(root, Path(d)),
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0 or not out.exists():
            raise SystemExit(f"child.py {mode} failed ({r.returncode}):\n{r.stderr[-3000:]}")
        return json.loads(out.read_text())


def first_paint(argv: list[str], root: Path, tmp: Path) -> tuple[float, float]:
    """Seconds from spawning ``argv`` to its first painted plot, and its peak RSS (MiB)."""
    stamp = tmp / "first-paint"
    t0 = time.monotonic()
    err = tmp / "stderr"
    with open(err, "w") as f:
        proc = subprocess.Popen(argv, cwd=root, env=env_for(root, tmp / "home", stamp),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=f)
    while not (stamp.exists() and stamp.read_text().strip()):
        if proc.poll() is not None:
            raise SystemExit(f"{argv} exited before painting:\n{err.read_text()[-3000:]}")
        if time.monotonic() - t0 > 120:
            proc.kill()
            raise SystemExit(f"{argv} did not paint within 120 s")
        time.sleep(0.002)
    seconds = float(stamp.read_text()) - t0
    proc.terminate()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = -1  # (reaped above)
    return seconds, usage.ru_maxrss / 1024


def cold_start(root: Path, runs: int) -> dict:
    """Alternate app and bare starts (one untimed round first, to warm the page cache)."""
    cases = {"app": [sys.executable, "-m", "roofgui", str(root / EXAMPLE)],
             "bare": [sys.executable, str(HERE / "bare_start.py")]}
    out: dict = {k: [] for k in cases}
    rss: dict = {k: [] for k in cases}
    for i in range(runs + 1):
        for name, argv in cases.items():
            with tempfile.TemporaryDirectory(prefix="roofgui-cold-") as d:
                s, m = first_paint(argv, root, Path(d))
            if i:
                out[name].append(s)
                rss[name].append(m)
    return {"app_s": out["app"], "bare_s": out["bare"], "bare_rss_mib": rss["bare"]}


def ms(s: float) -> str:
    """Seconds as milliseconds (two decimals under 0.1 s: a figure near its budget reads
    on the side of the line it is), or as seconds from 1 s."""
    return f"{s * 1e3:.2f} ms" if s < 0.1 else f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def row(what, app, bare, budget="", limit=None, fmt=ms, extra_ok=True):
    ratio = app / bare
    meets = "" if limit is None else ("yes" if ratio <= limit and extra_ok else "**NO**")
    return [what, fmt(app), fmt(bare), f"{ratio:.2f}×", budget, meets]


def table(res: dict) -> list[list[str]]:
    rows, med = [], np.median
    n = res["gui"]["keystrokes"]
    for view, t in res["gui"]["typing"].items():
        a, b = np.array(t["app_s"]), np.array(t["bare_s"])
        what = f"Keystroke to repainted plot, {view.capitalize()} tab"
        rows.append(row(f"{what}, median of {n}", med(a), med(b)))
        p95, bp95 = np.percentile(a, 95), np.percentile(b, 95)
        rows.append(row(f"{what}, p95", p95, bp95, "≤ 16 ms and ≤ 0.5×", 0.5,
                        extra_ok=p95 <= 0.016))
    for view, t in res["scale"]["typing"].items():
        a, b = np.array(t["app_s"]), np.array(t["bare_s"])
        limit = 0.016 if view == "roofline" else 0.033
        rows.append(row(f"16 ops × 16 chips, 10,000-point sweep: keystroke p95, {view.capitalize()} "
                        f"tab", np.percentile(a, 95), np.percentile(b, 95),
                        f"≤ {limit * 1e3:.0f} ms", 1e9, extra_ok=np.percentile(a, 95) <= limit))
    c = res["cold"]
    rows.append(row(f"Cold start to first paint (median of {len(c['app_s'])})", med(c["app_s"]),
                    med(c["bare_s"]), "≤ 1.5×", 1.5))
    for view, e in res["gui"]["export"].items():
        rows.append(row(f"3840×2160 PNG export, {view} (median of {len(e['app_s'])})",
                        med(e["app_s"]), med(e["bare_s"]), "≤ 1.3×", 1.3))
    rows.append(row(f"Peak memory after {n} keystrokes on each tab", res["memory"]["peak_rss_mib"],
                    med(c["bare_rss_mib"]), fmt=lambda m: f"{m:.0f} MiB"))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    p.add_argument("--root", type=Path, default=HERE.parents[1],
                   help="the checkout whose roofgui is measured (default: this one)")
    a = p.parse_args()
    root = a.root.resolve()
    keystrokes, runs = (30, 3) if a.quick else (200, 7)
    t0, load = time.monotonic(), os.getloadavg()[0]
    res = {"gui": run_child(root, "typing", keystrokes), "cold": cold_start(root, runs),
           "memory": run_child(root, "memory", keystrokes),
           "scale": run_child(root, "scale", keystrokes // 2)
           if (root / SCALE_EXAMPLE).exists() else {"typing": {}}}  # (an older checkout: none)
    m = res["gui"]["machine"]
    print(f"{root}: {m['cpus']} × {m['cpu']}; Python {m['python']}, PySide6 {m['pyside6']}, "
          f"pyqtgraph {m['pyqtgraph']}, numpy {m['numpy']}; offscreen; load average "
          f"{load:.1f} at the start; the run took {time.monotonic() - t0:.0f} s\n")
    print("| Figure | Roofline Explorer | Bare pyqtgraph | Ratio | Budget | Meets |")
    print("|---|---|---|---|---|---|")
    for r in table(res):
        print("| " + " | ".join(r) + " |")
    print("\nEach bare window holds a copy of its plot: " + "; ".join(
        f"{v}, {t['curves']} curves ({t['points']} points), {t['scatters']} × ScatterPlotItem, "
        f"{t['labels']} × TextItem" for v, t in res["gui"]["typing"].items()) + ".")


if __name__ == "__main__":
    main()
