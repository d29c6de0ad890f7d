"""Roofline Explorer's benchmark: prints every figure, asserts nothing.

    make bench
    # = QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench.py

Options: ``--quick`` (fewer repetitions, for a smoke run), ``--only 1,3``
(some parts), ``--json PATH`` (every sample and summary), ``--markdown``
(the summary table as Markdown, as pasted into docs/performance.md).

Parts (each a median, with p95 where it is a distribution, and a ratio against
a baseline measured in the same run):

1. model   — 10,000-point sweep of B over 8 chips vs a plain Python loop   (≥ 50×)
2. edit    — a keystroke in a dimension field until the plot has repainted,
             busy scenario, 1280×800, 200 edits, vs bare pyqtgraph updating
             the same items            (median ≤ 8 ms, p95 ≤ 16 ms, ≤ 1.5×)
3. cold    — process start to the first painted window vs a bare
             QApplication + PlotWidget script                              (≤ 1.5×)
4. export  — 3840×2160 PNG and SVG of the busy scenario                   (4K PNG ≤ 0.5 s)
5. memory  — peak RSS of the busy scenario vs the bare script

GUI parts run in child processes (the parent never imports Qt), so one part
cannot warm or pollute another.  Details of each measurement: the docstring
of ``bench_<part>.py`` beside this file.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common  # noqa: E402
from _common import BENCH_DIR, machine, summary  # noqa: E402

BUDGET = {
    "model_speedup": 50.0,
    "edit_median_ms": 8.0,
    "edit_p95_ms": 16.0,
    "edit_ratio": 1.5,
    "cold_ratio": 1.5,
    "png4k_s": 0.5,
}


def _child(script: str, args: list[str], timeout: float = 3600) -> dict:
    with tempfile.TemporaryDirectory(prefix="roofgui-bench-") as d:
        out = Path(d) / "out.json"
        env = dict(os.environ)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        r = subprocess.run([sys.executable, str(BENCH_DIR / script), *args, "--json", str(out)],
                           env=env, cwd=str(BENCH_DIR), timeout=timeout, capture_output=True,
                           text=True)
        if r.returncode != 0 or not out.exists():
            raise RuntimeError(f"{script} failed ({r.returncode}):\n{r.stderr[-4000:]}")
        return json.loads(out.read_text())


def part_model(quick: bool) -> dict:
    import bench_model

    return bench_model.run(repeats=10 if quick else 30, loop_repeats=3 if quick else 7)


def part_edit(quick: bool) -> dict:
    raw = _child("bench_edit.py", ["--edits", "30" if quick else "200"])
    out = {}
    gc_pause = raw.pop("gc", None)
    for view, r in raw.items():
        a, b = summary(r["samples"]), summary(r["baseline_samples"])
        ac, bc = summary(r["cpu_samples"]), summary(r["baseline_cpu_samples"])
        out[view] = {k: v for k, v in r.items()
                     if k not in ("samples", "baseline_samples", "burst_samples", "cpu_samples",
                                  "baseline_cpu_samples", "paint_end_samples",
                                  "baseline_paint_end_samples", "panels_samples")}
        if r.get("panels_samples"):
            out[view]["app_panels_s"] = summary(r["panels_samples"])
        if r.get("paint_end_samples"):
            pe, bpe = summary(r["paint_end_samples"]), summary(r["baseline_paint_end_samples"])
            out[view].update({"app_paint_end_s": pe, "baseline_paint_end_s": bpe,
                              "paint_end_ratio_median": pe["median"] / bpe["median"]})
        out[view].update({"app_s": a, "baseline_s": b, "burst_s": summary(r["burst_samples"]),
                          "app_cpu_s": ac, "baseline_cpu_s": bc,
                          "cpu_ratio_median": ac["median"] / bc["median"],
                          "ratio_median": a["median"] / b["median"],
                          "ratio_p95": a["p95"] / b["p95"],
                          "samples": r["samples"], "baseline_samples": r["baseline_samples"]})
    if gc_pause is not None:
        out = {"views": out, "gc": gc_pause}
    return out


def _edit_views(res: dict) -> dict:
    """Part 2's results per view (runs saved before the collector's figures held only those)."""
    e = res["edit"]
    return e["views"] if "views" in e else e


def part_cold(quick: bool) -> dict:
    import bench_cold

    return bench_cold.run(runs=3 if quick else 7)


def part_export(quick: bool) -> dict:
    return _child("bench_export.py", ["--repeats", "2" if quick else "5"])


def part_memory(quick: bool) -> dict:
    import bench_memory

    return bench_memory.run(runs=1 if quick else 3)


PARTS = {1: ("model", part_model), 2: ("edit", part_edit), 3: ("cold", part_cold),
         4: ("export", part_export), 5: ("memory", part_memory)}


def _ms(s: float) -> str:
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def _mark(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def table(res: dict) -> list[tuple[str, str, str, str]]:
    """(what, figure, baseline and ratio, budget verdict) rows."""
    rows = []
    if "model" in res:
        m = res["model"]
        lp = m["plain_loop_s"]["median"]
        rows.append(("1. Model: evaluate_many, 10k × 8 chips",
                     f"{_ms(m['evaluate_many_s']['median'])} (p95 {_ms(m['evaluate_many_s']['p95'])})",
                     f"plain loop {_ms(lp)}: {m['speedup_evaluate_many']:.1f}× faster",
                     f"≥ 50×: {_mark(m['speedup_evaluate_many'] >= BUDGET['model_speedup'])}"))
        rows.append(("1. Model: sweep_scenario, 10k × 8 chips",
                     f"{_ms(m['sweep_scenario_s']['median'])} (p95 {_ms(m['sweep_scenario_s']['p95'])})",
                     f"plain loop {_ms(lp)}: {m['speedup_sweep_scenario']:.1f}× faster",
                     f"≥ 50×: {_mark(m['speedup_sweep_scenario'] >= BUDGET['model_speedup'])}"))
        if "cpu_speedup_evaluate_many" in m:
            cpu_ok = min(m['cpu_speedup_evaluate_many'],
                         m['cpu_speedup_sweep_scenario']) >= BUDGET['model_speedup']
            rows.append(("1. … the same, process CPU time (load-independent)"
                         + (" of both threads" if m.get("helper_thread") else ""),
                         f"evaluate_many {_ms(m['cpu_evaluate_many_s']['median'])}, "
                         f"sweep_scenario {_ms(m['cpu_sweep_scenario_s']['median'])}",
                         f"plain loop {_ms(m['cpu_plain_loop_s']['median'])}: "
                         f"{m['cpu_speedup_evaluate_many']:.1f}× and {m['cpu_speedup_sweep_scenario']:.1f}×",
                         # (the model took half of each sweep's rows on a second thread: its
                         # CPU time is then the work of two, not a stand-in for its wall
                         # time, which the rows above hold to the budget)
                         "no budget: two threads' CPU time (the wall time above is the budget's); "
                         f"≥ 50× {'yes' if cpu_ok else 'no'}" if m.get("helper_thread")
                         else f"≥ 50×: {_mark(cpu_ok)}"))
    if "edit" in res:
        for view, r in _edit_views(res).items():
            a, b = r["app_s"], r["baseline_s"]
            it = r["items"]
            ok = (a["median"] * 1e3 <= BUDGET["edit_median_ms"] and a["p95"] * 1e3 <= BUDGET["edit_p95_ms"]
                  and r["ratio_median"] <= BUDGET["edit_ratio"])
            rows.append((f"2. Edit to pixels, {view} tab (edit {r['edited']}; {it['curves']} curves / "
                         f"{it['curve_points']} pts"
                         + (f", drawn as {it['drawn_points']}" if it.get("drawn_points", it["curve_points"])
                            != it["curve_points"] else "")
                         + f", {it['scatters']} scatters)",
                         f"median {_ms(a['median'])}, p95 {_ms(a['p95'])}",
                         f"bare pyqtgraph median {_ms(b['median'])}, p95 {_ms(b['p95'])}: "
                         f"{r['ratio_median']:.2f}× (p95 {r['ratio_p95']:.2f}×)",
                         f"≤ 8 / 16 ms, ≤ 1.5×: {_mark(ok)}"))
            ac, bc = r["app_cpu_s"], r["baseline_cpu_s"]
            rows.append((f"2. … the same, process CPU time (load-independent)",
                         f"median {_ms(ac['median'])}, p95 {_ms(ac['p95'])}",
                         f"bare pyqtgraph median {_ms(bc['median'])}: {r['cpu_ratio_median']:.2f}×",
                         f"≤ 8 / 16 ms, ≤ 1.5×: {_mark(ac['median'] * 1e3 <= BUDGET['edit_median_ms'] and ac['p95'] * 1e3 <= BUDGET['edit_p95_ms'] and r['cpu_ratio_median'] <= BUDGET['edit_ratio'])}"))
            if "app_paint_end_s" in r:
                pe, bpe = r["app_paint_end_s"], r["baseline_paint_end_s"]
                rows.append((f"2. … the same, to the end of the plot's last paint (its pixels ready; "
                             f"the panels around it follow)",
                             f"median {_ms(pe['median'])}, p95 {_ms(pe['p95'])}",
                             f"bare pyqtgraph median {_ms(bpe['median'])}: "
                             f"{r['paint_end_ratio_median']:.2f}×",
                             f"≤ 8 / 16 ms, ≤ 1.5×: {_mark(pe['median'] * 1e3 <= BUDGET['edit_median_ms'] and pe['p95'] * 1e3 <= BUDGET['edit_p95_ms'] and r['paint_end_ratio_median'] <= BUDGET['edit_ratio'])}"))
            if "app_panels_s" in r:
                ps = r["app_panels_s"]
                rows.append((f"2. … and the panels around the plot updated (results, chips, op "
                             f"bounds: in the event-loop pass after the plot's)",
                             f"median {_ms(ps['median'])}, p95 {_ms(ps['p95'])}",
                             "", "no budget (not the plot's pixels)"))
            bs = r["burst_s"]
            rows.append((f"2. Burst of 5 keystrokes, {view} tab",
                         f"median {_ms(bs['median'])}, p95 {_ms(bs['p95'])}",
                         f"{r['evaluations_per_burst']:.2f} evaluations and "
                         f"{r['paints_per_edit']:.2f} paints per edit; {r['late_paints']} late paints",
                         "coalesced, no timer delay" if r["evaluations_per_burst"] <= 1.0
                         else "NOT coalesced"))
        g = res["edit"].get("gc")  # (None in runs saved before it was measured)
        if g is not None:
            rows.append(("2. A full garbage collection (Python runs one every few hundred "
                         "edits), after part 2's edits",
                         f"{_ms(g['full_collection_frozen_s'])}: {g.get('tracked', 0):,} "
                         f"objects, the app froze its {g['frozen']:,} start-up ones",
                         f"{_ms(g['full_collection_s'])} with them unfrozen",
                         "no budget (a stall the user sees, every few hundred keystrokes)"))
    if "cold" in res:
        c = res["cold"]
        rows.append(("3. Cold start to first paint (first launch)",
                     f"{_ms(c['app']['median'])} (p95 {_ms(c['app']['p95'])})",
                     f"bare QApplication + PlotWidget {_ms(c['baseline']['median'])}: {c['ratio']:.2f}×",
                     f"≤ 1.5×: {_mark(c['ratio'] <= BUDGET['cold_ratio'])}"))
        if "app_busy" in c:
            rows.append(("3. Cold start to first paint (busy scenario file)",
                         f"{_ms(c['app_busy']['median'])} (p95 {_ms(c['app_busy']['p95'])})",
                         f"{c['ratio_busy']:.2f}× the bare script",
                         f"≤ 1.5×: {_mark(c['ratio_busy'] <= BUDGET['cold_ratio'])}"))
        if "cpu_ratio" in c:
            cc = c["cpu"]
            busy = (f"; busy {_ms(cc['app_busy']['median'])}, {c['cpu_ratio_busy']:.2f}×"
                    if "cpu_ratio_busy" in c else "")
            rows.append(("3. … the same, the child's CPU time (load-independent)",
                         f"first launch {_ms(cc['app']['median'])}{busy}",
                         f"bare script {_ms(cc['baseline']['median'])}: {c['cpu_ratio']:.2f}×",
                         f"≤ 1.5×: {_mark(max(c['cpu_ratio'], c.get('cpu_ratio_busy', 0)) <= BUDGET['cold_ratio'])}"))
        rows.append(("3. (for scale) python -c pass", _ms(c["python_startup"]["median"]), "", ""))
    if "export" in res:
        e = res["export"]
        floor = e["png_4k_encode_floor"]["median"]
        for k, label in (("png_4k_roofline", "4. Export 3840×2160 PNG, roofline"),
                         ("png_4k_sweep", "4. Export 3840×2160 PNG, sweep")):
            rows.append((label, f"{_ms(e[k]['median'])} (p95 {_ms(e[k]['p95'])})",
                         f"Qt encoding the same 4K image: {_ms(floor)}; {e[k]['median'] / floor:.1f}×",
                         f"≤ 0.5 s: {_mark(e[k]['median'] <= BUDGET['png4k_s'])}"))
        for k, label in (("svg_roofline", "4. Export SVG (1920×1080), roofline"),
                         ("svg_sweep", "4. Export SVG (1920×1080), sweep")):
            rows.append((label, f"{_ms(e[k]['median'])} (p95 {_ms(e[k]['p95'])})",
                         f"{e['sizes_bytes'][k] / 1e6:.2f} MB", "no budget"))
    if "memory" in res:
        mm = res["memory"]
        rows.append(("5. Peak RSS, busy scenario (both tabs, 100 edits)",
                     f"{mm['app_mib']['median']:.0f} MiB",
                     f"bare script {mm['baseline_mib']['median']:.0f} MiB: {mm['ratio']:.2f}×",
                     "no budget"))
        rows.append(("5. Peak RSS, the same + two 4K PNG exports",
                     f"{mm['app_export_mib']['median']:.0f} MiB",
                     f"{mm['ratio_export']:.2f}× the bare script", "no budget"))
    return rows


def _print_table(res: dict, markdown: bool) -> None:
    rows = table(res)
    if markdown:
        print("| Measurement | Figure | Baseline (same run) | Budget |")
        print("|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w0 = max(len(r[0]) for r in rows)
        for r in rows:
            print(f"{r[0]:<{w0}}  {r[1]}\n{'':<{w0}}  {r[2]}\n{'':<{w0}}  {r[3]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    p.add_argument("--only", help="comma-separated part numbers, e.g. 1,3")
    p.add_argument("--json", help="write every sample and summary here")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument("--from-json", help="print the table of a run saved with --json (runs nothing)")
    a = p.parse_args()
    if a.from_json:
        _print_table(json.loads(Path(a.from_json).read_text()), a.markdown)
        return
    parts = sorted(int(x) for x in a.only.split(",")) if a.only else sorted(PARTS)
    info = machine()
    print(f"Roofline Explorer benchmark — {info['cpu']}, {info['nproc']} CPUs, "
          f"{info['ram_gib']:.1f} GiB RAM; Python {info['python']}, numpy {info['numpy']}, "
          f"pyqtgraph {info['pyqtgraph']}, PySide6 {info['PySide6']}; "
          f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', '')}", flush=True)
    res: dict = {"machine": info, "quick": a.quick, "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    for n in parts:
        name, fn = PARTS[n]
        t0 = time.monotonic()
        print(f"  part {n} ({name}) …", end="", flush=True)
        res[name] = fn(a.quick)
        print(f" {time.monotonic() - t0:.0f} s", flush=True)
    print()
    _print_table(res, a.markdown)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
