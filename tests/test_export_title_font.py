"""Exports: a long title wraps (not "…"), and SVG text names a generic sans-serif fallback."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("PySide6")

from roofgui.export.svg import font_fallbacks  # noqa: E402
from test_export_support import catalog, figure  # noqa: E402,F401

SVG = "{http://www.w3.org/2000/svg}"
LONG = ("Llama-3 70B on 8×H100 (NVLink) vs 8×MI300X (xGMI): how many concurrent requests fit, "
        "and is decode memory-bound at every batch size we care about?")


def title_texts(root, f) -> list[tuple[float, str]]:
    """(baseline y, text) of the title's lines: the first text painted."""
    texts = list(root.iter(SVG + "text"))[:len(f.layout.title_lines)]
    return [(float(t.get("y")), "".join(t.itertext()).strip()) for t in texts]


@pytest.mark.parametrize("width, height", [(1280, 720), (1920, 1080)])
def test_a_long_title_wraps_onto_lines_and_keeps_every_word(figure, width, height):
    f = figure(width=width, height=height, title=LONG, style="slide")
    assert len(f.layout.title_lines) >= 2
    assert " ".join(f.layout.title_lines) == LONG
    root = ET.fromstring(f.svg_bytes())
    drawn = title_texts(root, f)
    assert " ".join(t for _, t in drawn) == LONG
    ys = [y for y, _ in drawn]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)  # one line under the other
    assert f.layout.title_rect.top() < ys[0] and ys[-1] <= f.layout.title_rect.bottom()
    # and the plot starts below the last line
    assert f.layout.plot_rect.top() > f.layout.title_rect.bottom()


def test_a_title_of_a_paragraph_is_cut_after_three_lines(figure):
    f = figure(width=1280, height=720, title=" ".join([LONG] * 6), style="slide")
    assert len(f.layout.title_lines) == 3 and f.layout.title_lines[-1].endswith("…")


def test_svg_text_falls_back_to_the_generic_sans_serif(figure):
    root = ET.fromstring(figure(title="T").svg_bytes())
    families = {el.get("font-family") for el in root.iter() if el.get("font-family")}
    assert families
    for fam in families:
        names = [n.strip() for n in fam.split(",")]
        assert names[-1] == "sans-serif"
        assert "Sans Serif" not in names and "'Sans Serif'" not in names
        assert "Arial" in names and "Helvetica" in names


def test_font_fallbacks_rewrites_each_family_attribute():
    svg = b'<svg><g font-family="Sans Serif"><text>a</text></g><text font-family="Inter">b</text></svg>'
    assert font_fallbacks(svg, "DejaVu Sans") == (
        b'<svg><g font-family="\'DejaVu Sans\', \'Helvetica Neue\', Helvetica, Arial, '
        b'\'Liberation Sans\', \'Noto Sans\', sans-serif"><text>a</text></g><text font-family="Inter, '
        b'\'DejaVu Sans\', \'Helvetica Neue\', Helvetica, Arial, \'Liberation Sans\', \'Noto Sans\', '
        b'sans-serif">b</text></svg>')
