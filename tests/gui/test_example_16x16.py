"""The bundled 16 chips × 16 ops example: opens from the menu without errors, every chip
told apart, every op on every chip in the summary with the block's totals."""

from __future__ import annotations

from gui_helpers import flush
from roofgui.presentation.summary import TOTAL_LABEL


def test_the_16_by_16_example_opens_from_the_menu(window):
    (a,) = [a for a in window.controller.examples_menu.actions()
            if a.iconText().startswith("A Llama-2-7B-shaped transformer block on 16")]
    a.trigger()
    flush(window)
    sc = window.doc.scenario
    assert len(sc.chips) == len(set(sc.chips)) == 16 and len(sc.ops) == 16
    assert window.notices.messages() == []
    plot = window.roofline_plot
    assert len(plot.points) == 256 and set(plot.roof_curves) == set(sc.chips)
    assert len(set(window.chip_colours().values())) == 16
    t = window.results.summary
    assert (t.rowCount(), t.columnCount()) == (17, 16)
    assert t.verticalHeaderItem(0).text() == TOTAL_LABEL
    assert all(t.item(r, c).text() != "—" for r in range(17) for c in range(16))
    # decode at batch 32 reads its weights: memory-bound on every chip
    row = [t.verticalHeaderItem(r).text() for r in range(17)].index("decode B=32 MLP down")
    assert {t.item(row, c).text().split(" · ")[0] for c in range(16)} == {"memory"}
    assert not window.isWindowModified()
