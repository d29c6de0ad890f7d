"""Pictures: PNG at the requested size with the regions and lines where they belong,
lines and text that grow with the picture.  (SVG and PDF: test_export_vector.py.)"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("PySide6")

from PySide6.QtGui import QImage  # noqa: E402

from roofgui.export import render  # noqa: E402
from roofgui.export.render import export_file, render_image  # noqa: E402
from test_export_support import (BLUE, LEGEND_CORNERS, ORANGE, VIEW, catalog,  # noqa: E402,F401
                                 covered, data_points_scene, distinct_colours, figure, ink_box,
                                 near, patch_colour, rgb, rgb_array, run_thickness,
                                 sharded_scenario, to_picture, two_chip_scenario)


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
    a = f.axes_rect
    axes = rgb_array(f.image())[int(a.top()):int(a.bottom()):2, int(a.left()):int(a.right()):2]
    blue, orange = near(axes, BLUE, 30).sum(), near(axes, ORANGE, 30).sum()
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


def test_a_tiled_matmul_exports_with_its_memory_levels(figure, tmp_path):
    """The exported roofline is the window's: one roof per on-chip level of each chip with a
    published bandwidth, and one point per level for the tiled op, inside the picture."""
    import json

    from roofgui.model.scenario import load_scenario

    path = tmp_path / "tiled.json"
    path.write_text(json.dumps({
        "format": "roofgui-scenario", "version": 1, "chips": ["h100-sxm", "mi300x"],
        "ops": [{"name": "tiled", "kind": "matmul", "dims": {"B": 2048, "D": 8192, "F": 8192},
                 "tile": {"bm": 128, "bn": 128, "bk": 64}}]}))
    sc = load_scenario(path)
    f = figure(sc, plot="roofline")
    f.image()
    roofs = sorted(f.levels.roofs)
    assert ("h100-sxm", "l2") in roofs and ("mi300x", "mall") in roofs and ("mi300x", "l2") in roofs
    assert all(item.isVisible() for item in f.levels.roofs.values())
    x0, x1, y0, y1 = f.widget.view_range()
    assert f.levels.marks and all(x0 <= m.x <= x1 and y0 <= m.y <= y1 for m in f.levels.marks)
    # an untiled scenario has no level layer
    plain = figure(plot="roofline")
    plain.image()
    assert getattr(plain, "levels", None) is None


def test_each_export_frees_its_plot_without_an_event_loop(qapp, catalog, tmp_path):
    # (issue 28's soak: the plot of every exported figure waited for an event loop to delete
    # it; driven from a loop of its own the window kept them all, ~15 MB each)
    import gc

    from roofgui.plotting.plot_base import LogPlot

    def plots() -> int:
        gc.collect()
        return sum(isinstance(o, LogPlot) for o in gc.get_objects())

    before = plots()
    for plot in ("roofline", "sweep", "roofline"):
        export_file(tmp_path / f"{plot}.png", two_chip_scenario(), catalog, plot, 640, 400)
        export_file(tmp_path / f"{plot}.svg", two_chip_scenario(), catalog, plot, 640, 400)
    assert plots() == before
