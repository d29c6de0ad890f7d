"""Post-process the SVG Qt's generator writes: sizes in pixels, flat coordinates.

Pure text processing (``xml.etree``, ``re``), no Qt.
"""

from __future__ import annotations

import math
import re


def svg_pixel_size(svg: bytes, width: int, height: int) -> bytes:
    """Give the root element its size in pixels (Qt writes millimetres, which
    browsers and Qt read at different dpi); the viewBox is already W × H."""
    head, sep, rest = svg.partition(b"viewBox=")
    if not sep:
        return svg
    head = re.sub(rb'width="[^"]*" height="[^"]*"', f'width="{width}" height="{height}"'.encode(),
                  head, count=1)
    return head + sep + rest


#: Families after the one the picture was laid out with, for a viewer without it: common
#: sans-serif faces of similar widths, then the generic family CSS and SVG define.
SANS_FALLBACKS = ("DejaVu Sans", "Helvetica Neue", "Helvetica", "Arial", "Liberation Sans",
                  "Noto Sans", "sans-serif")
#: Names Qt writes for its generic sans-serif font (not families a viewer knows).
_QT_GENERIC = {"sans serif", "sans-serif", "sansserif", "helvetica"}


def _family_list(families: list[str]) -> str:
    out: list[str] = []
    for f in families:
        if f and f.lower() not in {o.lower() for o in out}:
            out.append(f)
    generic = {"sans-serif", "serif", "monospace"}
    return ", ".join(f if f in generic or f.isalnum() else f"'{f}'" for f in out)


def font_fallbacks(svg: bytes, resolved: str = "") -> bytes:
    """Give every ``font-family`` a fallback list ending in the generic ``sans-serif``.

    Qt writes the QFont's family alone (``"Sans Serif"`` for its generic font, a name
    no browser or editor knows, which then falls back to a serif face).  The family
    becomes ``resolved`` (the face Qt actually drew with) where Qt wrote its generic
    name, followed by :data:`SANS_FALLBACKS`."""
    def repl(m: re.Match) -> str:
        fams = [f.strip().strip("'\"") for f in m.group(1).split(",")]
        fams = [resolved if f.lower() in _QT_GENERIC else f for f in fams]
        return f'font-family="{_family_list(fams + list(SANS_FALLBACKS))}"'

    return re.sub(r'font-family="([^"]*)"', lambda m: repl(m), svg.decode("utf-8")).encode("utf-8")


_SVG_NS = "http://www.w3.org/2000/svg"
_SHAPES = ("path", "polyline", "polygon", "rect", "ellipse", "circle", "line")
_NUM = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _fmt(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) < 1e7 else f"{v:.6g}"


def flatten_svg(svg: bytes) -> bytes:
    """Write every shape in picture coordinates, without the group transforms Qt emits.

    Qt draws a line of data inside ``transform="matrix(1180,0,0,-480,…)"`` (the
    view's data-to-pixel scale) with ``vector-effect="non-scaling-stroke"`` to keep
    the pen width, and a marker inside ``matrix(12,0,0,12,…)``.  Renderers without
    that SVG Tiny 1.2 attribute (librsvg, older Inkscape and Illustrator) then draw
    strokes hundreds of pixels wide.  Here each group holding only shapes gets its
    matrix applied to the coordinates and dropped; strokes that were meant to scale
    get their width (and dashes) scaled.  Groups with text keep their transform.
    """
    import xml.etree.ElementTree as ET

    ET.register_namespace("", _SVG_NS)
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return svg
    q = lambda t: f"{{{_SVG_NS}}}{t}"  # noqa: E731
    shape_tags = {q(t) for t in _SHAPES}
    for g in root.iter(q("g")):
        tr = g.get("transform")
        if not tr:
            continue
        m = re.fullmatch(rf"\s*matrix\(\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})"
                         rf"\s*,\s*({_NUM})\s*,\s*({_NUM})\s*\)\s*", tr)
        kids = list(g)
        if not m or not kids or any(k.tag not in shape_tags for k in kids):
            continue
        a, b, c, d, e, f = (float(v) for v in m.groups())
        out = [_transform_shape(k, a, b, c, d, e, f) for k in kids]
        if any(o is None for o in out):
            continue  # something we cannot flatten: leave the group as Qt wrote it
        scale = math.sqrt(abs(a * d - b * c))
        for k, new in zip(kids, out):
            k.clear()
            k.tag = new[0]
            for key, val in new[1].items():
                k.set(key, val)
            if k.get("vector-effect") != "non-scaling-stroke" and abs(scale - 1) > 1e-9:
                if g.get("stroke-width"):
                    k.set("stroke-width", _fmt(float(g.get("stroke-width")) * scale))
                if g.get("stroke-dasharray") and g.get("stroke-dasharray") != "none":
                    k.set("stroke-dasharray", ",".join(
                        _fmt(float(v) * scale) for v in re.findall(_NUM, g.get("stroke-dasharray"))))
        del g.attrib["transform"]
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body).encode("utf-8")


def _transform_shape(el, a, b, c, d, e, f):
    """(tag, attributes) of a shape with the affine map applied, or None if unsupported."""
    tag = el.tag.split("}")[-1]
    attrs = dict(el.attrib)

    def pt(x, y):
        return a * x + c * y + e, b * x + d * y + f

    def pairs(text):
        nums = [float(v) for v in re.findall(_NUM, text)]
        if len(nums) % 2:
            return None
        return " ".join(f"{_fmt(X)},{_fmt(Y)}" for X, Y in
                        (pt(x, y) for x, y in zip(nums[0::2], nums[1::2])))

    if tag in ("polyline", "polygon"):
        new = pairs(attrs.get("points", ""))
        attrs["points"] = new
    elif tag == "path":
        new = attrs["d"] = _path_data(attrs.get("d", ""), pairs)
    elif tag == "line":
        x1, y1 = pt(float(attrs.get("x1", 0)), float(attrs.get("y1", 0)))
        x2, y2 = pt(float(attrs.get("x2", 0)), float(attrs.get("y2", 0)))
        attrs.update(x1=_fmt(x1), y1=_fmt(y1), x2=_fmt(x2), y2=_fmt(y2))
        new = attrs
    elif b != 0 or c != 0:
        return None  # rotated rectangles and ellipses: leave them
    elif tag == "rect" and not any(k in attrs for k in ("rx", "ry")):
        x, y = float(attrs.get("x", 0)), float(attrs.get("y", 0))
        (x0, y0), (x1, y1) = pt(x, y), pt(x + float(attrs.get("width", 0)),
                                           y + float(attrs.get("height", 0)))
        attrs.update(x=_fmt(min(x0, x1)), y=_fmt(min(y0, y1)), width=_fmt(abs(x1 - x0)),
                     height=_fmt(abs(y1 - y0)))
        new = attrs
    elif tag in ("ellipse", "circle"):
        cx, cy = pt(float(attrs.get("cx", 0)), float(attrs.get("cy", 0)))
        if tag == "circle":
            rx = ry = float(attrs.pop("r", 0))
        else:
            rx, ry = float(attrs.get("rx", 0)), float(attrs.get("ry", 0))
        attrs.update(cx=_fmt(cx), cy=_fmt(cy), rx=_fmt(abs(a) * rx), ry=_fmt(abs(d) * ry))
        return el.tag.replace("circle", "ellipse"), attrs
    else:
        return None
    return None if new is None else (el.tag, attrs)


def _path_data(dtext: str, pairs):
    """A path's ``d`` with every point mapped by ``pairs``; None for commands Qt does not write."""
    if re.search(r"[^MLCQZ\s\d.,eE+-]", dtext):
        return None  # relative, arc or H/V commands: not what Qt writes
    parts = []
    for cmd, args in re.findall(r"([MLCQZ])([^MLCQZ]*)", dtext):
        new = "" if cmd == "Z" else pairs(args)
        if new is None:
            return None
        parts.append(f"{cmd}{new}")
    return " ".join(parts)
