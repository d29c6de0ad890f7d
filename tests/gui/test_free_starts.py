"""Where a roof label may start along its row (``roof_labels.free_starts``): hand-worked
cases, then every case against a plain search of every spot a label could start at."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from roofgui.plotting.roof_labels import free_starts


def one(lo, hi, w, top, bottom, xs, ys, margin):
    """``free_starts`` for a single label."""
    got = free_starts(np.array([lo], float), np.array([hi], float), np.array([w], float),
                      np.array([top], float), np.array([bottom], float),
                      np.asarray(xs, float), np.asarray(ys, float), margin)
    return float(got[0])


def test_no_points_the_right_end():
    assert one(0, 100, 30, 10, 20, [], [], 5.0) == 70.0


def test_a_point_under_the_right_end_then_the_left():
    # the point at x=80 bars starts in (80-5-30, 80+5) = (45, 85): 70 is barred, 0 is free
    assert one(0, 100, 30, 10, 20, [80], [15], 5.0) == 0.0


def test_both_ends_barred_the_free_start_furthest_right():
    # bars (−15, 25) and (45, 85): the starts 25..45 are free; furthest right: 45
    assert one(0, 100, 30, 10, 20, [20, 80], [15, 15], 5.0) == 45.0


def test_points_off_the_row_do_not_bar():
    assert one(0, 100, 30, 10, 20, [80], [40], 5.0) == 70.0  # (40 > bottom 20 + margin 5)
    assert one(0, 100, 30, 10, 20, [80], [24], 5.0) == 0.0  # (within the margin below)


def test_no_room():
    # bars (−25, 15), (5, 45), (35, 75), (65, 105): they overlap across the whole span
    assert np.isnan(one(0, 100, 30, 10, 20, [10, 40, 70, 100], [15] * 4, 5.0))
    assert np.isnan(one(0, 20, 30, 10, 20, [], [], 5.0))  # (wider than its span)


def test_a_margin_per_point():
    # the second point keeps 20 px: bars (80-20-30, 80+20) = (30, 100); the first (−5, 15)
    assert one(0, 100, 30, 10, 20, [10, 80], [15, 15], np.array([0.0, 20.0])) == 30.0


def test_several_labels_at_once():
    got = free_starts(np.array([0.0, 0.0]), np.array([100.0, 100.0]), np.array([30.0, 30.0]),
                      np.array([10.0, 50.0]), np.array([20.0, 60.0]),
                      np.array([80.0]), np.array([15.0]), 5.0)
    assert got.tolist() == [0.0, 70.0]  # (the point is in the first row only)


def plain_search(lo, hi, w, top, bottom, xs, ys, m):
    """Every start a label could take, tried one by one: the right end, the left end,
    then each edge of a point's span, furthest right first."""
    near = [(x - m - w, x + m) for x, y in zip(xs, ys) if top - m <= y <= bottom + m]

    def free(s):
        return lo - 0.01 <= s and s + w <= hi + 0.01 and not any(a < s < b for a, b in near)

    for s in [hi - w, lo] + sorted([v for span in near for v in span], reverse=True):
        if free(s):
            return s
    return float("nan")


coord = st.floats(0, 200, allow_nan=False).map(lambda v: round(v, 1))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(coord, coord), max_size=25), coord, coord,
       st.floats(1, 120).map(lambda v: round(v, 1)), st.floats(0, 10).map(lambda v: round(v, 1)))
def test_as_a_plain_search(points, a, b, w, m):
    lo, hi = min(a, b), max(a, b)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    want = plain_search(lo, hi, w, 90.0, 110.0, xs, ys, m)
    got = one(lo, hi, w, 90.0, 110.0, xs, ys, m)
    assert (np.isnan(want) and np.isnan(got)) or got == want
