"""SVG and PDF exports: true vector files, nothing drawn outside the plot area, text kept,
and the same picture as the PNG."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF  # noqa: E402
from PySide6.QtGui import QImage, QPainter  # noqa: E402

from roofgui.export.render import export_file  # noqa: E402
from test_export_support import (BLUE, VIEW, catalog, chip_pixels,  # noqa: E402,F401
                                 distinct_colours, figure, ink_box, rgb_array, run_thickness,
                                 to_picture, two_chip_scenario)

SVG = "{http://www.w3.org/2000/svg}"


# -- SVG --------------------------------------------------------------------------

def _svg(figure, **kw):
    f = figure(**kw)
    data = f.svg_bytes()
    return f, data, ET.fromstring(data)


def test_svg_is_xml_with_text_and_renders_through_qtsvg(figure):
    from PySide6.QtSvg import QSvgRenderer

    f, data, root = _svg(figure, title="bf16 matmul", caption=True)
    assert root.tag == SVG + "svg"
    assert root.get("width") == "1920" and root.get("height") == "1080"
    assert root.get("viewBox") == "0 0 1920 1080"
    texts = ["".join(t.itertext()).strip() for t in root.iter(SVG + "text")]
    for want in ("Arithmetic intensity (FLOP/byte)", "Attainable performance (FLOP/s)",
                 "Google TPU v5e", "NVIDIA H100 SXM (80 GB)", "bf16 matmul"):
        assert want in texts, (want, texts)
    assert any(t.startswith("Sources:") for t in texts)
    assert not list(root.iter(SVG + "image")), "markers must be vector shapes, not pixmaps"
    r = QSvgRenderer(data)
    assert r.isValid()
    img = QImage(1920, 1080, QImage.Format.Format_ARGB32)
    img.fill(0xFFFFFFFF)
    p = QPainter(img)
    r.render(p)
    p.end()
    assert distinct_colours(img) > 50


def _clip_rects(root) -> dict[str, QRectF]:
    out = {}
    for cp in root.iter(SVG + "clipPath"):
        path = cp.find(SVG + "path")
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path.get("d"))]
        xs, ys = nums[0::2], nums[1::2]
        out[cp.get("id")] = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    return out


@pytest.mark.parametrize("view", [VIEW, [1.5, 3.0, 13.5, 15.2]])
def test_svg_draws_nothing_outside_the_plot_area(figure, view):
    from PySide6.QtSvg import QSvgRenderer

    f, data, root = _svg(figure, scenario=two_chip_scenario(view), caption=True, title="T")
    axes = f.axes_rect.adjusted(-1.5, -1.5, 1.5, 1.5)
    clips = _clip_rects(root)
    # 1. every chip-coloured stroke sits under a clip path inside the axes
    parent = {c: p for p in root.iter() for c in p}
    chip_strokes = 0
    for el in root.iter(SVG + "g"):
        if (el.get("stroke") or "").lower() not in ("#0072b2", "#e69f00"):
            continue
        if not [c for c in el if c.tag in (SVG + "polyline", SVG + "path", SVG + "line")]:
            continue  # text, or an empty state group
        chip_strokes += 1
        node, clip = el, None
        while node is not None and clip is None:
            ref = node.get("clip-path")
            if ref:
                clip = clips[ref[len("url(#"):-1]]
            node = parent.get(node)
        assert clip is not None, "a data line without a clip path"
        # clipped to the axes exactly (not to some text box's clip, nor to the page)
        assert axes.contains(clip), (clip, axes)
        assert clip.width() > axes.width() - 6 and clip.height() > axes.height() - 6, (clip, axes)
    assert chip_strokes >= 4
    # 2. rendered by QtSvg (which ignores clip paths), no chip-coloured pixel lies outside
    #    the axes, though the roofs run 4 decades past the view: the lines themselves are
    #    cut at the axes (a round cap may poke out by half a pen width)
    pen = f.style.roof_width
    r = QSvgRenderer(data)
    img = QImage(1920, 1080, QImage.Format.Format_ARGB32)
    img.fill(0xFFFFFFFF)
    p = QPainter(img)
    r.render(p)
    p.end()
    inside, outside = chip_pixels(img, axes.adjusted(-pen, -pen, pen, pen))
    assert inside > 300
    assert outside == 0


def _chip_shapes(root):
    """(group, shape) for every line drawn in a chip colour."""
    for g in root.iter(SVG + "g"):
        if (g.get("stroke") or "").lower() not in ("#0072b2", "#e69f00"):
            continue
        for el in g:
            if el.tag in (SVG + "polyline", SVG + "path", SVG + "line"):
                yield g, el


def _points(el):
    text = el.get("points") or el.get("d") or ""
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]
    return list(zip(nums[0::2], nums[1::2]))


def test_svg_shapes_are_in_picture_coordinates_and_cut_to_the_axes(figure):
    """No data-space transforms with non-scaling strokes (renderers without SVG Tiny's
    vector-effect draw those hundreds of pixels wide), and even without its clip paths
    (an editor that drops them) no line leaves the axes."""
    f, data, root = _svg(figure, scenario=two_chip_scenario([1.5, 3.0, 13.5, 15.2]))
    for g in root.iter(SVG + "g"):
        if any(el.tag in (SVG + "polyline", SVG + "path", SVG + "polygon", SVG + "rect")
               for el in g):
            assert not g.get("transform"), g.attrib
    axes = f.axes_rect
    margin = f.style.roof_width
    checked = 0
    for g, el in _chip_shapes(root):
        for x, y in _points(el):
            checked += 1
            assert axes.left() - margin <= x <= axes.right() + margin, (x, axes)
            assert axes.top() - margin <= y <= axes.bottom() + margin, (y, axes)
    assert checked > 8
    # the thick roofs keep their slide width in picture units
    widths = {float(g.get("stroke-width")) for g, _ in _chip_shapes(root)}
    assert max(widths) == pytest.approx(f.style.roof_width, rel=0.01)


def test_svg_text_is_never_clipped_away(figure):
    """Every text sits inside the clip it is drawn under (the caption after the plot too:
    Qt's generator forgets to restore clips)."""
    f, data, root = _svg(figure, title="Title", caption=True)
    clips = _clip_rects(root)
    parent = {c: p for p in root.iter() for c in p}
    n = 0
    for t in root.iter(SVG + "text"):
        node, clip, dx, dy = t, None, 0.0, 0.0
        while node is not None:
            m = re.match(r"matrix\(([^)]*)\)", node.get("transform") or "")
            if m and clip is None:
                a, b, c, d, e, f_ = (float(v) for v in m.group(1).split(","))
                dx, dy = dx + e, dy + f_
            ref = node.get("clip-path")
            if ref and clip is None:
                clip = clips[ref[len("url(#"):-1]]
                break
            node = parent.get(node)
        x, y = float(t.get("x", 0)) + dx, float(t.get("y", 0)) + dy
        if clip is not None:
            n += 1
            assert clip.adjusted(-2, -40, 2, 40).contains(x, y), ("".join(t.itertext()), clip, x, y)
    assert n >= 10


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="librsvg's rsvg-convert not installed")
def test_svg_renders_in_a_standards_renderer(figure, tmp_path):
    """librsvg (as browsers and Inkscape: clip paths honoured, no Qt extensions) draws the
    plot inside the axes, with lines of slide thickness."""
    f, data, root = _svg(figure, scenario=two_chip_scenario([1.5, 3.0, 13.5, 15.2]), caption=True)
    src, out = tmp_path / "p.svg", tmp_path / "p.png"
    src.write_bytes(data)
    subprocess.run(["rsvg-convert", "-w", "1920", "-h", "1080", "-b", "white", str(src),
                    "-o", str(out)], check=True, timeout=120)
    img = QImage(str(out))
    axes = f.axes_rect
    inside, outside = chip_pixels(img, axes.adjusted(-3, -3, 3, 3))
    assert inside > 300 and outside == 0
    assert inside < 0.05 * (1920 * 1080 / 4), "strokes drawn far too wide"
    px, py = to_picture(axes, [1.5, 3.0, 13.5, 15.2], 2.8, math.log10(1.97e14))
    assert run_thickness(img, int(px), py, BLUE, span=15) >= 3
    assert ink_box(img, f.layout.caption_rect) is not None, "the caption is drawn"


# -- PDF --------------------------------------------------------------------------

def test_pdf_is_one_vector_page_of_the_picture_size(qapp, catalog, tmp_path):
    out = tmp_path / "plot.pdf"
    export_file(out, two_chip_scenario(), catalog, width=1920, height=1080, title="PDF",
                caption=True)
    data = out.read_bytes()
    assert data.startswith(b"%PDF-")
    assert data.rstrip().endswith(b"%%EOF")
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 1
    assert re.search(rb"/Count\s+1\b", data)
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert box and abs(float(box.group(1)) - 1440) < 1 and abs(float(box.group(2)) - 810) < 1
    assert b"/Subtype /Image" not in data, "a vector PDF, not a pasted bitmap"
    assert b"/FontFile2" in data  # the text is text, with its font embedded


def test_sweep_pdf_and_svg(qapp, catalog, tmp_path):
    for suffix in (".pdf", ".svg"):
        out = tmp_path / f"sweep{suffix}"
        export_file(out, two_chip_scenario(), catalog, plot="sweep", width=2560, height=1440)
        assert out.stat().st_size > 1000
    ET.parse(tmp_path / "sweep.svg")


# -- the painting backends agree ------------------------------------------------------

def test_svg_and_png_put_the_plot_in_the_same_place(figure):
    """The SVG rendered back by QtSvg matches the PNG closely (same layout, same colours)."""
    from PySide6.QtSvg import QSvgRenderer

    f = figure(width=960, height=540)
    png = f.image()
    r = QSvgRenderer(f.svg_bytes())
    svg = QImage(960, 540, QImage.Format.Format_ARGB32)
    svg.fill(0xFFFFFFFF)
    p = QPainter(svg)
    r.render(p)
    p.end()
    a, b = rgb_array(png)[:540:3, :960:3], rgb_array(svg)[:540:3, :960:3]
    assert a.shape[:2] == (180, 320)
    same = (abs(a - b) <= 40).all(axis=-1)
    assert same.mean() > 0.97
