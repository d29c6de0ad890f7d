"""A matmul's tile is saved in the scenario JSON and checked on load."""

import json

import pytest

from roofgui import cli
from roofgui.model.errors import ScenarioError
from roofgui.model.scenario import Scenario, default_scenario, load_scenario, save_scenario
from roofgui.model.tiling import Tile


def test_tile_round_trips_and_untiled_ops_save_as_before(tmp_path):
    sc = default_scenario()
    assert "tile" not in sc.to_json()
    sc.ops[0].tile = {"bm": 128, "bn": 256, "bk": 64}
    path = tmp_path / "s.json"
    save_scenario(sc, path)
    assert json.loads(path.read_text())["ops"][0]["tile"] == {"bm": 128, "bn": 256, "bk": 64}
    back = load_scenario(path)
    assert back.ops[0].tile == {"bm": 128, "bn": 256, "bk": 64}
    assert back.ops[0].tile_obj() == Tile(128, 256, 64)


@pytest.mark.parametrize("tile, kind, problem", [
    ({"bm": 128}, "matmul", "ops[0].tile: bn is missing"),
    ({"bm": 128, "bn": -4}, "matmul", "ops[0].tile: bn must be a whole number"),
    ({"bm": 128, "bn": 64, "x": 1}, "matmul", "ops[0].tile: unknown tile size 'x'"),
    ("128x128", "matmul", "ops[0].tile: must be a table"),
    ({"bm": 8, "bn": 8}, "dot", "ops[0].tile: only a matmul op takes a tile (this is dot)"),
])
def test_a_bad_tile_in_a_file_is_one_error_naming_the_key(tmp_path, tile, kind, problem):
    data = json.loads(default_scenario().to_json())
    data["ops"][0]["kind"] = kind
    data["ops"][0]["dims"] = {} if kind == "dot" else data["ops"][0]["dims"]
    data["ops"][0]["tile"] = tile
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    assert problem in str(e.value) and str(path) in str(e.value)


def test_analyze_reads_the_tile_from_a_scenario_file(tmp_path, capsys):
    sc = default_scenario()
    sc.ops[0].tile = {"bm": 128, "bn": 128}
    path = tmp_path / "tiled.json"
    save_scenario(sc, path)
    assert cli.main(["analyze", str(path), "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert [r["tile"] for r in recs] == [{"bm": 128, "bn": 128}] * 2
    assert recs[0]["levels"][-1]["level"] == "hbm"
