"""Shared helpers of the benchmark: statistics, the busy scenario, the machine.

Not collected by pytest (``norecursedirs`` excludes ``tests/bench``); run
``make bench`` or ``QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench.py``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The eight chips of every "8 chips" figure: a spread of vendors and generations.
BUSY_CHIPS = ["tpu-v5e", "tpu-v5p", "tpu-v6e", "h100-sxm", "h200", "b200", "mi300x", "gaudi3"]
#: The window every GUI figure uses.
WINDOW_SIZE = (1280, 800)


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    m = n // 2
    return s[m] if n % 2 else 0.5 * (s[m - 1] + s[m])


def percentile(xs, q):
    """Linear-interpolated percentile, q in [0, 100] (numpy's default method)."""
    s = sorted(xs)
    if not s:
        return float("nan")
    k = (len(s) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(xs) -> dict:
    return {"median": median(xs), "p95": percentile(xs, 95), "min": min(xs), "max": max(xs),
            "n": len(xs)}


def busy_scenario(points: int = 2000):
    """8 chips, 4 ops (one sharded over PCIe, a link all eight chips have), a ``points``-point sweep of B."""
    from roofgui.model.scenario import OpSpec, Scenario, ShardSpec, SweepSpec

    bf16 = {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"}
    int8w = {"x": "bf16", "w": "int8", "out": "bf16", "compute": "bf16"}
    return Scenario(
        title="Benchmark: 8 chips, 4 ops, 2,000-point sweep",
        ops=[
            OpSpec("matmul bf16", "matmul", {"B": 256, "D": 8192, "F": 8192}, dict(bf16)),
            OpSpec("matmul int8 w", "matmul", {"B": 256, "D": 4096, "F": 4096}, dict(int8w)),
            OpSpec("per-example w", "batched-matmul", {"B": 64, "D": 1024, "F": 1024}, dict(bf16)),
            OpSpec("sharded D=2", "matmul", {"B": 1024, "D": 16384, "F": 16384}, dict(bf16),
                   ShardSpec("D", 2, "pcie")),
        ],
        chips=list(BUSY_CHIPS),
        sweep=SweepSpec("B", 1.0, 16384.0, points, "flops"),
    )


def write_busy_scenario(path: Path, points: int = 2000) -> Path:
    from roofgui.model.scenario import save_scenario

    save_scenario(busy_scenario(points), path)
    return path


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gib = int(line.split()[1]) / 1024 / 1024
                break
    except OSError:
        pass
    versions = {}
    for mod in ("numpy", "pyqtgraph", "PySide6"):
        try:
            m = __import__(mod)
            versions[mod] = getattr(m, "__version__", "?")
        except Exception:  # pragma: no cover - informative only
            versions[mod] = "missing"
    return {"nproc": os.cpu_count(), "cpu": cpu or platform.processor() or "unknown",
            "ram_gib": ram_gib, "python": platform.python_version(),
            "platform": platform.platform(), "qpa": os.environ.get("QT_QPA_PLATFORM", ""),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", ""), **versions}


def emit(result: dict, json_path: str | None) -> None:
    """Print the result as one JSON line, or write it to ``json_path``."""
    text = json.dumps(result)
    if json_path:
        Path(json_path).write_text(text)
    else:
        print(text)
