"""The chip palette: 24 colours apart from each other, and apart under colour-vision
deficiencies within each group of eight chips that share a ridge marker and roof dash."""

import itertools
import math

import numpy as np
import pytest

from roofgui.presentation.colours import GROUP, N_SLOTS, assign_colours, chip_look
from roofgui.presentation.style import SCREEN_DARK, SCREEN_LIGHT, SLIDE

# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
CVD = {"protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                      [-0.003882, -0.048116, 1.051998]],
       "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                        [-0.011820, 0.042940, 0.968881]],
       "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                      [0.004733, 0.691367, 0.303900]]}


def lab(hex_colour, cvd=None):
    c = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    if cvd:
        lin = np.clip(np.array(CVD[cvd]) @ lin, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ lin / np.array([0.95047, 1, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def de2000(p, q):
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005)."""
    (L1, a1, b1), (L2, a2, b2) = p, q
    cb = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cb ** 7 / (cb ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    lb, cbp = (L1 + L2) / 2, (c1 + c2) / 2
    hb = h1 + h2 if c1 * c2 == 0 else ((h1 + h2) / 2 if abs(h1 - h2) <= 180 else
                                        (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2)
    t = (1 - 0.17 * math.cos(math.radians(hb - 30)) + 0.24 * math.cos(math.radians(2 * hb))
         + 0.32 * math.cos(math.radians(3 * hb + 6)) - 0.2 * math.cos(math.radians(4 * hb - 63)))
    sl = 1 + 0.015 * (lb - 50) ** 2 / math.sqrt(20 + (lb - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    rt = -2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7)) * math.sin(
        math.radians(60 * math.exp(-((hb - 275) / 25) ** 2)))
    return math.sqrt(((L2 - L1) / sl) ** 2 + ((c2 - c1) / sc) ** 2 + (d_h / sh) ** 2
                     + rt * (c2 - c1) / sc * d_h / sh)


def test_ciede2000_matches_a_published_pair():
    # Sharma et al. (2005), table 1, pair 1
    assert de2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)


@pytest.mark.parametrize("style, least", [(SCREEN_LIGHT, 15.0), (SLIDE, 15.0), (SCREEN_DARK, 8.9)])
def test_24_colours_each_apart_and_apart_from_the_background(style, least):
    pal = style.palette
    assert len(pal) >= 24 and len(set(pal)) == len(pal)
    worst = min(de2000(lab(a), lab(b)) for a, b in itertools.combinations(pal[:N_SLOTS], 2))
    assert worst >= least
    assert min(de2000(lab(c), lab(style.background)) for c in pal) >= 25  # (Okabe-Ito orange)


@pytest.mark.parametrize("style", [SCREEN_LIGHT, SCREEN_DARK])
@pytest.mark.parametrize("cvd", sorted(CVD))
def test_chips_sharing_a_marker_and_dash_differ_in_colour_under_colour_blindness(style, cvd):
    for g in range(N_SLOTS // GROUP):
        slots = range(g * GROUP, (g + 1) * GROUP)
        assert len({chip_look(s)[1:] for s in slots}) == 1
        worst = min(de2000(lab(style.colour(a), cvd), lab(style.colour(b), cvd))
                    for a, b in itertools.combinations(slots, 2))
        # (the Okabe-Ito group's own least, lifted for the dark background: 3.9)
        assert worst >= (3.9 if style is SCREEN_DARK and g == 0 else 6.0), (g, cvd)


def test_from_the_ninth_chip_on_marker_and_dash_change_too():
    ids = [f"chip{i}" for i in range(24)]
    slots = assign_colours(ids)
    looks = [chip_look(slots[c]) for c in ids]
    assert len({lk.colour for lk in looks}) == 24
    assert {(lk.marker, lk.dash) for lk in looks[:8]} == {("d", "solid")}
    assert {(lk.marker, lk.dash) for lk in looks[8:16]} == {("star", "dot")}
    assert {(lk.marker, lk.dash) for lk in looks[16:]} == {("+", "dashdot")}
