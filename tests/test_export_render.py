"""Pictures: PNG at the requested size with the regions and lines where they belong,
lines and text that grow with the picture, SVG and PDF as true vector files."""

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

from roofgui.export import render  # noqa: E402
from roofgui.export.render import ExportOptions, Figure, export_file, render_image  # noqa: E402
from roofgui.model.catalog import Catalog  # noqa: E402
from test_export_support import (BLUE, LEGEND_CORNERS, ORANGE, VIEW,  # noqa: E402
                                 close, covered, data_points_scene,
                                 distinct_colours, ink_box, patch_colour, rgb, run_thickness,
                                 same_pixels, sharded_scenario, to_picture, two_chip_scenario)

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load()


@pytest.fixture
def figure(qapp, catalog):
    figs = []

    def make(scenario=None, **kw):
        opts = ExportOptions(**{"width": 1920, "height": 1080, **kw})
        f = Figure(scenario or two_chip_scenario(), catalog, opts)
        figs.append(f)
        return f

    yield make
    for f in figs:
        f.close()


# -- PNG --------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(1920, 1080), (2560, 1440), (3840, 2160), (1000, 1400)])
def test_png_file_has_the_requested_size_and_is_not_blank(qapp, catalog, tmp_path, size):
    out = tmp_path / "plot.png"
    export_file(out, two_chip_scenario(), catalog, width=size[0], height=size[1])
    img = QImage(str(out))
    assert not img.isNull()
    assert (img.width(), img.height()) == size
    assert distinct_colours(img) > 50
    assert not [p for p in tmp_path.iterdir() if p.name != "plot.png"]  # no temporary left


def test_regions_are_coloured_where_the_regions_are(figure):
    f = figure(plot="roofline")
    img = f.image()
    axes = f.axes_rect
    legend = f.widget.legend.sceneBoundingRect().translated(f.layout.plot_rect.topLeft()
                                                            - f.source_rect().topLeft())
    # Ridges: TPU v5e 1.97e14/8.2e11 = 240, H100 9.894e14/3.35e12 = 295 FLOP/byte.
    lo, hi = math.log10(1.97e14 / 8.2e11), math.log10(9.894e14 / 3.35e12)
    probes = {"red": [(1.0, 11.4), (0.6, 15.5)], "yellow": [((lo + hi) / 2, 11.4)],
              "green": [(3.3, 11.4), (3.6, 15.5)]}
    seen: dict[str, list] = {}
    for name, spots in probes.items():
        for x, y in spots:
            px, py = to_picture(axes, VIEW, x, y)
            assert axes.contains(px, py)
            if legend.adjusted(-6, -6, 6, 6).contains(px, py):
                continue  # the legend sits over this one
            seen.setdefault(name, []).append(patch_colour(img, px, py, r=3))
    assert set(seen) == {"red", "yellow", "green"}
    for r, g, b in seen["red"]:
        assert r > g + 12 and r > b + 12, seen["red"]
    for r, g, b in seen["green"]:
        assert g > r + 8 and g > b + 5, seen["green"]
    for r, g, b in seen["yellow"]:
        assert r > b + 12 and g > b + 12, seen["yellow"]
    # and outside the axes it is the plain white background
    assert rgb(img, 3, 3) == (255, 255, 255)


def test_roof_line_is_where_the_model_puts_it(figure):
    f = figure(plot="roofline")
    img = f.image()
    # TPU v5e's flat compute roof at 1.97e14 FLOP/s, H100's at 9.894e14, in the green band
    # (x = 10**3.15, between the grid lines at 1k and 2k)
    for colour, peak in ((BLUE, 1.97e14), (ORANGE, 9.894e14)):
        px, py = to_picture(f.axes_rect, VIEW, 3.15, math.log10(peak))
        assert run_thickness(img, int(px), py, colour, span=6) >= 3, colour
        # ... and not 40 px above it
        assert run_thickness(img, int(px), py - 40, colour, span=6) == 0


def _roof_thickness(fig) -> int:
    img = fig.image()
    px, py = to_picture(fig.axes_rect, VIEW, 3.15, math.log10(1.97e14))
    return run_thickness(img, int(px), py, BLUE, span=int(30 * fig.factor))


def _title_height(fig) -> int:
    img = fig.image()
    box = ink_box(img, fig.layout.title_rect)
    assert box is not None
    return box[3] - box[1] + 1


def test_lines_and_text_grow_with_the_picture(figure):
    small = figure(width=1920, height=1080, title="Roofline")
    big = figure(width=3840, height=2160, title="Roofline")
    t1, t4 = _roof_thickness(small), _roof_thickness(big)
    assert t1 >= 3, "a 1080p slide roof is a thick line, not a hairline"
    assert t4 >= 1.7 * t1, (t1, t4)
    h1, h4 = _title_height(small), _title_height(big)
    assert 1.7 * h1 <= h4 <= 2.3 * h1, (h1, h4)
    # tick labels too: the axis takes twice the room
    left1 = small.axes_rect.left() - small.layout.plot_rect.left()
    left4 = big.axes_rect.left() - big.layout.plot_rect.left()
    assert left4 >= 1.7 * left1


def test_slide_style_is_bolder_than_the_screen_style(figure):
    slide = figure(style="slide")
    screen = figure(style="screen")
    assert _roof_thickness(slide) > _roof_thickness(screen)


def test_transparent_background(qapp, catalog):
    img = render_image(two_chip_scenario(), catalog, width=800, height=450, transparent=True)
    assert img.pixelColor(2, 2).alpha() == 0
    assert img.pixelColor(798, 448).alpha() == 0
    opaque = render_image(two_chip_scenario(), catalog, width=800, height=450)
    assert opaque.pixelColor(2, 2).alpha() == 255


def test_sweep_plot_renders_its_curves(figure):
    f = figure(plot="sweep", title="Sweep")
    img = f.image()
    a = f.axes_rect
    blue = orange = 0
    for y in range(int(a.top()), int(a.bottom()), 2):
        for x in range(int(a.left()), int(a.right()), 2):
            c = rgb(img, x, y)
            blue += close(c, BLUE, 30)
            orange += close(c, ORANGE, 30)
    assert blue > 200 and orange > 200


def test_legend_is_placed_clear_of_the_data(figure):
    f = figure(scenario=sharded_scenario())
    legend = f.widget.legend.sceneBoundingRect()
    points = data_points_scene(f.plot_item().getViewBox())
    assert points, "the plot has data"
    assert covered(points, legend) == 0
    assert f.legend_position in LEGEND_CORNERS


def test_caption_names_ops_chips_and_sources(figure):
    f = figure(caption=True)
    text = "\n".join(f.layout.caption_lines)
    assert "B=256, D=8192, F=8192" in text and "bf16" in text
    assert "Google TPU v5e" in text and "H100" in text
    assert "Sources:" in text and "[1]" in text
    assert f.layout.caption_rect.top() > f.axes_rect.bottom()


def test_bad_sizes_are_refused(qapp, catalog):
    for w, h in ((0, 100), (100, -1), (20000, 100), (10000, 10000)):
        with pytest.raises(render.ExportError):
            render_image(two_chip_scenario(), catalog, width=w, height=h)
    with pytest.raises(render.ExportError):
        render.format_for("plot.jpg")


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
    band = axes.adjusted(-pen, -pen, pen, pen)
    inside = outside = 0
    for y in range(0, 1080, 2):
        for x in range(0, 1920, 2):
            c = rgb(img, x, y)
            if close(c, BLUE, 25) or close(c, ORANGE, 25):
                if band.contains(x, y):
                    inside += 1
                else:
                    outside += 1
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
    band = axes.adjusted(-3, -3, 3, 3)
    inside = outside = 0
    for y in range(0, 1080, 2):
        for x in range(0, 1920, 2):
            c = rgb(img, x, y)
            if close(c, BLUE, 25) or close(c, ORANGE, 25):
                inside += band.contains(x, y)
                outside += not band.contains(x, y)
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
    same = total = 0
    for y in range(0, 540, 3):
        for x in range(0, 960, 3):
            total += 1
            same += close(rgb(png, x, y), rgb(svg, x, y), 40)
    assert same / total > 0.97


# -- PNG files -----------------------------------------------------------------------

def _png_chunks(data: bytes) -> dict[bytes, list[bytes]]:
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out: dict[bytes, list[bytes]] = {}
    pos = 8
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF, tag
        out.setdefault(tag, []).append(body)
        pos += 12 + n
    assert pos == len(data) and list(out)[-1] == b"IEND"
    return out


@pytest.mark.parametrize("transparent", [False, True])
def test_4k_png_file_is_the_painted_picture(figure, tmp_path, transparent):
    """A whole 4K export, decoded, is exactly the figure's image: RGB on an opaque
    background, RGBA on a transparent one, compressed, at the picture's resolution."""
    f = figure(width=3840, height=2160, transparent=transparent)
    data = f.png_bytes()
    img = f.image()
    back = QImage.fromData(data).convertToFormat(QImage.Format.Format_ARGB32)
    assert back == img
    assert _png_chunks(data)[b"IHDR"][0][9] == (6 if transparent else 2)
    assert len(data) < 0.3 * 3840 * 2160  # compressed, not stored
    dpm = round(f.dpi / 0.0254)
    assert (back.dotsPerMeterX(), back.dotsPerMeterY()) == (dpm, dpm)


# -- clipping lines to the axes -----------------------------------------------------------

def _clip_reference(x, y, xmin, xmax, ymin, ymax):
    """Liang–Barsky, one segment at a time in plain Python: the kept pieces, as
    (start, end) pairs, for comparison with the vectorised clipper."""
    pieces = []
    for i in range(len(x) - 1):
        x0, y0, x1, y1 = x[i], y[i], x[i + 1], y[i + 1]
        if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
            continue
        dx, dy = x1 - x0, y1 - y0
        t0, t1, ok = 0.0, 1.0, True
        for p, q in ((-dx, x0 - xmin), (dx, xmax - x0), (-dy, y0 - ymin), (dy, ymax - y0)):
            if p == 0:
                if q < 0:
                    ok = False
                continue
            r = q / p
            if p < 0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
        if ok and t0 <= t1:
            a = (x0, y0) if t0 == 0 else (x0 + t0 * dx, y0 + t0 * dy)
            b = (x1, y1) if t1 == 1 else (x0 + t1 * dx, y0 + t1 * dy)
            pieces.append((a, b))
    return pieces


def _pieces(cx, cy):
    out = []
    for i in range(len(cx) - 1):
        if math.isfinite(cx[i]) and math.isfinite(cx[i + 1]):
            out.append(((cx[i], cy[i]), (cx[i + 1], cy[i + 1])))
    return out


def test_lines_clipped_together_are_clipped_as_one_by_one():
    import numpy as np

    from roofgui.export.geometry import clip_polyline, clip_polylines

    rng = np.random.default_rng(7)
    rect = (0.0, 4.0, 11.0, 16.0)
    lines = [([-1.0, 5.0], [12.0, 12.0]),                 # crosses both sides
             ([1.0, 2.0, 3.0], [12.0, 13.0, 14.0]),       # all inside: kept exactly
             ([-3.0, -2.0], [12.0, 13.0]),                # all outside
             ([2.0], [12.0]), ([9.0], [12.0]), ([], []),  # single points, empty
             ([2.0, 2.0], [10.0, 17.0]),                  # vertical, cut at both ends
             ([1.0, np.nan, 2.0, 3.0], [12.0, np.nan, 12.0, 20.0])]  # a gap, then out
    lines += [(rng.uniform(-2, 6, n), rng.uniform(9, 18, n)) for n in (2, 3, 17, 200)]
    together = clip_polylines(lines, *rect)
    assert len(together) == len(lines)
    for (x, y), (cx, cy) in zip(lines, together):
        alone = clip_polyline(x, y, *rect)
        assert np.array_equal(cx, alone[0], equal_nan=True)
        assert np.array_equal(cy, alone[1], equal_nan=True)
        if len(x) >= 2:
            assert _pieces(cx, cy) == _clip_reference(list(x), list(y), *rect)
        finite = np.isfinite(cx)
        assert np.all((cx[finite] >= rect[0]) & (cx[finite] <= rect[1]))
        assert np.all((cy[finite] >= rect[2] - 1e-12) & (cy[finite] <= rect[3] + 1e-12))
    assert np.array_equal(together[1][0], [1.0, 2.0, 3.0])
    assert together[2][0].size == 0 and together[4][0].size == 0
    assert np.array_equal(together[3][0], [2.0]) and together[5][0].size == 0
    assert np.array_equal(together[6][1], [11.0, 16.0])
