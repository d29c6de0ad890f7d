"""Properties of the model over the whole valid input space (hypothesis).

Valid inputs: every dimension 1..1e12, peaks 1e9..1e19 FLOP/s, HBM and link
bandwidths 1e6..1e16 B/s, every op, dtype, shard axis and chip count.
"""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from roofgui.model.chips import Figure, make_chip
from roofgui.model.dtypes import DTYPES, PEAK_KEYS
from roofgui.model.ops import OP_KINDS, Shard, op_work
from roofgui.model.roofline import Result, Settings, analyze, chip_figures, evaluate_work
from roofgui.model.units import MIN_VALUE

CORE_OPS = ("matmul", "batched-matmul", "dot", "elementwise", "custom")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Result fields that must be finite and ≥ 0 for every valid input.
FINITE = ("flops", "hbm_bytes", "net_bytes", "peak_flops", "hbm_bandwidth", "link_bandwidth",
          "t_math", "t_hbm", "t_net", "t_comms", "t_lower", "t_upper", "intensity",
          "critical_intensity", "attainable_flops", "utilisation")
#: Fields that are +inf by design when nothing crosses a link; never NaN or negative.
MAYBE_INF = ("net_intensity", "net_critical_intensity")


def log_uniform(lo, hi):
    return st.floats(math.log10(lo), math.log10(hi)).map(lambda e: float(10.0 ** e))


@st.composite
def chips(draw):
    rate = log_uniform(1e9, 1e19)
    other_keys = st.sampled_from([k for k in PEAK_KEYS if k != "bf16"])
    chip = make_chip("p", "P", peak=draw(rate), hbm_bandwidth=draw(log_uniform(1e6, 1e16)),
                     matrix=draw(st.dictionaries(other_keys, rate, max_size=3)),
                     vector=draw(st.dictionaries(st.sampled_from(PEAK_KEYS), rate, max_size=2)),
                     links={"ici": draw(log_uniform(1e6, 1e15)), "pcie": draw(log_uniform(1e6, 1e15))})
    frac = draw(st.none() | st.floats(0.05, 1.0))
    return chip if frac is None else replace(chip, achievable=Figure(frac, "p"))


@st.composite
def problems(draw, ops=CORE_OPS):
    """(op, dims, dtypes, shard, params) for any valid input."""
    op = draw(st.sampled_from(ops))
    kind = OP_KINDS[op]
    dims = {}
    for spec in kind.dims:
        hi = 64 if spec.name == "inputs" else 1e12
        v = draw(log_uniform(1, hi))
        dims[spec.name] = float(round(v)) if spec.integer else v
    names = sorted(DTYPES)
    dtypes = {role: draw(st.sampled_from(names)) for role in kind.dtype_roles}
    if "compute" in dtypes and dtypes["compute"] in ("fp32", "tf32"):
        dtypes["compute"] = "bf16"  # make_chip chips may lack any fp32/tf32 path; that is a clean error
    shard = None
    if kind.shard_axes and draw(st.booleans()):
        shard = Shard(draw(st.sampled_from(kind.shard_axes)), draw(st.integers(1, 4096)),
                      draw(st.sampled_from(["ici", "pcie"])))
    params = {"unit": draw(st.sampled_from(["matrix", "vector"]))} if op == "custom" else {}
    return op, dims, dtypes, shard, params


what_ifs = st.builds(Settings, peak=log_uniform(1e-3, 1e3), hbm=log_uniform(1e-3, 1e3),
                     link=log_uniform(1e-3, 1e3), derate=st.booleans())


def run(problem, chip, s=Settings()):
    op, dims, dtypes, shard, params = problem
    return analyze(op, dims, chip, dtypes=dtypes, shard=shard, params=params, settings=s)


def t(a, name="t_lower"):
    return float(np.asarray(getattr(a.result, name)))


def comms(r: Result) -> float:
    return max(float(r.t_hbm), float(r.t_net))


@FAST
@given(problems(), chips(), what_ifs)
def test_bounds_and_no_nan_inf_or_negative(problem, chip, s):
    a = run(problem, chip, s)
    r = a.result
    for name in FINITE:
        v = np.asarray(getattr(r, name))
        assert np.all(np.isfinite(v)), name
        assert np.all(v >= 0), name
    for name in MAYBE_INF:
        v = np.asarray(getattr(r, name))
        assert not np.any(np.isnan(v)) and np.all(v > 0), name
    assert float(r.flops) > 0 and float(r.t_lower) > 0
    lo, up = float(r.t_lower), float(r.t_upper)
    assert lo <= up <= 2 * lo
    assert lo == max(float(r.t_math), float(r.t_hbm), float(r.t_net))
    assert up == pytest.approx(float(r.t_math) + comms(r), rel=1e-15)
    assert float(r.utilisation) <= 1.0
    assert float(r.attainable_flops) <= float(r.peak_flops) * (1 + 1e-12)
    assert r.bound in ("compute", "memory", "network")
    for v in a.critical.values():
        assert v is None or (math.isfinite(v) and v > 0)


@FAST
@given(problems(), chips(), st.sampled_from(["peak", "hbm", "link"]), log_uniform(1.0, 1e4))
def test_more_bandwidth_or_peak_is_never_slower(problem, chip, knob, factor):
    base = run(problem, chip)
    faster = run(problem, chip, Settings(**{knob: factor}))
    for name in ("t_lower", "t_upper", "t_math", "t_hbm", "t_net"):
        assert t(faster, name) <= t(base, name), name
    assert float(faster.result.attainable_flops) >= float(base.result.attainable_flops)


@FAST
@given(problems(), chips(), log_uniform(1.0, 100), log_uniform(1.0, 1e4), log_uniform(1.0, 1e4))
def test_a_faster_chip_is_never_slower(problem, chip, kp, kh, kl):
    """The same through a chip built with bigger figures (not only what-ifs)."""
    big = make_chip("q", "Q", peak=chip.matrix["bf16"].value * kp,
                    hbm_bandwidth=chip.hbm_bandwidth.value * kh,
                    matrix={k: f.value * kp for k, f in chip.matrix.items() if k != "bf16"},
                    vector={k: f.value * kp for k, f in chip.vector.items()},
                    links={k: l.bandwidth.value * kl for k, l in chip.links.items()})
    assert t(run(problem, big)) <= t(run(problem, chip))


def _is_compute(problem, chip, name, x):
    """(T_math, largest comms time) with one dimension set to x (no critical values: fast)."""
    op, dims, dtypes, shard, params = problem
    d = dict(dims)
    d[name] = x
    w = op_work(op, d, dtypes, shard, params)
    r = evaluate_work(w, chip_figures(chip, w))
    return float(r.t_math), comms(r)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(ops=("matmul", "batched-matmul", "dot", "elementwise", "custom")), chips())
def test_critical_value_is_the_crossing(problem, chip):
    op, dims, dtypes, shard, params = problem
    a = run(problem, chip)
    integer = {s.name: s.integer for s in OP_KINDS[op].dims}
    for name, x in a.critical.items():
        lowest = 1.0 if integer[name] else MIN_VALUE
        if x is None:
            # Never, or always, compute-bound along this dimension: the sign of
            # T_math − T_comms does not change between the ends of the range.
            signs = set()
            for v in (1.0, 1e3, 1e6, 1e9, 1e12):
                tm, tc = _is_compute(problem, chip, name, v)
                if abs(tm - tc) > 1e-9 * max(tm, tc):
                    signs.add(tm > tc)
            assert len(signs) <= 1, (name, signs)
            continue
        assert x > 0 and math.isfinite(x)
        delta = 1e-3
        if not (x * (1 - delta) >= lowest and x * (1 + delta) <= 1e15):
            continue  # the crossing lies outside the values a dimension may take
        tm, tc = _is_compute(problem, chip, name, x)
        assert tm == pytest.approx(tc, rel=1e-6), name  # T_math = the largest comms time
        above = _is_compute(problem, chip, name, x * (1 + delta))
        below = _is_compute(problem, chip, name, x * (1 - delta))
        # The bound flips across x; only judged where the step is resolvable in float64.
        res_above = abs(above[0] - above[1]) > 1e-9 * max(above)
        res_below = abs(below[0] - below[1]) > 1e-9 * max(below)
        if res_above and res_below:
            assert (above[0] > above[1]) != (below[0] > below[1]), name
            if op in ("matmul", "batched-matmul") or name == "flops" or name == "flops_per_element":
                # more work per byte: compute-bound just above the crossing, not just below
                assert above[0] > above[1] and below[0] < below[1], name


@settings(max_examples=40, deadline=None)
@given(chips(), log_uniform(1, 1e6), log_uniform(1, 1e6), st.integers(2, 512))
def test_d_sharded_critical_d_is_independent_of_b(chip, F, B, n):
    """T_math = 2B(D/n)F/p against T_net = 2(n−1)/n·BF·s/link: D* = (n−1)·s·p/link (s = 2 for bf16),
    the reference's D > 8755 generalised; B and F cancel whenever the link, not HBM, binds."""
    a = analyze("matmul", {"B": B, "D": 1e6, "F": F}, chip, shard=Shard("D", n, "ici"))
    d_net = (n - 1) * 2 * chip.matrix["bf16"].value / chip.links["ici"].bandwidth.value
    x = a.critical["D"]
    assert x is None or x >= d_net * (1 - 1e-9)
    if x is not None and float(a.result.t_hbm) < float(a.result.t_net) and x == pytest.approx(d_net, rel=1e-6):
        a2 = analyze("matmul", {"B": B * 3, "D": 1e6, "F": F}, chip, shard=Shard("D", n, "ici"))
        assert a2.critical["D"] is None or a2.critical["D"] >= d_net * (1 - 1e-9)
