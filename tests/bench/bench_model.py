"""Part 1 — the model: a 10,000-point sweep of B over 8 chips.

Measured three ways, each against the same baseline, a plain Python loop
that computes the same figures point by point with scalar arithmetic (the
per-chip peak and bandwidths looked up once per chip, as the model does):

* ``evaluate_many`` — the vectorised core: one ``op_work`` call with B as a
  10,000-element array, then every chip at once;
* ``sweep_scenario`` — what the sweep plot calls: the same, plus validation,
  per-chip critical values and one ``SweepCurve`` per chip.

The loop's answers are checked against the model's before anything is timed.
Samples are interleaved (a few model calls, one loop, and again) and timed as
``timeit`` does, with the garbage collector off during each call.
"""

from __future__ import annotations

import argparse
import gc
import math
import time

import _common  # noqa: F401  (puts the checkout on sys.path)
from _common import BUSY_CHIPS, emit, summary

import numpy as np

POINTS = 10_000


def _setup():
    from roofgui.model.catalog import Catalog
    from roofgui.model.scenario import OpSpec, Scenario, SweepSpec
    from roofgui.model.evaluate import sweep_values

    catalog = Catalog.load(user_dir=False)
    chips = [catalog.get(c) for c in BUSY_CHIPS]
    sc = Scenario(ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192},
                              {"x": "bf16", "w": "int8", "out": "bf16", "compute": "bf16"})],
                  chips=list(BUSY_CHIPS), sweep=SweepSpec("B", 1.0, 65536.0, POINTS))
    x = sweep_values(sc.sweep)
    return catalog, chips, sc, x


def model_evaluate_many(chips, sc, x):
    from roofgui.model.ops import op_work
    from roofgui.model.roofline import evaluate_many

    op = sc.ops[0]
    dims = op.full_dims()
    dims["B"] = x
    work = op_work(op.kind, dims, op.dtypes)
    return evaluate_many(work, chips, sc.settings())


def model_sweep_scenario(catalog, sc, x):
    from roofgui.model.evaluate import sweep_scenario

    curves, errors = sweep_scenario(sc, catalog, x)
    assert not errors and len(curves) == len(BUSY_CHIPS), errors
    return curves


def plain_loop(chips, sc, x):
    """The same figures, one point at a time, in plain Python floats."""
    from roofgui.model.dtypes import get_dtype
    from roofgui.model.ops import op_work
    from roofgui.model.roofline import chip_figures

    op = sc.ops[0]
    D, F = op.dims["D"], op.dims["F"]
    sx = get_dtype(op.dtypes["x"]).bytes
    sw = get_dtype(op.dtypes["w"]).bytes
    sz = get_dtype(op.dtypes["out"]).bytes
    probe = op_work(op.kind, op.full_dims(), op.dtypes)
    xs = [float(v) for v in x]
    out = []
    for chip in chips:
        figs = chip_figures(chip, probe, sc.settings())
        peak, bw = figs.peak, figs.hbm_bandwidth
        crit = peak / bw
        rows = []
        for b in xs:
            flops = 2.0 * b * D * F
            hbm = b * D * sx + D * F * sw + b * F * sz
            t_math = flops / peak
            t_hbm = hbm / bw
            t_net = 0.0
            t_comms = t_hbm if t_hbm >= t_net else t_net
            t_lower = t_math if t_math >= t_comms else t_comms
            t_upper = t_math + t_comms
            intensity = flops / hbm
            attainable = flops / t_lower
            util = t_math / t_lower
            bound = 0 if t_math >= t_comms else (1 if t_hbm >= t_net else 2)
            rows.append((flops, hbm, t_math, t_hbm, t_net, t_comms, t_lower, t_upper,
                         intensity, crit, attainable, util, bound))
        out.append(rows)
    return out


def check_same(res, loop) -> None:
    names = ("flops", "hbm_bytes", "t_math", "t_hbm", "t_net", "t_comms", "t_lower", "t_upper",
             "intensity", "critical_intensity", "attainable_flops", "utilisation", "bound_code")
    for c, rows in enumerate(loop):
        for j, name in enumerate(names):
            want = np.array([r[j] for r in rows])
            got = np.broadcast_to(np.asarray(getattr(res, name))[c], want.shape)
            if not np.allclose(got, want, rtol=1e-12, atol=0):
                raise AssertionError(f"plain loop and model disagree on {name} for chip {c}")


def _time(fn, repeats, cpu=None):
    """Time ``fn`` as ``timeit`` does: the garbage collector is off during each call.

    (A ``gc.collect()`` before each call would walk every object and leave the
    caches cold, which costs the vectorised model ~1 ms per call and the loop
    nothing measurable.)
    """
    samples = []
    for _ in range(repeats):
        gc.disable()
        try:
            c0 = time.process_time()
            t0 = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t0)
            if cpu is not None:
                cpu.append(time.process_time() - c0)
        finally:
            gc.enable()
    return samples


def run(repeats: int = 30, loop_repeats: int = 7) -> dict:
    catalog, chips, sc, x = _setup()
    check_same(model_evaluate_many(chips, sc, x), plain_loop(chips, sc, x))
    for _ in range(3):  # warm caches
        model_evaluate_many(chips, sc, x)
        model_sweep_scenario(catalog, sc, x)
    from roofgui.model import roofline

    # (whether the model shared a sweep's rows with its helper thread: then its process
    # CPU time counts two threads, and is no longer a stand-in for its wall time)
    helper_calls = getattr(roofline, "helper_calls", 0)
    # Interleave so that a noisy neighbour hits both sides alike.
    em, ss, lp = [], [], []
    emc, ssc, lpc = [], [], []
    per_round = max(1, math.ceil(repeats / loop_repeats))
    for _ in range(loop_repeats):
        em += _time(lambda: model_evaluate_many(chips, sc, x), per_round, emc)
        ss += _time(lambda: model_sweep_scenario(catalog, sc, x), per_round, ssc)
        lp += _time(lambda: plain_loop(chips, sc, x), 1, lpc)
    loop_med = summary(lp)["median"]
    loop_cpu = summary(lpc)["median"]
    r_em, r_ss = summary(em), summary(ss)
    return {
        "points": POINTS, "chips": len(chips),
        "evaluate_many_s": r_em, "sweep_scenario_s": r_ss, "plain_loop_s": summary(lp),
        "speedup_evaluate_many": loop_med / r_em["median"],
        "speedup_sweep_scenario": loop_med / r_ss["median"],
        "cpu_evaluate_many_s": summary(emc), "cpu_sweep_scenario_s": summary(ssc),
        "cpu_plain_loop_s": summary(lpc),
        "cpu_speedup_evaluate_many": loop_cpu / summary(emc)["median"],
        "cpu_speedup_sweep_scenario": loop_cpu / summary(ssc)["median"],
        "helper_thread": getattr(roofline, "helper_calls", 0) > helper_calls,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--loop-repeats", type=int, default=7)
    p.add_argument("--json")
    a = p.parse_args()
    emit(run(a.repeats, a.loop_repeats), a.json)


if __name__ == "__main__":
    main()
