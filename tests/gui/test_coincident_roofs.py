"""Two chips with the same peak (H100 and H200 SXM at bf16 989 TFLOP/s) share one roof
line: both stay visible (the second drawn as dashes over the first) and the line's one
label names both (on two lines when short of room; where even that would sit on the
points on the roof, the label gives the peak and the roof's hover names both)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gui_helpers import EXAMPLES, flush, settle
from roofgui.presentation.coincide import short_name

MLP = EXAMPLES / "09-mlp-on-three-gpus.json"


def test_coincident_roofs_both_show_and_the_label_says_so(window):
    window.controller.open_path(MLP, ask=False)
    flush(window)
    plot = window.roofline_plot
    h100, h200 = plot.roof_curves["h100-sxm"], plot.roof_curves["h200"]
    (key,) = [k for k in h100 if k.startswith("compute")]
    first, second = h100[key], h200[key]
    assert first.isVisible() and second.isVisible()
    assert (first.getData()[1] == second.getData()[1]).all()  # the same line
    assert first.opts["pen"].style() == Qt.PenStyle.SolidLine
    pen = second.opts["pen"]
    assert pen.style() == Qt.PenStyle.CustomDashLine and len(pen.dashPattern()) == 2
    shown = [lab.toPlainText() for (cid, k), lab in plot.roof_labels.items()
             if k == key and cid in ("h100-sxm", "h200") and lab.isVisible()]
    # (short of room beside the points on the roof, the chips are left to the hover)
    assert shown == ["bf16 989 TFLOP/s"]
    assert "the same line as: H100 SXM" in h200_roof(plot).tooltip
    window.resize(1600, 1000)
    settle(window, plot)
    plot.fit()
    settle(window, plot)
    shown = [lab.toPlainText() for (cid, k), lab in plot.roof_labels.items()
             if k == key and cid in ("h100-sxm", "h200") and lab.isVisible()]
    assert [t.replace("\n", " · ") for t in shown] == ["bf16 989 TFLOP/s · H100 SXM = H200 SXM"]
    # B200's roof stands alone: its label is its own
    assert [lab.toPlainText() for (cid, _), lab in plot.roof_labels.items()
            if cid == "b200"] == ["bf16 2.25 PFLOP/s"]


def h200_roof(plot):
    (chip,) = [c for c in plot.geometry.chips if c.chip_id == "h200"]
    return next(r for r in chip.roofs if r.key.startswith("compute"))


def test_short_names():
    assert short_name("NVIDIA H100 SXM (80 GB)") == "H100 SXM"
    assert short_name("NVIDIA GB200 (per Blackwell GPU)") == "GB200"
    assert short_name("Google TPU v5e") == "TPU v5e"
    assert short_name("NVIDIA H100 SXM (80 GB) (peak×2)") == "H100 SXM (peak×2)"
