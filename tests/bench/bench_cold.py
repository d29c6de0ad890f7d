"""Part 3 — cold start: process start to the first painted main window.

Each run starts a fresh interpreter (``.venv/bin/python``) with offscreen
rendering and a fresh, empty ``ROOFGUI_HOME`` (so the app opens its
first-launch example, as a new user sees it).  The clock starts just before
the process is spawned (``time.monotonic()``, shared by all processes) and
stops at the time the child writes in the event-loop pass after the first
paint of its plot (``ROOFGUI_BENCH_FIRST_PAINT``, see
``roofgui/gui/first_paint.py``); the child is then terminated.

* ``app``: ``python main.py`` — the installed ``roofgui`` entry point;
* ``app_busy``: ``python main.py busy.json`` — the busy scenario;
* ``baseline``: ``python bench_cold_baseline.py`` — QApplication + one PlotWidget.

Runs alternate (app, busy, baseline, app, ...) so that a noisy machine hits
all three alike; one untimed round comes first.  Children cache their bytecode
in a private ``PYTHONPYCACHEPREFIX`` (as an installed app has its bytecode from
installation), even when the shell sets ``PYTHONDONTWRITEBYTECODE``.  ``python_startup`` (``python -c pass``) is given for scale.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401
from _common import BENCH_DIR, ROOT, emit, summary, write_busy_scenario


#: Bytecode for every child goes here, never into the checkout.
PYCACHE = Path(tempfile.gettempdir()) / "roofgui-bench-pycache"


def _env(tmp: Path, stamp: Path) -> dict:
    env = dict(os.environ)
    # An installed app has its bytecode compiled at install time; a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 would recompile every roofgui module on every start.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["ROOFGUI_HOME"] = str(tmp / "home")
    env["ROOFGUI_BENCH_FIRST_PAINT"] = str(stamp)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def time_to_first_paint(argv: list[str], tmp: Path, timeout: float = 120.0,
                        cpu: list | None = None) -> float:
    """Seconds from spawning ``argv`` to its first paint; with ``cpu``, the child's CPU
    time (user + system, until it is stopped just after that paint) is appended."""
    stamp = tmp / "first-paint"
    stamp.unlink(missing_ok=True)
    env = _env(tmp, stamp)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=str(ROOT), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while True:
            if stamp.exists():
                text = stamp.read_text().strip()
                if text:
                    return float(text) - t0
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"{' '.join(argv)} exited ({proc.returncode}) before painting: {err[-2000:]}")
            if time.monotonic() - t0 > timeout:
                raise RuntimeError(f"{' '.join(argv)} did not paint within {timeout:.0f} s")
            time.sleep(0.002)
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                _, status, ru = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                if cpu is not None:
                    cpu.append(ru.ru_utime + ru.ru_stime)
            except ChildProcessError:
                proc.wait()
        if proc.stderr:
            proc.stderr.close()


def python_startup(runs: int) -> list[float]:
    out = []
    env = _env(Path(tempfile.gettempdir()), Path(os.devnull))
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
        out.append(time.monotonic() - t0)
    return out


def run(runs: int = 7, busy: bool = True) -> dict:
    py = sys.executable
    base = Path(tempfile.mkdtemp(prefix="roofgui-cold-"))
    busy_path = write_busy_scenario(base / "busy.json")
    cases = {"app": [py, str(ROOT / "main.py")],
             "baseline": [py, str(BENCH_DIR / "bench_cold_baseline.py"), "STAMP"]}
    if busy:
        cases["app_busy"] = [py, str(ROOT / "main.py"), str(busy_path)]
    samples: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    # one untimed round first: the page cache then holds Python, Qt and numpy for every case
    for i in range(runs + 1):
        for name, argv in cases.items():
            tmp = base / f"{name}-{i}"
            tmp.mkdir()
            argv = [str(tmp / "first-paint") if a == "STAMP" else a for a in argv]
            c: list[float] = []
            dt = time_to_first_paint(argv, tmp, cpu=c)
            if i > 0:
                samples[name].append(dt)
                cpu[name] += c
    out = {k: summary(v) for k, v in samples.items()}
    out["cpu"] = {k: summary(v) for k, v in cpu.items() if v}
    out["python_startup"] = summary(python_startup(runs))
    b = out["baseline"]["median"]
    out["ratio"] = out["app"]["median"] / b
    if busy:
        out["ratio_busy"] = out["app_busy"]["median"] / b
    if "baseline" in out["cpu"] and "app" in out["cpu"]:
        out["cpu_ratio"] = out["cpu"]["app"]["median"] / out["cpu"]["baseline"]["median"]
        if busy and "app_busy" in out["cpu"]:
            out["cpu_ratio_busy"] = out["cpu"]["app_busy"]["median"] / out["cpu"]["baseline"]["median"]
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--no-busy", action="store_true")
    p.add_argument("--json")
    a = p.parse_args()
    emit(run(a.runs, not a.no_busy), a.json)


if __name__ == "__main__":
    main()
