"""The form is built from the model's op descriptions and writes the scenario through the document."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox

from roofgui.gui.document import ALL, ScenarioDocument
from roofgui.gui.form import ScenarioForm, SweepControls
from roofgui.gui.op_editor import change_kind
from roofgui.gui.widgets import QuantityEdit
from roofgui.model.catalog import Catalog
from roofgui.model.ops import OP_KINDS, DimSpec, OpKind, Work, get_dtype
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


@pytest.fixture
def form(qtbot, catalog):
    doc = ScenarioDocument()
    f = ScenarioForm(doc, catalog)
    qtbot.addWidget(f)
    f.show()
    return f


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


@dataclass(frozen=True)
class _Param:
    name: str
    label: str
    default: object
    help: str = ""
    choices: tuple = ()


def _toy_work(dims, dt, shard, params=None):
    n = dims["N"]
    return Work(2.0 * n * params.get("passes", 1), 4.0 * n + 0 * n, 0.0 * n, "vector", get_dtype("bf16"))


@pytest.fixture
def toy_kind(monkeypatch):
    """An op kind registered after the form's module was imported, with extra params."""
    kind = OpKind("toy", "Toy scan over N", (DimSpec("N", "N (items)", 1000, "Items scanned."),),
                  ("x", "compute"), (), _toy_work, "A kind the form has never heard of.")
    object.__setattr__(kind, "params", (
        _Param("passes", "Passes", 2, "How many times the data is read."),
        _Param("mode", "Mode", "fast", "How it runs.", (("fast", "Fast"), ("exact", "Exact"))),
        _Param("fused", "Fused", True, "Whether the passes are fused.")))
    monkeypatch.setitem(OP_KINDS, "toy", kind)
    return kind


def test_the_type_list_is_every_registered_kind(form):
    combo = form.editor.kind_combo
    assert [combo.itemData(i) for i in range(combo.count())] == list(OP_KINDS)


def test_a_kind_registered_later_appears_with_its_fields_and_params(form, qtbot, toy_kind):
    doc = form.editor.doc
    doc.notify(ALL)  # any sync picks up the registry
    combo = form.editor.kind_combo
    idx = combo.findData("toy")
    assert idx >= 0 and combo.itemText(idx) == "Toy scan over N"
    combo.setCurrentIndex(idx)
    op = doc.scenario.ops[0]
    assert op.kind == "toy" and op.dims == {} and op.name == "toy"
    page = form.editor.current_page()
    assert set(page.edits) == {"N"}
    assert page.edits["N"].accessibleName() == "N (items)"
    passes = page.findChild(QuantityEdit, "param_passes")
    mode = page.findChild(QComboBox, "param_mode")
    fused = page.findChild(QCheckBox, "param_fused")
    assert passes.text() == "2" and mode.currentData() == "fast" and fused.isChecked()
    type_into(qtbot, passes, "3")
    mode.setCurrentIndex(mode.findData("exact"))
    fused.click()
    assert doc.scenario.ops[0].params == {"passes": 3.0, "mode": "exact", "fused": False}
    # only the kind's dtype roles are shown
    assert form.editor.dtype_combo("x").isVisibleTo(form)
    assert not form.editor.dtype_combo("w").isVisibleTo(form)
    assert not form.editor.shard_box.isEnabled()


def test_change_kind_keeps_what_still_applies():
    op = OpSpec("matmul", "matmul", {"B": 64, "D": 128, "F": 256}, {"x": "int8", "w": "int8"},
                ShardSpec("D", 2, "ici"))
    change_kind(op, "batched-matmul")
    assert op.dims == {"B": 64, "D": 128, "F": 256} and op.shard is not None
    assert op.name == "batched-matmul"  # the automatic name follows the kind
    op.name = "up-proj"
    change_kind(op, "dot")
    assert op.dims == {} and op.dtypes == {"x": "int8"} and op.shard is None
    assert op.name == "up-proj"  # a name the user chose stays


def test_selecting_another_op_shows_its_values(form, qtbot):
    doc = form.editor.doc
    form.ops.add_op("dot")
    assert form.editor.current_page().kind.name == "dot"
    type_into(qtbot, form.editor.dim_edit("N"), "4k")
    form.ops.list.setCurrentRow(0)
    assert doc.scenario.selected == 0
    assert form.editor.dim_edit("B").text() == "256"
    form.ops.list.setCurrentRow(1)
    assert form.editor.dim_edit("N").text() == "4k"  # what was typed stays as typed


def test_a_bad_entry_does_not_follow_to_another_op(form, qtbot):
    form.ops.duplicate_op()
    type_into(qtbot, form.editor.dim_edit("B"), "lots")
    assert form.editor.dim_edit("B").error()
    form.ops.list.setCurrentRow(0)
    assert form.editor.dim_edit("B").error() is None and form.editor.dim_edit("B").text() == "256"


def test_keyboard_shortcuts_of_the_op_list(form, qtbot):
    from PySide6.QtCore import Qt
    doc = form.editor.doc
    form.ops.list.setFocus()
    qtbot.keyClick(form.ops.list, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert len(doc.scenario.ops) == 2
    qtbot.keyClick(form.ops.list, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert doc.scenario.selected == 0 and doc.scenario.ops[1].name == "matmul"
    qtbot.keyClick(form.ops.list, Qt.Key.Key_Delete)
    assert len(doc.scenario.ops) == 1


def test_sharding_defaults_to_each_chips_scale_up_link(form):
    ed = form.editor
    doc = ed.doc
    # "each chip's scale-up link" is the first choice of the link list, named as such
    assert ed.link_combo.itemData(0) == "scale-up"
    assert "scale-up link" in ed.link_combo.itemText(0)
    assert ed.link_combo.findData("nvlink") > 0 and ed.link_combo.findData("ici") > 0
    doc.edit("chips", lambda s: setattr(s, "chips", ["mi300x", "h100-sxm"]))
    ed.axis_combo.setCurrentIndex(ed.axis_combo.findData("F"))
    # not the first chip's xGMI (which the H100 lacks): each chip's own link
    assert doc.scenario.ops[0].shard == ShardSpec("F", 2, "scale-up")
    assert ed.link_combo.currentData() == "scale-up"
    assert ed.chips_edit.isEnabled() and ed.link_combo.isEnabled()
    ed.link_combo.setCurrentIndex(ed.link_combo.findData("nvlink"))
    assert doc.scenario.ops[0].shard == ShardSpec("F", 2, "nvlink")
    ed.axis_combo.setCurrentIndex(ed.axis_combo.findData(""))
    assert doc.scenario.ops[0].shard is None and not ed.chips_edit.isEnabled()


def test_title_edit_is_bound(form, qtbot):
    doc = form.editor.doc
    type_into(qtbot, form.title.edit, "Why is decode slow?")
    assert doc.scenario.title == "Why is decode slow?"
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert form.title.edit.text() == doc.scenario.title


def test_sweep_controls_list_the_dimensions_of_the_ops(qtbot, catalog):
    doc = ScenarioDocument()
    sc = SweepControls(doc)
    qtbot.addWidget(sc)
    dims = [sc.dim_combo.itemData(i) for i in range(sc.dim_combo.count())]
    assert dims == ["B", "D", "F"]
    doc.edit("add dot", lambda s: s.ops.append(OpSpec("dot", "dot")))
    dims = [sc.dim_combo.itemData(i) for i in range(sc.dim_combo.count())]
    assert dims == ["B", "D", "F", "N"]
    sc.dim_combo.setCurrentIndex(3)
    assert doc.scenario.sweep.dim == "N"


def test_sweep_dimension_combo_grows_to_its_text(qtbot, catalog):
    # shown first with a matmul's "B (batch, tokens)", then an LLM step's longer
    # "Batch B (concurrent requests)": the combo shows the whole name, not "Batch B (concurre…"
    pytest.importorskip("roofgui.model.llm")
    doc = ScenarioDocument()
    sc = SweepControls(doc)
    qtbot.addWidget(sc)
    sc.resize(1000, 40)
    sc.show()
    combo = sc.dim_combo
    short = combo.currentText()
    qtbot.wait(10)  # laid out with the short name
    llm = Scenario(ops=[OpSpec("serving", "llm", {"B": 64, "p": 1024, "d": 256})], chips=["h100-sxm"])
    llm.sweep.dim = "B"
    sc.hide()  # opened while the roofline tab is shown
    doc.load(llm)
    sc.show()
    qtbot.wait(1)
    text = combo.currentText()
    assert len(text) > len(short) + 5
    assert combo.width() >= combo.fontMetrics().horizontalAdvance(text) + 16


def test_llm_step_has_a_model_picker_and_custom_fields(form, qtbot):
    pytest.importorskip("roofgui.model.llm")
    from roofgui.model import llm
    ed = form.editor
    doc = ed.doc
    doc.notify(ALL)
    ed.kind_combo.setCurrentIndex(ed.kind_combo.findData("llm"))
    page = ed.current_page()
    model = page.findChild(QComboBox, "param_model")
    layers = page.findChild(QuantityEdit, "param_layers")
    assert model.currentData() == llm.DEFAULT_MODEL
    assert layers.text() == str(llm.get_preset(llm.DEFAULT_MODEL).layers) and not layers.isEnabled()
    model.setCurrentIndex(model.findData("llama-3-70b"))
    assert doc.scenario.ops[0].params == {"model": "llama-3-70b"}
    assert layers.text() == "80"
    model.setCurrentIndex(model.findData(llm.CUSTOM))
    params = doc.scenario.ops[0].params
    assert params["model"] == llm.CUSTOM and params["layers"] == 80 and layers.isEnabled()
    type_into(qtbot, layers, "40")
    assert doc.scenario.ops[0].params["layers"] == 40
    assert llm.resolve_model(doc.scenario.ops[0].params).layers == 40
    model.setCurrentIndex(model.findData("llama-2-7b"))
    assert doc.scenario.ops[0].params == {"model": "llama-2-7b"}


def test_an_edit_ending_invalid_returns_to_the_value_before_it(form, qtbot):
    """Typing "1e30" passes through "1e3": the plot follows it live, but the invalid end
    returns the scenario to the value before the edit, with the message in place."""
    doc = form.editor.doc
    edit = form.editor.dim_edit("B")
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "1e3")
    assert doc.scenario.ops[0].dims["B"] == 1000  # live while it parses
    qtbot.keyClicks(edit, "0")  # "1e30": too large
    assert doc.scenario.ops[0].dims["B"] == 256
    assert "too large" in edit.message.text() and edit.message.isVisibleTo(form)
    qtbot.keyClick(edit, Qt.Key.Key_Tab)  # the edit ends invalid: it stays shown, B stays 256
    assert doc.scenario.ops[0].dims["B"] == 256 and edit.text() == "1e30"
    assert edit.message.isVisibleTo(form)
    doc.undo_stack.undo()  # nothing left to undo from this edit
    assert doc.scenario.ops[0].dims["B"] == 256


def test_a_fraction_in_an_integer_field_is_refused_not_truncated(form, qtbot):
    doc = form.editor.doc
    edit = form.editor.dim_edit("B")
    type_into(qtbot, edit, "3.5")
    assert doc.scenario.ops[0].dims["B"] == 256  # not 3 (the prefix "3")
    assert "whole number" in edit.message.text()
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert doc.scenario.ops[0].dims["B"] == 256
    type_into(qtbot, edit, "64")  # the next edit is live again
    assert doc.scenario.ops[0].dims["B"] == 64 and not edit.message.isVisibleTo(form)
