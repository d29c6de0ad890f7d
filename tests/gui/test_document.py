"""ScenarioDocument: undo/redo of scenario snapshots, merging, files, and the session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofgui.gui.document import ALL, ScenarioDocument, app_settings, op_part
from roofgui.gui.examples import examples
from roofgui.model.errors import ScenarioError
from roofgui.model.scenario import Scenario, default_scenario


@pytest.fixture
def doc(qapp):
    return ScenarioDocument()


def set_b(value):
    def change(s: Scenario) -> None:
        s.ops[0].dims["B"] = value
    return change


def test_an_edit_is_one_undoable_step(doc):
    seen = []
    doc.changed.connect(lambda part, origin: seen.append((part, origin)))
    assert doc.edit("Set B", set_b(512), part=op_part(0), origin="form")
    assert doc.scenario.ops[0].dims["B"] == 512
    assert seen == [("op:0", "form")] and doc.is_modified()
    doc.undo_stack.undo()
    assert doc.scenario.ops[0].dims["B"] == 256 and not doc.is_modified()
    assert seen[-1] == (ALL, None)  # undo: every view re-reads everything
    doc.undo_stack.redo()
    assert doc.scenario.ops[0].dims["B"] == 512


def test_an_edit_that_changes_nothing_is_not_a_step(doc):
    assert not doc.edit("Set B", set_b(256))
    assert doc.undo_stack.count() == 0 and not doc.is_modified()


def test_keystrokes_in_one_field_merge_until_sealed(doc):
    for v in (1, 10, 102, 1024):
        doc.edit("Set B", set_b(v), key="op0.B")
    assert doc.undo_stack.count() == 1
    doc.seal()  # the field lost focus
    doc.edit("Set B", set_b(2048), key="op0.B")
    assert doc.undo_stack.count() == 2
    doc.edit("Set D", lambda s: s.ops[0].dims.__setitem__("D", 4096), key="op0.D")
    assert doc.undo_stack.count() == 3
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.scenario.ops[0].dims["B"] == 1024
    doc.undo_stack.undo()
    assert doc.scenario.ops[0].dims["B"] == 256


def test_typing_back_to_the_original_value_leaves_no_step(doc):
    doc.edit("Set B", set_b(25), key="op0.B")
    doc.edit("Set B", set_b(256), key="op0.B")
    assert doc.undo_stack.count() == 0 and not doc.is_modified()


def test_undo_does_not_undo_the_zoom(doc):
    doc.edit("Set B", set_b(512))
    doc.set_view([0, 3, 12, 15])
    doc.undo_stack.undo()
    assert doc.scenario.view.roofline == [0, 3, 12, 15]
    assert doc.undo_stack.count() == 1


def test_selecting_and_zooming_leave_the_undo_snapshots_alone(doc):
    doc.edit("Add op", lambda s: s.ops.append(s.ops[0].__class__(name="x")))
    doc.set_selected(1)
    doc.set_view([0, 1, 2, 3])
    doc.undo_stack.undo()
    doc.undo_stack.redo()
    assert doc.scenario.selected == 0 and len(doc.scenario.ops) == 2  # as the edit left it
    assert doc.scenario.view.roofline == [0, 1, 2, 3]
    assert doc.undo_stack.command(0).after.view.roofline is None


def test_snapshots_are_independent_of_later_edits(doc):
    doc.edit("Add op", lambda s: s.ops.append(s.ops[0].__class__(name="x")))
    doc.edit("Set B", set_b(1))
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert [o.name for o in doc.scenario.ops] == ["matmul"]
    assert doc.scenario.ops[0].dims["B"] == 256


def test_save_and_open_round_trip(doc, tmp_path):
    doc.edit("Set B", set_b(4096))
    path = doc.save(tmp_path / "a.json")
    assert not doc.is_modified() and doc.path == path
    data = json.loads(path.read_text())
    assert data["format"] == "roofgui-scenario" and data["version"] == 1
    other = ScenarioDocument()
    other.open(path)
    assert other.scenario.to_dict() == doc.scenario.to_dict()
    assert other.undo_stack.count() == 0 and not other.is_modified()
    assert other.display_name() == "a.json"


def test_opening_a_bad_file_raises_and_keeps_the_document(doc, tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{ truncated")
    before = doc.scenario.to_dict()
    with pytest.raises(ScenarioError, match="bad.json"):
        doc.open(p)
    assert doc.scenario.to_dict() == before and doc.path is None


def test_a_save_leaves_no_temporary_files(doc, tmp_path):
    doc.save(tmp_path / "s.json")
    doc.edit("Set B", set_b(8))
    doc.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_load_clears_the_history(doc):
    doc.edit("Set B", set_b(8))
    doc.load(default_scenario())
    assert doc.undo_stack.count() == 0 and not doc.is_modified()
    doc.load(default_scenario(), modified=True)
    assert doc.is_modified()


def test_settings_live_in_the_user_data_dir(qapp, tmp_path):
    s = app_settings()
    s.setValue("probe", 1)
    s.sync()
    assert str(tmp_path) in s.fileName()


def test_examples_are_found_and_titled():
    found = examples()
    assert len(found) >= 8
    for ex in found:
        assert ex.title and ex.title != ex.name
        assert Scenario.from_json(ex.text).title == ex.title


def _examples_dir(tmp_path, monkeypatch):
    """Point examples() at a folder of our own: two good examples and three bad ones."""
    import types

    import roofgui.gui.examples as document

    d = tmp_path / "pkg" / "resources" / "examples"
    d.mkdir(parents=True)
    good = default_scenario()
    good.title = "A good example"
    (d / "01-good.json").write_text(good.to_json(), encoding="utf-8")
    good.title = "Another good one"
    (d / "05-good.json").write_text(good.to_json(), encoding="utf-8")
    (d / "02-not-json.json").write_text("{ not json", encoding="utf-8")
    (d / "03-binary.json").write_bytes(b"\xff\xfe\x00bad")
    (d / "04-not-a-scenario.json").write_text(json.dumps({"format": "something-else"}),
                                              encoding="utf-8")
    monkeypatch.setattr(document, "resources",
                        types.SimpleNamespace(files=lambda name: tmp_path / "pkg"))
    monkeypatch.setattr(document, "shipped_path", lambda *parts: tmp_path / "pkg" / Path(*parts))
    return d


def test_an_example_that_cannot_be_read_is_reported_not_dropped_silently(tmp_path, monkeypatch,
                                                                          caplog):
    _examples_dir(tmp_path, monkeypatch)
    problems: list[str] = []
    with caplog.at_level("WARNING", logger="roofgui.gui.examples"):
        found = examples(problems)
    assert [ex.name for ex in found] == ["01-good.json", "05-good.json"]
    assert len(problems) == 3
    assert problems[0].startswith("Example 02-not-json.json skipped: not valid JSON")
    assert problems[1] == "Example 03-binary.json skipped: not a text file (not valid UTF-8)"
    assert problems[2].startswith("Example 04-not-a-scenario.json skipped: format: must be")
    assert [r.getMessage() for r in caplog.records] == problems
    assert [ex.name for ex in examples()] == ["01-good.json", "05-good.json"]  # no list: logged only


def test_the_examples_menu_shows_the_skipped_examples(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QWidget

    from roofgui.gui.controller import DocumentController

    _examples_dir(tmp_path, monkeypatch)
    host = QWidget()
    qtbot.addWidget(host)
    ctl = DocumentController(ScenarioDocument(), host)
    with qtbot.waitSignal(ctl.messageShown, timeout=2000) as shown:
        pass  # emitted from the event loop, once the window has connected to it
    assert shown.args[0].startswith("3 examples skipped: Example 02-not-json.json skipped")
    actions = ctl.examples_menu.actions()
    enabled = [a.text() for a in actions if a.isEnabled() and not a.isSeparator()]
    assert enabled == ["A good example", "Another good one"]
    notes = [a for a in actions if not a.isEnabled() and not a.isSeparator()]
    assert [a.text().split(" skipped")[0] for a in notes] == [
        "⚠ Example 02-not-json.json", "⚠ Example 03-binary.json", "⚠ Example 04-not-a-scenario.json"]
    assert all(a.toolTip() == a.text()[2:] for a in notes)
    assert ctl.example_problems == [a.text()[2:] for a in notes]


def test_the_shipped_examples_all_load_with_no_problems():
    problems: list[str] = []
    assert len(examples(problems)) >= 8
    assert problems == []


def test_a_fifo_or_a_link_to_dev_zero_among_the_examples_is_skipped_not_read(tmp_path, monkeypatch):
    import os

    d = _examples_dir(tmp_path, monkeypatch)
    os.mkfifo(d / "06-fifo.json")
    (d / "07-zero.json").symlink_to("/dev/zero")
    problems: list[str] = []
    found = examples(problems)
    assert [ex.name for ex in found] == ["01-good.json", "05-good.json"]
    assert "Example 06-fifo.json skipped: cannot read: not a regular file" in problems
    assert "Example 07-zero.json skipped: cannot read: not a regular file" in problems
