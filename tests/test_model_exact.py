"""The model's quick paths give exactly what the plain formulas give (bit for bit).

``roofline()``, ``critical_values_many`` and the checks of array dimensions take
shortcuts for speed (one block of results, bound codes read as bytes, T_hbm > 0
read off the inputs' extremes, hand-built broadcast views, every dimension's
crossing in one pass, an array checked on its extremes).  Each is compared here
with the straightforward formulation, NaN, infinities and signed zeros included.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofgui.model.catalog import Catalog
from roofgui.model.errors import ModelError
from roofgui.model.ops import OP_KINDS, Shard, op_work, validate_dims
from roofgui.model.roofline import (Result, _quotients_positive, chip_figures, critical_values,
                                    critical_values_many, roofline)
from roofgui.model.units import MAX_VALUE, MIN_VALUE

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SPECIAL = [0.0, -0.0, math.nan, math.inf, -math.inf, -1.0, 5e-324, 1e-300, 1e300, 1.0, 3.0]


def plain_roofline(flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw) -> dict:
    """The roofline as the formulas read, with nothing shared or skipped."""
    f, h, n, p, hb, lb = (np.asarray(a, dtype=np.float64) for a in
                          (flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw))
    shape = np.broadcast_shapes(f.shape, h.shape, n.shape, p.shape, hb.shape, lb.shape)
    with np.errstate(all="ignore"):
        t_math = f / p
        t_hbm = h / hb
        t_net = np.where(n > 0, n / np.where(lb > 0, lb, np.inf), 0.0)
        t_comms = np.maximum(t_hbm, t_net)
        t_lower = np.maximum(t_math, t_comms)
        out = dict(
            flops=f, hbm_bytes=h, net_bytes=n, peak_flops=p, hbm_bandwidth=hb, link_bandwidth=lb,
            t_math=t_math, t_hbm=t_hbm, t_net=t_net, t_comms=t_comms, t_lower=t_lower,
            t_upper=t_math + t_comms, intensity=f / h,
            net_intensity=np.where(n > 0, f / np.where(n > 0, n, 1.0), np.inf),
            critical_intensity=p / hb,
            net_critical_intensity=np.where(lb > 0, p / np.where(lb > 0, lb, 1.0), np.inf),
            attainable_flops=f / t_lower, utilisation=t_math / t_lower,
            bound_code=np.where(t_math >= t_comms, 0, np.where(t_hbm >= t_net, 1, 2)).astype(np.int8))
    return {k: np.broadcast_to(v, shape) for k, v in out.items()}


def same_bits(a, b) -> bool:
    """The same values bit for bit (signed zeros included), where a NaN matches any NaN:
    its sign and payload depend on the order of the operations that made it (NaN + 0
    and 0 + NaN can differ in the sign bit), and carry no value."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        na, nb = np.isnan(a), np.isnan(b)
        if not np.array_equal(na, nb):
            return False
        a, b = np.where(na, 0.0, a), np.where(nb, 0.0, b)
    return a.tobytes() == b.tobytes()


def values(draw_shape):
    return st.one_of(
        st.sampled_from(SPECIAL),
        st.floats(1e-3, 1e18),
        draw_shape.flatmap(lambda s: st.lists(st.one_of(st.sampled_from(SPECIAL), st.floats(1e-3, 1e18)),
                                              min_size=int(np.prod(s)), max_size=int(np.prod(s)))
                           .map(lambda v, s=s: np.array(v, dtype=np.float64).reshape(s))))


@FAST
@given(st.data())
def test_roofline_is_the_plain_formulas_bit_for_bit(data):
    args = []
    for _ in range(6):
        args.append(data.draw(values(st.sampled_from([(3,), (2, 1), (1, 3), (2, 3)]))))
    try:
        np.broadcast_shapes(*(np.shape(a) for a in args))
    except ValueError:
        with pytest.raises(ValueError):
            roofline(*args)
        return
    if data.draw(st.booleans()):  # the common case: nothing crosses a link
        args[2], args[5] = 0.0, 0.0
    with np.errstate(all="ignore"):
        got = roofline(*args)
    want = plain_roofline(*args)
    for name in Result.__dataclass_fields__:
        a = getattr(got, name)
        assert same_bits(a, want[name]), name
        assert not a.flags.writeable, name


def test_roofline_of_a_sweep_over_chips_is_the_plain_formulas():
    B = np.geomspace(1, 65536, 1000)
    flops, hbm = 2.0 * B * 8192 * 8192, B * 8192 * 2 + 8192 * 8192 + B * 8192 * 2
    peak = np.array([1.97e14, 9.89e14, 2.25e15, 1.3e15])[:, None]
    bw = np.array([8.2e11, 3.35e12, 8e12, 5.3e12])[:, None]
    got = roofline(flops, hbm, np.zeros_like(B), peak, bw, np.zeros((4, 1)))
    want = plain_roofline(flops, hbm, np.zeros_like(B), peak, bw, np.zeros((4, 1)))
    for name in Result.__dataclass_fields__:
        assert same_bits(getattr(got, name), want[name]), name
        assert getattr(got, name).shape == (4, 1000)
    # T_comms is T_hbm here, but each field is its own read-only array
    assert got.t_comms is not got.t_hbm
    with pytest.raises(ValueError):
        got.t_comms[0, 0] = 1.0


@FAST
@given(st.lists(st.sampled_from(SPECIAL) | st.floats(1e-310, 1e308), min_size=1, max_size=5),
       st.lists(st.sampled_from(SPECIAL) | st.floats(1e-310, 1e308), min_size=1, max_size=3))
def test_quotients_positive_only_when_every_quotient_is(num, den):
    n, d = np.array(num)[:, None], np.array(den)[None, :]
    if _quotients_positive(n, d):
        with np.errstate(all="ignore"):
            assert (n / d > 0).all()


def test_quotients_positive_says_no_to_what_it_cannot_show():
    one = np.ones(3)
    for bad in (np.array([0.0, 1.0]), np.array([-0.0]), np.array([math.nan]), np.array([-1.0])):
        assert not _quotients_positive(bad, one)
        assert not _quotients_positive(one, bad)
    assert not _quotients_positive(one, np.array([math.inf]))
    assert not _quotients_positive(np.array([5e-324]), np.array([1e300]))  # underflows to 0
    assert not _quotients_positive(np.empty(0), one)
    assert _quotients_positive(np.array([1.0, math.inf]), np.array([2.0, 1e10]))


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


@pytest.mark.parametrize("kind,dims,dtypes,shard", [
    ("matmul", {"B": 256, "D": 8192, "F": 8192}, {"w": "int8"}, None),
    ("matmul", {"B": 4096, "D": 16384, "F": 4096}, {}, Shard("D", 8, "scale-up")),
    ("matmul", {"B": 512, "D": 4096, "F": 4096}, {}, Shard("B", 4, "pcie")),
    ("batched-matmul", {"B": 64, "D": 1024, "F": 1024}, {}, None),
    ("dot", {"N": 1 << 20}, {}, None),
    ("elementwise", {"N": 1 << 24, "inputs": 3, "flops_per_element": 2.5}, {}, None),
    ("custom", {"flops": 1e12, "bytes": 1e9, "net_bytes": 1e8}, {}, Shard("net", 4, "pcie")),
])
def test_critical_values_many_is_critical_values_per_chip(catalog, kind, dims, dtypes, shard):
    k = OP_KINDS[kind]
    chips = [catalog.get(c) for c in ("tpu-v5e", "h100-sxm", "mi300x", "b200")]
    work = op_work(k, dims, dtypes, shard)
    figs = [chip_figures(c, work) for c in chips]
    many = critical_values_many(k, dims, figs, dtypes=dtypes, shard=shard)
    one = [critical_values(k, dims, f, dtypes=dtypes, shard=shard) for f in figs]
    assert [list(d) for d in many] == [list(k.dim_names())] * len(chips)
    for m, o in zip(many, one):
        for name in k.dim_names():
            a, b = m[name], o[name]
            assert (a is None and b is None) or (a is not None and b is not None
                                                 and float(a).hex() == float(b).hex()), name
    last = k.dim_names()[-1]
    only = critical_values_many(k, dims, figs, dtypes=dtypes, shard=shard, names=[last])
    assert only == [{last: d[last]} for d in many]
    assert critical_values_many(k, dims, figs, dtypes=dtypes, shard=shard, names=[]) == [{}] * 4


def test_critical_values_many_reports_the_first_bad_dimension_as_before(catalog):
    k = OP_KINDS["matmul"]
    work = op_work(k, {"B": 1, "D": 1, "F": 1})
    figs = [chip_figures(catalog.get("h100-sxm"), work)]
    # B and F bad: the probe of B still counts F, so F is what is reported first
    with pytest.raises(ModelError, match="F"):
        critical_values_many(k, {"B": -1.0, "D": 8.0, "F": -2.0}, figs)
    # a one-dimension op never checks the value its probe replaces
    d = OP_KINDS["dot"]
    figs = [chip_figures(catalog.get("h100-sxm"), op_work(d, {"N": 8}))]
    assert critical_values_many(d, {"N": -5.0}, figs) == critical_values_many(d, {"N": 8.0}, figs)


@pytest.mark.parametrize("values,message", [
    ([1.0, math.nan, 2.0], "must be finite"),
    ([1.0, math.inf], "must be finite"),
    ([-math.inf, 5.0], "must be finite"),
    ([0.0, 1e20], "must be greater than zero"),
    ([-0.0, 2.0], "must be greater than zero"),
    ([1.0, -3.0], "must be greater than zero"),
    ([1.0, MAX_VALUE * 1.01], "is too large"),
    ([0.5, 2.0], "must be at least 1"),
])
def test_array_dimension_checks(values, message):
    with pytest.raises(ModelError, match=message):
        validate_dims(OP_KINDS["matmul"], {"B": np.array(values)})


def test_array_dimension_checks_non_integer_dimension():
    kind = OP_KINDS["elementwise"]
    with pytest.raises(ModelError, match="is too small"):
        validate_dims(kind, {"flops_per_element": np.array([1.0, MIN_VALUE / 2])})
    a = np.array([0.5, MIN_VALUE, 3.0])
    assert validate_dims(kind, {"flops_per_element": a})["flops_per_element"] is a


def test_an_unsharded_sweep_array_is_not_copied_but_the_results_are_the_same():
    B = np.geomspace(1, 1e6, 101)
    w = op_work("matmul", {"B": B, "D": 4096, "F": 8192})
    assert same_bits(w.flops, 2.0 * B * 4096.0 * 8192.0)
    w2 = op_work("matmul", {"B": B, "D": 4096, "F": 8192}, shard=Shard("B", 2, "ici"))
    assert same_bits(w2.flops, 2.0 * (B / 2.0) * 4096.0 * 8192.0)
