"""The sweep controls' LLM views: throughput and per-token latency against batch."""

from __future__ import annotations

from roofgui.gui.document import ALL, OPS, SWEEP
from roofgui.gui.widgets import set_combo_items
from roofgui.model import llm
from roofgui.plotting.llm_sweep import SWEEP_CHOICES, is_llm_view


def install_sweep_choices(controls) -> None:
    """Offer the LLM views in the sweep controls' Plot combo, after its own choices.

    Choosing one also sweeps ``B`` (in the same undo step), since these views
    are against batch; the choices are greyed out while the scenario has no
    LLM step (unless one is shown, so a file that asks for it still reads).
    """
    combo = controls.y_combo
    have = [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]
    set_combo_items(combo, have + [c for c in SWEEP_CHOICES if c[1] not in {d for _, d in have}])
    combo.setToolTip(combo.toolTip().rstrip(".") + "; for an LLM step, its throughput or "
                     "per-token latency against batch B, with each chip's memory-capacity wall.")
    binding = next((b for b in controls.bindings if b.widget is combo), None)
    if binding is not None:
        write = binding.write

        def write_y(s, v, write=write) -> None:
            write(s, v)
            if is_llm_view(v) and s.sweep.dim != "B":
                s.sweep.dim = "B"
                s.sweep.start, s.sweep.stop = llm.SWEEP_DEFAULT_RANGE
        binding.write = write_y

    def sync() -> None:
        sc = controls.doc.scenario
        has_llm = llm.sweep_op_index(sc) is not None
        model = combo.model()
        for i in range(combo.count()):
            if is_llm_view(combo.itemData(i)):
                item = model.item(i) if hasattr(model, "item") else None
                if item is not None:
                    item.setEnabled(has_llm or combo.currentIndex() == i)
                    item.setToolTip("" if has_llm else "Add an LLM step to see this view")

    def on_changed(part: str, _origin: object) -> None:
        if part in (SWEEP, OPS, ALL):  # (the plot chosen, the ops' kinds)
            sync()

    controls.doc.changed.connect(on_changed)
    controls.sync(None)  # show the scenario's choice, now that the combo offers it
    sync()
