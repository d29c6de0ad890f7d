"""Plot geometry (pure numpy): regions, roofs, points, ticks, sweep curves and markers."""

import math

import numpy as np
import pytest

from roofgui.presentation import plotdata as pd
from roofgui.presentation import sweepgeom as sg
from roofgui.model.catalog import Catalog
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec, SweepSpec
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario

L = math.log10


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


def kinds_at(regions, xs):
    return [pd.region_at(regions, L(x)) for x in xs]


# -- regions --------------------------------------------------------------------

def test_regions_reference_bw1_bw2():
    # The reference's figure: one peak, two bandwidths BW1 < BW2.  Red: bound under
    # both; yellow: bound only under the lower bandwidth BW1; green: compute-bound under both.
    peak, bw1, bw2 = 1.97e14, 8.2e11, 1.64e12
    ridge1, ridge2 = peak / bw1, peak / bw2  # 240, 120
    regs = pd.region_intervals([ridge1, ridge2])
    assert [r.kind for r in regs] == ["red", "yellow", "green"]
    assert regs[0].x1 == pytest.approx(L(ridge2))
    assert (regs[1].x0, regs[1].x1) == pytest.approx((L(ridge2), L(ridge1)))
    assert regs[2].x0 == pytest.approx(L(ridge1))
    assert kinds_at(regs, [1, 100, 119, 121, 200, 239, 241, 1e4]) == \
        ["red", "red", "red", "yellow", "yellow", "yellow", "green", "green"]


def test_regions_single_roof_red_and_green_only():
    regs = pd.region_intervals([240.0])
    assert [r.kind for r in regs] == ["red", "green"]
    assert kinds_at(regs, [239.9, 240.1]) == ["red", "green"]
    # the same ridge twice is still one roof's worth of regions
    assert [r.kind for r in pd.region_intervals([240.0, 240.0])] == ["red", "green"]


def test_regions_empty_and_bad_values():
    assert pd.region_intervals([]) == []
    assert pd.region_intervals([float("nan"), 0.0, -3.0, None]) == []


def test_regions_cover_the_axis_without_gaps():
    regs = pd.region_intervals([5.0, 300.0, 40.0, 1e4])
    for a, b in zip(regs, regs[1:]):
        assert a.x1 == b.x0
    assert regs[0].x0 <= -50 and regs[-1].x1 >= 50


def test_regions_several_chips(cat):
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192}, {})])
    ev = evaluate_scenario(sc, cat)
    g = pd.roofline_geometry(sc, ev)
    r5 = 1.97e14 / 8.2e11
    h = next(e for e in ev.entries if e.chip_id == "h100-sxm").analysis.figures
    rh = h.peak / h.hbm_bandwidth
    assert rh > r5 * 1.05
    assert [r.kind for r in g.regions] == ["red", "yellow", "green"]
    assert g.regions[0].x1 == pytest.approx(L(r5))
    assert g.regions[2].x0 == pytest.approx(L(rh))
    # one chip alone: no yellow
    sc1 = Scenario(chips=["tpu-v5e"], ops=sc.ops)
    g1 = pd.roofline_geometry(sc1, evaluate_scenario(sc1, cat))
    assert [r.kind for r in g1.regions] == ["red", "green"]
    assert g1.regions[1].x0 == pytest.approx(L(r5))


def test_regions_include_link_roofs(cat):
    # D-sharded over 2 TPU v5e: the ICI roof's ridge 1.97e14 / 4.5e10 = 4378 joins the HBM ridge 240
    sc = Scenario(chips=["tpu-v5e"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192}, {},
                              ShardSpec("D", 2, "ici"))])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    assert [r.kind for r in g.regions] == ["red", "yellow", "green"]
    assert g.regions[0].x1 == pytest.approx(L(1.97e14 / 8.2e11))
    assert g.regions[2].x0 == pytest.approx(L(1.97e14 / 4.5e10))
    chip = g.chip("tpu-v5e")
    assert {r.key for r in chip.roofs} == {"compute:bf16", "hbm", "link:ici"}
    link = next(r for r in chip.roofs if r.key == "link:ici")
    assert link.bandwidth == 4.5e10
    assert {r.label for r in chip.ridges} == {"240", "4\u2009378"}



def test_scale_up_link_roofs_are_each_chips_own_link(cat):
    # one op sharded over "scale-up" on a TPU, an NVIDIA and an AMD GPU: each chip's link
    # roof and ridge is its own resolved link, keyed and named by it (not "scale-up")
    sc = Scenario(chips=["tpu-v5e", "h100-sxm", "mi300x"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192}, {},
                              ShardSpec("D", 2, "scale-up"))])
    ev = evaluate_scenario(sc, cat)
    assert not ev.errors
    want = {"tpu-v5e": "ici", "h100-sxm": "nvlink", "mi300x": "xgmi"}
    g = pd.roofline_geometry(sc, ev)
    for cid, name in want.items():
        chip = g.chip(cid)
        (link,) = [r for r in chip.roofs if r.kind == "link"]
        assert link.key == f"link:{name}" and f"{name} link roof" in link.tooltip
        assert link.bandwidth == cat.get(cid).links[name].bandwidth.value
        assert any(r.key.startswith(f"link:{name}|") for r in chip.ridges)
        assert not any("scale-up" in r.key or "scale-up" in r.tooltip
                       for r in chip.roofs + chip.ridges)



def test_a_ridge_label_shared_by_chips_is_shown_once(cat):
    # H100 and H200 have the same bf16 peak and NVLink: their link ridges (2 199) coincide;
    # their HBM ridges (295, 206) differ and are each labelled
    sc = Scenario(chips=["h100-sxm", "h200", "b200"],
                  ops=[OpSpec("mm", "matmul", {"B": 4096, "D": 8192, "F": 8192}, {},
                              ShardSpec("D", 8, "nvlink"))])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    ridges = [r for c in g.chips for r in c.ridges]
    shown = [(r.label, r.x) for r in ridges if r.label_shown]
    assert len(shown) == len(set(shown))  # no label twice at one place
    h100, h200 = g.chip("h100-sxm").ridges, g.chip("h200").ridges
    link = [r for r in h100 + h200 if r.key.startswith("link:")]
    assert len(link) == 2 and link[0].label == link[1].label and link[0].x == link[1].x
    assert [r.label_shown for r in link] == [True, False]
    assert all(r.label_shown for r in ridges if r.key.startswith("hbm|"))
    assert all(r.label_shown for r in g.chip("b200").ridges)


# -- roofs and points -------------------------------------------------------------

def test_roofs_points_and_ridges_are_the_models(cat):
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
                       OpSpec("dot", "dot", {"N": 1 << 20}, {})])
    ev = evaluate_scenario(sc, cat)
    g = pd.roofline_geometry(sc, ev)
    assert [c.chip_id for c in g.chips] == ["tpu-v5e", "h100-sxm"]
    assert len(g.points) == len(ev.entries) == 4
    for e in ev.entries:
        p = next(p for p in g.points if p.key == (e.op_index, e.phase, e.chip_id))
        assert p.x == pytest.approx(L(float(e.analysis.result.intensity)))
        assert p.y == pytest.approx(L(float(e.analysis.result.attainable_flops)))
        assert p.bound == e.analysis.result.bound
        assert p.symbol == pd.BOUND_SYMBOLS[p.bound]
        assert e.op.name in p.tooltip and "FLOP/s" in p.tooltip
    # the TPU's matmul at B=256 is compute-bound, the dot product memory-bound
    assert next(p for p in g.points if p.key == (0, "", "tpu-v5e")).bound == "compute"
    assert next(p for p in g.points if p.key == (1, "", "tpu-v5e")).bound == "memory"
    tpu = g.chip("tpu-v5e")
    hbm = next(r for r in tpu.roofs if r.key == "hbm")
    # slant: log10 FLOP/s = log10 intensity + log10 bandwidth, ending at the top peak's ridge
    assert np.allclose(hbm.y - hbm.x, L(8.2e11))
    assert hbm.x[-1] == pytest.approx(L(1.97e14 / 8.2e11))
    comp = next(r for r in tpu.roofs if r.key == "compute:bf16")
    assert np.allclose(comp.y, L(1.97e14))
    assert comp.x[0] == pytest.approx(hbm.x[-1])
    ridge = next(r for r in tpu.ridges if r.key == "hbm|compute:bf16")
    assert (ridge.x, ridge.y) == pytest.approx((L(240.24390243902), L(1.97e14)))
    assert ridge.label == "240"


def test_fit_contains_points_and_ridges(cat):
    sc = Scenario(chips=["tpu-v5e", "h100-sxm", "mi300x"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
                       OpSpec("dot", "dot", {"N": 1 << 20}, {})])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    x0, x1, y0, y1 = g.fit
    for p in g.points:
        assert x0 < p.x < x1 and y0 < p.y < y1
    for c in g.chips:
        for r in c.ridges:
            assert x0 < r.x < x1 and y0 < r.y < y1


def test_an_edit_that_moves_points_keeps_the_chips_geometry(cat):
    # the plot skips re-laying roofs and ridge labels when the chips' part is the same object
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 4096, "F": 4096})])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    sc.ops[0].dims["B"] = 300
    moved = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    assert moved.points != g.points
    assert moved.chips is g.chips and moved.regions is g.regions
    # and what comes back is what the chips give: another peak, other roofs
    sc.ops[0].dtypes = {"x": "int8", "w": "int8", "out": "int8", "compute": "int8"}
    other = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    assert other.chips is not g.chips
    assert [r.key for r in other.chips[0].roofs] != [r.key for r in g.chips[0].roofs]


def test_roofs_reach_past_ridges_and_points_whatever_the_edit(cat):
    # an op's intensity moving across decades (B 8 → 65,536) leaves the roofs as drawn:
    # they reach 10 decades past the ridges, and 5 past any point further out
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"B": 8, "D": 8192, "F": 8192})])
    first = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    for b in (64, 512, 4096, 65536):
        sc.ops[0].dims["B"] = b
        g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
        assert g.chips is first.chips
        for c in g.chips:
            ridge_x = [rd.x for rd in c.ridges]
            for r in c.roofs:  # (slanted roofs start left, flat ones end right)
                end = r.x[-1] if r.kind == "compute" else -r.x[0]
                far = max(ridge_x) + 10 if r.kind == "compute" else -min(ridge_x) + 10
                assert end >= far
                assert all(end >= (p.x if r.kind == "compute" else -p.x) + 5 for p in g.points)
    # an op far off (intensity 1e-7) widens them to reach past it
    sc.ops = [OpSpec("dot", "dot", {"N": 4096})]
    far = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    slants = [r for c in far.chips for r in c.roofs if r.kind != "compute"]
    assert all(r.x[0] <= p.x - 5 for r in slants for p in far.points)


def test_chip_without_ops_still_gets_its_roofs(cat):
    sc = Scenario(chips=["tpu-v5e"], ops=[])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    assert [c.chip_id for c in g.chips] == ["tpu-v5e"]
    assert {r.key for r in g.chips[0].roofs} == {"compute:bf16", "hbm"}
    assert g.points == ()


def test_what_if_is_in_the_label_and_the_roofs(cat):
    sc = Scenario(chips=["tpu-v5e"], ops=[OpSpec("mm", "matmul", {}, {})])
    sc.what_if.hbm = 2.0
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    assert "HBM×2" in g.chips[0].label
    hbm = next(r for r in g.chips[0].roofs if r.key == "hbm")
    assert np.allclose(hbm.y - hbm.x, L(1.64e12))


def test_op_labels_one_per_op_at_its_highest_point(cat):
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("a", "matmul", {"B": 256}, {}), OpSpec("b", "matmul", {"B": 260}, {})])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    assert [lab.text for lab in g.labels] == ["a", "b"]
    for lab in g.labels:
        assert lab.y == max(p.y for p in g.points if p.op_index == lab.op_index)
    # close neighbours alternate sides
    assert {lab.side for lab in g.labels} == {"above", "below"}


# -- colours, ticks, layout helpers ----------------------------------------------------

def test_assign_colours_is_sticky():
    a = pd.assign_colours(["x", "y", "z"])
    assert a == {"x": 0, "y": 1, "z": 2}
    b = pd.assign_colours(["x", "z"], a)
    assert b == {"x": 0, "z": 2}
    c = pd.assign_colours(["x", "z", "w"], b)
    assert c == {"x": 0, "z": 2, "w": 1}


@pytest.mark.parametrize("v,kind,text", [
    (14, "si", "100 T"), (15, "si", "1 P"), (12, "si", "1 T"), (11, "si", "100 G"),
    (-1, "plain", "0.1"), (0, "plain", "1"), (2, "plain", "100"), (3, "plain", "1k"),
    (4, "plain", "10k"), (6, "plain", "1M"), (math.log10(200), "plain", "200"),
    (-4, "time", "100 µs"), (-3, "time", "1 ms"), (0, "time", "1 s"),
])
def test_tick_labels(v, kind, text):
    assert pd.tick_label(v, kind) == text


def test_log_ticks_decades_and_minors():
    majors, minors = pd.log_ticks(-0.5, 2.5)
    assert majors == [0.0, 1.0, 2.0]
    assert any(m == pytest.approx(L(2)) for m in minors)
    assert any(m == pytest.approx(L(300)) for m in minors)
    assert not set(majors) & set(minors)
    # a wide span thins the decades
    majors, _ = pd.log_ticks(0, 30, max_major=8)
    assert len(majors) <= 8 and all(m == int(m) for m in majors)
    # less than a decade still gets labelled ticks
    majors, _ = pd.log_ticks(L(120), L(450))
    assert [round(10 ** m) for m in majors] == [200]
    assert pd.log_ticks(1, 1) == ([], [])


def test_readout_values():
    assert pd.tick_label_exact(L(241.3), "plain") == "241"
    assert pd.tick_label_exact(L(1.97e14), "si") + "FLOP/s" == "197 TFLOP/s"
    assert pd.tick_label_exact(L(3), "si") + "FLOP/s" == "3 FLOP/s"
    assert pd.tick_label_exact(L(1.74e-4), "time") == "174 µs"


def test_stack_rows():
    assert pd.stack_rows([0, 10, 20], [5, 5, 5]) == [0, 0, 0]
    assert pd.stack_rows([0, 1, 2], [5, 5, 5]) == [0, 1, 2]
    assert pd.stack_rows([0, 1, 10], [5, 5, 5]) == [0, 1, 0]
    assert pd.stack_rows([10, 0, 1], [5, 5, 5]) == [0, 0, 1]  # input order kept
    assert pd.stack_rows([], []) == []


def test_nice_range():
    assert pd.nice_range(0.1, 2.9, pad=0.15, step=0.5) == (-0.5, 3.5)
    lo, hi = pd.nice_range(2.0, 2.0, min_span=1.0)
    assert hi - lo >= 1.0 and lo < 2.0 < hi


# -- sweep --------------------------------------------------------------------------

def q3_scenario(stop=16384, points=2000):
    """The reference's Question 3: TPU v5e, int8 weights, bf16 compute, D=F=4096 and D=F=1024."""
    sc = Scenario(chips=["tpu-v5e"], ops=[
        OpSpec("D=F=4096", "matmul", {"B": 256, "D": 4096, "F": 4096},
               {"x": "bf16", "w": "int8", "out": "bf16", "compute": "bf16"}),
        OpSpec("D=F=1024", "matmul", {"B": 256, "D": 1024, "F": 1024},
               {"x": "bf16", "w": "int8", "out": "bf16", "compute": "bf16"}),
    ])
    sc.sweep.stop = stop
    sc.sweep.points = points
    return sc


def reference_q3(B, D, F):
    """The reference's own code for the figure (exact bytes)."""
    total_flops = 2 * B * D * F
    flops_time = total_flops / 1.97e14
    comms_time = (2 * B * D + D * F + 2 * B * F) / 8.2e11
    return total_flops / np.maximum(flops_time, comms_time)


def knee(D, F, peak=1.97e14, bw=8.2e11):
    # 2BDF/peak = (2BD + DF + 2BF)/bw  →  B = DF / (2DF·bw/peak − 2D − 2F)
    return D * F / (2 * D * F * bw / peak - 2 * D - 2 * F)


def test_sweep_reproduces_reference_question_3(cat):
    sc = q3_scenario()
    curves, errors = sweep_scenario(sc, cat)
    assert errors == []
    g = sg.sweep_geometry(sc, curves)
    assert len(g.lines) == 2
    big, small = g.lines
    for line, d in ((big, 4096), (small, 1024)):
        B = 10 ** line.x
        assert np.allclose(line.y, np.log10(reference_q3(B, d, d)), atol=1e-9)
        # plateau at the bf16 peak
        assert line.y[-1] == pytest.approx(L(1.97e14))
        # the knee: the critical marker sits where the exact bytes say
        assert line.critical == pytest.approx(knee(d, d), rel=1e-9)
        assert line.crit_x == pytest.approx(L(knee(d, d)))
        assert line.crit_y == pytest.approx(L(1.97e14))
        assert line.crit_label == f"B* = {round(knee(d, d))}"
    # larger D=F reaches the peak sooner; D=F=1024 almost doubles the critical batch
    assert 1.5 < small.critical / big.critical < 2.0
    assert big.critical == pytest.approx(136.2, abs=0.5)
    # below the knee both are memory-bound: strictly under the peak
    assert np.all(big.y[10 ** big.x < 0.9 * big.critical] < L(1.97e14) - 1e-6)
    # one chip: the ops take the colours, as in the reference's figure
    assert big.colour != small.colour and big.dash == small.dash == "solid"
    assert big.legend == "D=F=4096"
    assert g.x_title.startswith("B") and g.y_kind == "si"


def test_sweep_time_mode_and_markers(cat):
    sc = q3_scenario(stop=1024)
    sc.sweep.y = "time"
    curves, _ = sweep_scenario(sc, cat)
    g = sg.sweep_geometry(sc, curves)
    assert g.y_kind == "time" and "Time" in g.y_title
    big = g.lines[0]
    r = curves[0].result
    assert np.allclose(big.y, np.log10(r.t_lower))
    # at the knee the time is T_math = 2·B*·D·F / peak
    assert big.crit_y == pytest.approx(L(2 * big.critical * 4096 * 4096 / 1.97e14), abs=1e-6)


def test_sweep_several_chips_colour_by_chip_dash_by_op(cat):
    sc = q3_scenario(stop=4096)
    sc.chips = ["tpu-v5e", "h100-sxm"]
    curves, _ = sweep_scenario(sc, cat)
    g = sg.sweep_geometry(sc, curves)
    assert len(g.lines) == 4
    by_chip = {}
    for ln in g.lines:
        by_chip.setdefault(ln.chip_id, set()).add(ln.colour)
        assert ln.crit_x is not None
    assert all(len(v) == 1 for v in by_chip.values())
    assert by_chip["tpu-v5e"] != by_chip["h100-sxm"]
    assert {ln.dash for ln in g.lines if ln.chip_id == "tpu-v5e"} == {"solid", "dash"}


def test_sweep_shows_a_repeated_critical_label_once(cat):
    # two ops with the same curve (a duplicated op) have one "B* = …" label between them
    sc = q3_scenario(stop=4096)
    sc.ops.insert(1, OpSpec("copy", "matmul", dict(sc.ops[0].dims), dict(sc.ops[0].dtypes)))
    curves, _ = sweep_scenario(sc, cat)
    g = sg.sweep_geometry(sc, curves)
    a, b, other = g.lines
    assert a.crit_label == b.crit_label and a.crit_x == b.crit_x
    assert a.crit_label_shown and not b.crit_label_shown and other.crit_label_shown
    assert other.crit_label != a.crit_label
    # two chips: each chip's own value is labelled once (op 1 repeats op 0 on both)
    sc.chips = ["tpu-v5e", "h100-sxm"]
    g = sg.sweep_geometry(sc, sweep_scenario(sc, cat)[0])
    shown = [(ln.chip_id, ln.crit_label) for ln in g.lines if ln.crit_label_shown]
    assert len(shown) == len(set(shown)) == 4
    assert all(ln.crit_label_shown is (ln.op_index != 1) for ln in g.lines)


def test_sweep_marker_hidden_when_critical_outside_range(cat):
    sc = q3_scenario(stop=64)  # both knees are above 64
    curves, _ = sweep_scenario(sc, cat)
    g = sg.sweep_geometry(sc, curves)
    assert all(ln.critical is not None and ln.crit_x is None for ln in g.lines)


@pytest.mark.parametrize("value,text", [(241.3, "B* = 241"), (4377.8, "B* = 4\u2009378"),
                                        (2.5, "B* = 2.5"), (123456, "B* = 123k")])
def test_critical_label(value, text):
    assert sg.critical_label("B", value) == text


def test_view_covers_and_key_points(cat):
    assert pd.view_covers([0, 3, 12, 16], [1, 2], [13, 15])
    assert not pd.view_covers([0, 3, 12, 16], [1, 3.5], [13, 15])
    assert not pd.view_covers([0, 3, 12, 16], [1], [13], margin=1.5)
    assert not pd.view_covers(None, [], [])
    sc = Scenario(chips=["tpu-v5e"], ops=[OpSpec("mm", "matmul", {"B": 512}, {},
                                                 ShardSpec("D", 2, "ici"))])
    g = pd.roofline_geometry(sc, evaluate_scenario(sc, cat))
    xs, ys = pd.key_points(g)
    # the point, its link twin and both ridges (HBM and ICI)
    assert len(xs) == 4
    assert any(x == pytest.approx(L(1.97e14 / 4.5e10)) for x in xs)
    assert pd.view_covers(g.fit, xs, ys)


def test_sharded_point_has_a_twin_on_the_link_roof(cat):
    sc = Scenario(chips=["tpu-v5e"], ops=[OpSpec("mm", "matmul", {"B": 512}, {},
                                                 ShardSpec("D", 2, "ici"))])
    ev = evaluate_scenario(sc, cat)
    g = pd.roofline_geometry(sc, ev)
    (p,) = g.points
    r = ev.entries[0].analysis.result
    assert p.net_x == pytest.approx(L(float(r.net_intensity)))
    link = next(rf for rf in g.chips[0].roofs if rf.kind == "link")
    if p.bound == "network":  # a network-bound op sits exactly on the link roof
        assert p.y == pytest.approx(p.net_x + L(link.bandwidth))
    unsharded = Scenario(chips=["tpu-v5e"], ops=[OpSpec("mm", "matmul", {"B": 512}, {})])
    (q,) = pd.roofline_geometry(unsharded, evaluate_scenario(unsharded, cat)).points
    assert q.net_x is None


def test_spread_1d_and_least_covered():
    assert pd.spread_1d([0, 100, 200], 10) == [0, 100, 200]
    out = pd.spread_1d([50, 52, 54], 10)
    assert [round(v, 6) for v in out] == [42, 52, 62]  # centred on their mean, 10 apart
    out = pd.spread_1d([54, 50], 10)  # input order kept
    assert out[1] < out[0] and out[0] - out[1] == pytest.approx(10)
    assert pd.spread_1d([], 5) == []
    rects = [(0, 0, 10, 10), (20, 0, 10, 10), (40, 0, 10, 10)]
    assert pd.least_covered(rects, [5, 25, 26], [5, 5, 5]) == 2
    assert pd.least_covered(rects, [45], [5]) == 0  # ties go to the first
    assert pd.least_covered(rects, [11], [5], margin=2) == 1
    x, y = pd.densify(np.array([0.0, 1.0]), np.array([0.0, 0.0]), 0.25)
    assert np.allclose(x, [0, 0.25, 0.5, 0.75, 1.0]) and np.allclose(y, 0)


def test_place_label_avoids_points_and_stays_inside():
    # a 40×10 label pinned at (100, 100) (pixels, y down): above, below, right, left
    anchors = [(0.5, 1.3), (0.5, -0.3), (-0.2, 0.5), (1.2, 0.5)]
    rects = pd.label_rects(100, 100, 40, 10, anchors)
    assert rects[0] == pytest.approx((80, 87, 40, 10))  # above: bottom 3 px over the point
    assert rects[1] == pytest.approx((80, 103, 40, 10))
    assert rects[2] == pytest.approx((108, 95, 40, 10))
    assert rects[3] == pytest.approx((52, 95, 40, 10))
    # nothing in the way: the first (preferred) anchor
    assert pd.place_label(100, 100, 40, 10, anchors, [], []) == 0
    # a point where the label would go above: below instead
    assert pd.place_label(100, 100, 40, 10, anchors, [95], [90]) == 1
    # points above and below: to the right
    assert pd.place_label(100, 100, 40, 10, anchors, [95, 95], [90, 108]) == 2
    # … unless that leaves the bounds (left, top, right, bottom): to the left
    assert pd.place_label(100, 100, 40, 10, anchors, [95, 95], [90, 108],
                          bounds=(0, 0, 140, 200)) == 3
    # every candidate outside the bounds: the preferred one
    assert pd.place_label(100, 100, 40, 10, anchors, [], [], bounds=(99, 99, 101, 101)) == 0
    # the label's own point does not count against any candidate
    assert pd.place_label(100, 100, 40, 10, anchors, [100], [100], margin=6) == 0


# -- drawing sweep curves -------------------------------------------------------------

def _drawn_points_are_the_models(ln):
    """Every drawn point but the knees is one of the model's points, ends included."""
    at = np.searchsorted(ln.x, ln.draw_x)
    model = (at < ln.x.size) & (ln.x[np.minimum(at, ln.x.size - 1)] == ln.draw_x)
    assert model[0] and model[-1]
    assert np.array_equal(ln.y[at[model]], ln.draw_y[model])
    return ln.draw_x[~model], ln.draw_y[~model]


@pytest.mark.parametrize("points", [50, 400, 2000, 20_000])
@pytest.mark.parametrize("y", ["flops", "time"])
def test_a_drawn_sweep_curve_keeps_each_critical_knee_exactly(cat, points, y):
    sc = q3_scenario(stop=65536, points=points)
    sc.sweep.y = y
    curves, errors = sweep_scenario(sc, cat)
    assert not errors
    g = sg.sweep_geometry(sc, curves)
    for ln in g.lines:
        assert ln.x.size == points and 2 <= ln.draw_x.size <= 2001
        assert np.all(np.diff(ln.draw_x) > 0)
        knees_x, knees_y = _drawn_points_are_the_models(ln)
        # the knee is the critical marker itself: drawn at its x, with its exact y
        assert ln.crit_x in ln.draw_x.tolist()
        assert ln.draw_y[ln.draw_x.tolist().index(ln.crit_x)] == ln.crit_y
        assert knees_x.tolist() in ([ln.crit_x], [])  # (or a sample sits on it already)
        d = (4096, 1024)[ln.op_index]
        want = L(1.97e14) if y == "flops" else L(2 * ln.critical * d * d / 1.97e14)
        assert ln.crit_y == pytest.approx(want, abs=1e-12)


def test_a_drawn_sweep_curve_stays_on_the_models_curve(cat):
    # a smooth rise (weights plus activations over the bandwidth) and a flat roof: the
    # drawing, about 20 samples a decade, strays from the model's 20,000 points by far
    # less than a pixel
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"D": 4096, "F": 4096}, {"w": "int8"})],
                  sweep=SweepSpec("B", 1, 65536, 20_000))
    curves, errors = sweep_scenario(sc, cat)
    assert not errors
    for ln in sg.sweep_geometry(sc, curves).lines:
        assert ln.x.size == 20_000 and ln.draw_x.size <= pd.DRAWN_PER_DECADE * 4.82 + 3
        _drawn_points_are_the_models(ln)
        assert np.max(np.abs(np.interp(ln.x, ln.draw_x, ln.draw_y) - ln.y)) <= 2e-4


def test_a_sharded_op_bends_where_hbm_gives_way_to_the_link(cat):
    # an op that turns from HBM-bound to link-bound (and never reaches compute): its knee
    # is drawn where the two transfers take as long
    sc = Scenario(chips=["h100-sxm"],
                  ops=[OpSpec("sh", "matmul", {"D": 1024, "F": 1024}, {},
                              ShardSpec("D", 2, "pcie"))],
                  sweep=SweepSpec("B", 1, 1e6, 300))
    curves, errors = sweep_scenario(sc, cat)
    assert not errors
    (c,) = curves
    codes = np.asarray(c.result.bound_code)
    assert codes[0] == 1 and codes[-1] == 2 and c.critical is None
    (ln,) = sg.sweep_geometry(sc, curves).lines
    knees_x, knees_y = _drawn_points_are_the_models(ln)
    assert knees_x.size == 1 and ln.crit_x is None
    r = c.result
    t_hbm = np.interp(knees_x[0], ln.x, np.log10(r.t_hbm))
    t_net = np.interp(knees_x[0], ln.x, np.log10(r.t_net))
    assert t_hbm == pytest.approx(t_net, abs=1e-6)
    # on the curve both transfers give there, and above the chord that cut the corner
    assert knees_y[0] == pytest.approx(
        np.interp(knees_x[0], ln.x, np.log10(r.flops / r.t_hbm)), abs=1e-12)
    i = np.searchsorted(ln.x, knees_x[0])
    assert knees_y[0] > np.interp(knees_x[0], ln.x[i - 1:i + 1], ln.y[i - 1:i + 1])


def test_sweep_drawing_thins_to_the_density_asked_and_inserts_knees():
    x = np.linspace(0.0, 4.0, 4001)
    y = np.minimum(x + 12.0, 14.5)
    dx, dy = pd.sweep_drawing(x, y, [2.5], [14.5], per_decade=10)
    assert dx[0] == 0.0 and dx[-1] == 4.0 and 2.5 in dx.tolist()
    assert np.all(np.diff(dx) > 0) and dx.size <= 10 * 4 + 2
    # the knee turns the drawing at the corner: it matches the polyline everywhere
    assert np.allclose(np.interp(x, dx, dy), y, atol=1e-12)
    # a sample at the knee's very x gives way to it; no knees: the samples alone
    sx, sy = pd.sweep_drawing(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 2.0]), [1.0], [5.0])
    assert sx.tolist() == [0.0, 1.0, 2.0] and sy.tolist() == [0.0, 5.0, 2.0]
    ex, ey = pd.sweep_drawing(np.empty(0), np.empty(0))
    assert ex.size == ey.size == 0


def test_densify_many_is_densify_of_each_concatenated():
    rng = np.random.default_rng(3)
    xs = [np.sort(rng.uniform(0, 5, n)) for n in (2, 7, 1, 30)]
    ys = [rng.uniform(10, 16, x.size) for x in xs]
    ax, ay = pd.densify_many(xs, ys, 0.05)
    parts = [pd.densify(x, y, 0.05) for x, y in zip(xs, ys)]
    assert np.allclose(ax, np.concatenate([p[0] for p in parts]))
    assert np.allclose(ay, np.concatenate([p[1] for p in parts]))
    ex, ey = pd.densify_many([], [], 0.1)
    assert ex.size == 0 and ey.size == 0


def test_sweep_markers_sit_on_the_compute_side_of_the_whole_curve(cat):
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"D": 4096, "F": 4096}, {"w": "int8"}),
                       OpSpec("mm2", "matmul", {"D": 8192, "F": 2048})],
                  sweep=SweepSpec("B", 1, 65536, 777))
    curves, errors = sweep_scenario(sc, cat)
    assert not errors
    for y in ("flops", "time"):
        sc.sweep.y = y
        g = sg.sweep_geometry(sc, curves)
        assert len(g.lines) == 4
        assert all(np.array_equal(ln.x, np.log10(curves[0].x)) for ln in g.lines)
        for c, ln in zip(curves, g.lines):
            assert ln.crit_x is not None
            r = c.result
            with np.errstate(divide="ignore"):
                comp = np.log10(r.flops / r.t_math) if y == "flops" else np.log10(r.t_math)
            comp = np.broadcast_to(comp, c.x.shape)
            # the marker reads two points of the curve: the same number as reading it all
            assert ln.crit_y == float(np.interp(ln.crit_x, ln.x, comp))
            want = np.log10(r.attainable_flops if y == "flops" else r.t_lower)
            assert ln.y.tobytes() == np.ascontiguousarray(want, dtype=np.float64).tobytes()


# -- ticks at any range (issue 28) ------------------------------------------------------

@pytest.mark.parametrize("lo, hi", [(-59, 83), (-1e6, 1e6), (-1e200, 1e200), (5e14, 5e14 + 3),
                                    (-400, -300), (300, 420)])
def test_log_ticks_are_few_whatever_the_range(lo, hi):
    majors, minors = pd.log_ticks(lo, hi, max_major=10_000)
    assert 1 <= len(majors) <= 61 and len(minors) <= 400
    assert all(lo <= v <= hi for v in majors + minors)


@pytest.mark.parametrize("v", [-1e6, -400, -330, 308.5, 400, 1e6, math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("kind", ["si", "plain", "time"])
def test_tick_labels_never_raise_and_say_something(v, kind):
    for label in (pd.tick_label(v, kind), pd.tick_label_exact(v, kind)):
        assert isinstance(label, str) and label.strip()
    if math.isfinite(v) and abs(v) > 307:
        assert pd.tick_label(v, kind) == f"1e{round(v)}"


def test_an_edit_gets_new_points_for_its_op_and_the_same_for_the_others(cat):
    """A keystroke edits one op: the others' points come back as the very objects (the
    plot skips them by identity); the edited, renamed or recoloured ones are new."""
    import copy

    sc = Scenario(chips=["tpu-v5e", "h100-sxm"], ops=[
        OpSpec("a", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
        OpSpec("b", "matmul", {"B": 64, "D": 4096, "F": 4096}, {})])
    colours = {"tpu-v5e": 0, "h100-sxm": 1}
    first = pd.roofline_geometry(sc, evaluate_scenario(sc, cat), colours)
    sc2 = copy.deepcopy(sc)
    sc2.ops[0].dims["B"] = 512
    second = pd.roofline_geometry(sc2, evaluate_scenario(sc2, cat), colours)
    old = {p.key: p for p in first.points}
    for p in second.points:
        assert (p is old[p.key]) == (p.op_index == 1), p.key
    a_new = next(p for p in second.points if p.key == (0, "", "tpu-v5e"))
    assert a_new.x > old[(0, "", "tpu-v5e")].x  # (B doubled: more FLOPs per byte)
    sc3 = copy.deepcopy(sc2)
    sc3.ops[1].name = "renamed"
    third = pd.roofline_geometry(sc3, evaluate_scenario(sc3, cat), {"tpu-v5e": 1, "h100-sxm": 0})
    assert not {id(p) for p in third.points} & {id(p) for p in second.points}
    assert {p.op_label for p in third.points if p.op_index == 1} == {"renamed"}
    assert all("renamed" in p.tooltip for p in third.points if p.op_index == 1)
