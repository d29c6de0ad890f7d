"""The sweep edit's shortcuts give what the general paths give, bit for bit.

Each shortcut of the model's sweep (plain-float crossings, remembered chip figures,
frozen dataclasses filled in one update) is checked here against the path it stands in
for.
"""

import copy
import math

import numpy as np
import pytest
from test_sweep_reuse import busy
from hypothesis import given, settings
from hypothesis import strategies as st

from roofgui.model import roofline as rl
from roofgui.model.catalog import Catalog
from roofgui.model.dtypes import get_dtype
from roofgui.model.ops import OP_KINDS, Shard, Work, op_work
from roofgui.model.roofline import (ChipFigures, Result, Settings, chip_figures,
                                    critical_values_many)
from roofgui.model.scenario import (_CURVE_FIELDS, _RESULT_FIELDS, OpSpec,
                                    SweepCurve, _frozen)


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


def _bits(v):
    """A float, NaN or None, comparable bit for bit (NaN equals NaN; -0.0 is not 0.0)."""
    if v is None:
        return None
    return np.float64(v).tobytes()


# -- crossings in plain floats -------------------------------------------------------

_odd = st.sampled_from([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 5e-324, 1e308,
                        -1e308, 1e-300, 2.0 ** 20, 3.0])
_num = st.one_of(st.floats(allow_nan=True, allow_infinity=True), _odd,
                 st.floats(1e-6, 1e20), st.floats(1e-6, 1e20))
_pos = st.one_of(st.floats(1e3, 1e16), _odd)


def _work(f, h, n):
    bf16 = get_dtype("bf16")
    return Work(np.array(f, dtype=np.float64), np.array(h, dtype=np.float64),
                np.array(n, dtype=np.float64), "matrix", bf16)


def _figs(peak, hbm, link):
    return ChipFigures(None, peak, None, hbm, link, 1.0)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # (the array path's)
@settings(max_examples=400, deadline=None)
@given(works=st.lists(st.tuples(st.tuples(_num, _num), st.tuples(_num, _num),
                                st.tuples(_num, _num)), min_size=1, max_size=3),
       chips=st.lists(st.tuples(_pos, _pos, st.one_of(st.none(), _pos)), min_size=1, max_size=6))
def test_plain_crossings_are_the_array_paths_wherever_they_answer(works, chips):
    ws = [_work(*w) for w in works]
    figs = [_figs(*c) for c in chips]
    names = ["B", "D", "F"][:len(ws)]
    plain = rl._critical_plain(names, ws, figs)
    if plain is None:  # (a divisor of zero, a NaN or an overflow: the array path answers)
        return
    arrays = rl._critical_arrays(names, ws, figs)
    assert [list(d) for d in plain] == [list(d) for d in arrays]  # the same keys, in order
    assert [[_bits(v) for v in d.values()] for d in plain] == \
        [[_bits(v) for v in d.values()] for d in arrays]


@settings(max_examples=300, deadline=None)
@given(t=st.lists(st.floats(1e-12, 1e3), min_size=6, max_size=6),
       flat=st.integers(0, 4), chips=st.integers(1, 6))
def test_plain_crossings_of_roofline_like_times(t, flat, chips):
    # times affine in the probe, some slopes or intercepts equal (the flat and zero cases)
    f0, f1, h0, h1, n0, n1 = t
    if flat == 1:
        h1 = h0 + (f1 - f0)  # T_hbm parallel to T_math
    elif flat == 2:
        h0 = f0  # equal intercepts
    elif flat == 3:
        n0 = n1 = 0.0  # no link bytes
    figs = [_figs(1.0 + k, 1.0 + 2 * k, [None, 1.0, 0.5][k % 3]) for k in range(chips)]
    ws = [_work((f0, f1), (h0, h1), (n0, n1))]
    plain = rl._critical_plain(["B"], ws, figs)
    assert plain is not None
    assert [[_bits(v) for v in d.values()] for d in plain] == \
        [[_bits(v) for v in d.values()] for d in rl._critical_arrays(["B"], ws, figs)]


def test_plain_crossings_turn_away_what_they_do_not_reproduce():
    w = _work((1.0, 2.0), (3.0, 4.0), (0.0, 0.0))
    assert rl._critical_plain(["B"], [w], [_figs(0.0, 1.0, None)]) is None  # 1 / 0
    assert rl._critical_plain(["B"], [w], [_figs(1, 1.0, None)]) is None  # not a float
    assert rl._critical_plain(["B"], [w], [_figs(math.nan, 1.0, None)]) is None
    scalar = Work(np.float64(1.0), np.array([1.0, 2.0]), np.array([0.0, 0.0]), "matrix",
                  get_dtype("bf16"))
    assert rl._critical_plain(["B"], [scalar], [_figs(1.0, 1.0, None)]) is None


_KINDS = [
    ("matmul", {"B": 256, "D": 8192, "F": 8192}, None),
    ("matmul", {"B": 3, "D": 7, "F": 1e6}, Shard("D", 4, "scale-up")),
    ("matmul", {"B": 1024, "D": 16384, "F": 16384}, Shard("B", 2, "pcie")),
    ("batched-matmul", {"B": 64, "D": 1024, "F": 1024}, Shard("D", 8, "scale-up")),
    ("dot", {"N": 1 << 20}, None),
    ("elementwise", {"N": 1 << 24, "inputs": 3, "flops_per_element": 0.5}, None),
    ("custom", {"flops": 1e12, "bytes": 1e9, "net_bytes": 1e8}, Shard("net", 2, "scale-up")),
]


@pytest.mark.parametrize("kind, dims, shard", _KINDS)
@pytest.mark.parametrize("dtypes", [{}, {"w": "int8"}, {"x": "fp8", "out": "fp32", "compute": "fp8"}])
def test_critical_values_many_is_the_array_path_for_the_catalogs_chips(cat, monkeypatch, kind,
                                                                       dims, shard, dtypes):
    k = OP_KINDS[kind]
    dtypes = {r: v for r, v in dtypes.items() if r in k.dtype_roles}
    work = op_work(k, dims, dtypes, shard)
    for s in (Settings(), Settings(2.0, 0.5, 3.0, True)):
        figs = []
        for c in cat.chips.values():
            try:
                figs.append(chip_figures(c, work, s))
            except Exception:  # (a chip without the link or the dtype)
                continue
        for names in (None, [k.dim_names()[0]]):
            got = [critical_values_many(k, dims, figs[i:i + 8], dtypes=dtypes, shard=shard,
                                        names=names) for i in range(0, len(figs), 8)]
            monkeypatch.setattr(rl, "_FEW_CROSSINGS", -1)  # the array path alone
            want = [critical_values_many(k, dims, figs[i:i + 8], dtypes=dtypes, shard=shard,
                                         names=names) for i in range(0, len(figs), 8)]
            monkeypatch.undo()
            assert [[{n: _bits(v) for n, v in d.items()} for d in g] for g in got] == \
                [[{n: _bits(v) for n, v in d.items()} for d in g] for g in want]


# -- remembered chip figures ---------------------------------------------------------

def _same_figures(a: ChipFigures, b: ChipFigures):
    assert a == b  # (every field: the chip, its peak and notes, the bandwidths)


@pytest.mark.parametrize("s", [Settings(), Settings(1, 1, 1), Settings(2.0, 0.5, 3.0),
                               Settings(1.0, 1.0, 1.0, True), Settings(4, 1.0, 0.25, True)])
def test_remembered_chip_figures_are_the_figures_worked_out(cat, s):
    for dt, shard in (({}, None), ({"w": "int8", "compute": "int8"}, Shard("D", 2, "pcie")),
                      ({"compute": "fp8"}, Shard("D", 2, "scale-up"))):
        work = op_work("matmul", {"B": 8, "D": 16, "F": 32}, dt, shard)
        for c in cat.chips.values():
            try:
                want = rl._figures(c, work, s)
            except Exception as e:
                with pytest.raises(type(e)):
                    chip_figures(c, work, s)
                continue
            first, again = chip_figures(c, work, s), chip_figures(c, work, s)
            _same_figures(first, want)
            assert again is first  # (remembered)


def test_remembered_chip_figures_tell_apart_chips_settings_and_work(cat):
    h100 = cat.get("h100-sxm")
    work = op_work("matmul", {"B": 8, "D": 16, "F": 32})
    # a different chip object with the same id: its own figures
    other = copy.copy(h100)
    assert chip_figures(other, work).chip is other and chip_figures(h100, work).chip is h100
    # a bool is not a number here (Chip.scaled refuses it), nor is 1 confused with True
    with pytest.raises(Exception):
        chip_figures(h100, work, Settings(True, 1.0, 1.0))
    assert chip_figures(h100, work, Settings(2.0)).peak == 2.0 * chip_figures(h100, work).peak
    int8 = op_work("matmul", {"B": 8, "D": 16, "F": 32}, {"compute": "int8"})
    assert chip_figures(h100, int8).peak_info == rl._figures(h100, int8, Settings()).peak_info
    # bounded: old entries are dropped
    for k in range(rl._FIGURES_SIZE + 50):
        chip_figures(h100, work, Settings(1.0 + k / 1000))
    assert len(rl._FIGURES) <= rl._FIGURES_SIZE


# -- frozen dataclasses in one update -------------------------------------------------

def test_frozen_builds_what_init_builds(cat):
    for cls in (Result, SweepCurve):
        assert not hasattr(cls, "__post_init__") and "__slots__" not in cls.__dict__
    vals = tuple(np.arange(3.0) + k for k in range(len(_RESULT_FIELDS)))
    a, b = _frozen(Result, _RESULT_FIELDS, vals), Result(*vals)
    assert type(a) is Result and vars(a).keys() == vars(b).keys()
    assert all(vars(a)[f] is vars(b)[f] for f in _RESULT_FIELDS)
    with pytest.raises(AttributeError):
        a.flops = None  # still frozen
    vals = (1, OpSpec(), "p", cat.get("h100-sxm"), np.arange(2.0), b, 3.5)
    c, d = _frozen(SweepCurve, _CURVE_FIELDS, vals), SweepCurve(*vals)
    assert type(c) is SweepCurve and vars(c).keys() == vars(d).keys()
    assert all(vars(c)[f] is vars(d)[f] for f in _CURVE_FIELDS)
    assert c.label == d.label


# -- helpers (shared with tests/test_model_fastpaths.py) ------------------------------

def _scenario(points=300):
    """test_sweep_reuse's busy scenario, with a fourth chip."""
    sc = busy(points)
    sc.chips.append("b200")
    return sc


def _line_fields(ln):
    out = []
    for f in ln.__dataclass_fields__:
        v = getattr(ln, f)
        out.append(v.tobytes() if isinstance(v, np.ndarray) else
                   (_bits(v) if isinstance(v, float) else v))
    return out


