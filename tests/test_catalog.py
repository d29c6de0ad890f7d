"""The chip catalog: user chip files, malformed files (table-driven), custom chips saved and deleted.

tests/conftest.py points ROOFGUI_HOME at a fresh directory for every test.
"""

import json
import os
import re
from pathlib import Path

import pytest

import roofgui.model.paths as paths
from roofgui.model.catalog import Catalog
from roofgui.model.chip_file import chip_to_toml, load_chip_file, parse_chip_toml
from roofgui.model.chips import MAX_FILE_BYTES, Figure, make_chip
from roofgui.model.errors import ModelError, SpecError
from roofgui.model.paths import user_chip_dir

ROOT = Path(__file__).resolve().parents[1]

SPECS = Path(__file__).resolve().parents[1] / "specs"
N_SHIPPED = len(list(SPECS.glob("*.toml")))

GOOD = """\
format = 1
id = "{id}"
name = "My accelerator"
vendor = "Example Corp"
kind = "Accelerator"

[sources]
mine = "Own measurement, https://example.com/bench"

[matrix]
bf16 = {{ value = 400e12, source = "mine" }}
int8 = {{ value = 800e12, source = "mine" }}

[vector]
fp32 = {{ value = 20e12, source = "mine" }}

[memory]
capacity = {{ value = 64e9, source = "mine" }}
bandwidth = {{ value = 2.0e12, source = "mine" }}

[links.ici]
description = "a ring"
bandwidth = {{ value = 1e11, source = "mine" }}

[achievable]
fraction = {{ value = 0.9, source = "mine" }}
"""


def good(cid="my-accel") -> str:
    return GOOD.format(id=cid)


def sub(old, new, cid="bad-chip"):
    text = good(cid)
    assert old in text, old
    return text.replace(old, new, 1)


def write(d: Path, name: str, content) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


# (case id, file content, expected key (None: the whole file), expected problem regex)
MALFORMED = [
    # wrong types
    ("name-int", sub('name = "My accelerator"', "name = 5"), "name", r"must be a str"),
    ("format-str", sub("format = 1", 'format = "1"'), "format", r"whole number"),
    ("figure-not-table", sub('int8 = { value = 800e12, source = "mine" }', "int8 = 8e14"),
     "matrix.int8", r"must be a table"),
    ("value-str", sub("value = 400e12", 'value = "400e12"'), "matrix.bf16.value", r"must be a number"),
    ("value-bool", sub("value = 400e12", "value = true"), "matrix.bf16.value", r"must be a number"),
    ("source-int", sub('bf16 = { value = 400e12, source = "mine" }', "bf16 = { value = 400e12, source = 3 }"),
     "matrix.bf16.source", r"must be a str"),
    ("halved-str", sub('bf16 = { value = 400e12, source = "mine" }',
                       'bf16 = { value = 400e12, source = "mine", sparsity_halved = "yes" }'),
     "matrix.bf16.sparsity_halved", r"true or false"),
    ("memory-str", sub('format = 1', 'format = 1\nmemory = 5').replace(
        '[memory]\ncapacity = { value = 64e9, source = "mine" }\n'
        'bandwidth = { value = 2.0e12, source = "mine" }\n', ""), "memory", r"must be a table"),
    ("link-not-table", sub('[links.ici]\ndescription = "a ring"\nbandwidth = { value = 1e11, source = "mine" }',
                           "[links]\nici = 5"), "links.ici", r"must be a table"),
    ("citation-int", sub('mine = "Own measurement, https://example.com/bench"',
                         'mine = "Own measurement, https://example.com/bench"\nother = 7'),
     "sources.other", r"citation"),
    ("citation-empty", sub('mine = "Own measurement, https://example.com/bench"',
                           'mine = "Own measurement, https://example.com/bench"\nother = "  "'),
     "sources.other", r"citation"),
    ("description-int", sub('description = "a ring"', "description = 4"), "links.ici.description", r"string"),
    ("kind-unknown", sub('kind = "Accelerator"', 'kind = "FPGA"'), "kind", r"must be one of"),
    ("id-uppercase", sub('id = "bad-chip"', 'id = "Bad-Chip"'), "id", r"lowercase"),
    ("id-not-file-name", sub('id = "bad-chip"', 'id = "other-chip"'), "id", r"file name"),
    # missing keys
    ("no-format", sub("format = 1\n", ""), "format", r"missing"),
    ("no-id", sub('id = "bad-chip"\n', ""), "id", r"missing"),
    ("no-vendor", sub('vendor = "Example Corp"\n', ""), "vendor", r"missing"),
    ("no-sources", sub('[sources]\nmine = "Own measurement, https://example.com/bench"\n', ""),
     "sources", r"missing"),
    ("no-matrix", sub('[matrix]\nbf16 = { value = 400e12, source = "mine" }\n'
                      'int8 = { value = 800e12, source = "mine" }\n', ""), "matrix", r"at least one"),
    ("no-memory-bandwidth", sub('bandwidth = { value = 2.0e12, source = "mine" }\n', ""),
     "memory.bandwidth", r"missing"),
    ("no-capacity", sub('capacity = { value = 64e9, source = "mine" }\n', ""), "memory.capacity", r"missing"),
    ("no-value", sub("bf16 = { value = 400e12, source = \"mine\" }", 'bf16 = { source = "mine" }'),
     "matrix.bf16.value", r"missing"),
    ("no-source", sub('bf16 = { value = 400e12, source = "mine" }', "bf16 = { value = 400e12 }"),
     "matrix.bf16.source", r"missing"),
    ("source-undefined", sub('bf16 = { value = 400e12, source = "mine" }',
                             'bf16 = { value = 400e12, source = "theirs" }'),
     "matrix.bf16.source", r"not a key of \[sources\]"),
    ("link-no-bandwidth", sub('bandwidth = { value = 1e11, source = "mine" }', ""),
     "links.ici.bandwidth", r"missing"),
    # unknown keys
    ("unknown-top", sub("format = 1", 'format = 1\ncolour = "red"'), "colour", r"unknown key"),
    ("unknown-figure-key", sub('bf16 = { value = 400e12, source = "mine" }',
                               'bf16 = { value = 400e12, source = "mine", unit = "TFLOPS" }'),
     "matrix.bf16.unit", r"unknown key"),
    ("unknown-memory-key", sub("[memory]", '[memory]\nspeed = { value = 1, source = "mine" }'),
     "memory.speed", r"unknown key"),
    ("unknown-link-key", sub('description = "a ring"', 'description = "a ring"\nlatency = 1e-6'),
     "links.ici.latency", r"unknown key"),
    ("unknown-achievable-key", sub("[achievable]", '[achievable]\nmfu = { value = 0.5, source = "mine" }'),
     "achievable.mfu", r"unknown key"),
    # zero, negative, NaN, inf or absurd figures
    ("hbm-bw-zero", sub("value = 2.0e12", "value = 0"), "memory.bandwidth.value", r"greater than zero"),
    ("hbm-bw-negative", sub("value = 2.0e12", "value = -2.0e12"), "memory.bandwidth.value", r"greater than zero"),
    ("hbm-bw-nan", sub("value = 2.0e12", "value = nan"), "memory.bandwidth.value", r"finite"),
    ("hbm-bw-inf", sub("value = 2.0e12", "value = inf"), "memory.bandwidth.value", r"finite"),
    ("peak-zero", sub("value = 400e12", "value = 0.0"), "matrix.bf16.value", r"greater than zero"),
    ("peak-negative", sub("value = 400e12", "value = -1"), "matrix.bf16.value", r"greater than zero"),
    ("peak-nan", sub("value = 400e12", "value = -nan"), "matrix.bf16.value", r"finite"),
    ("peak-inf", sub("value = 400e12", "value = +inf"), "matrix.bf16.value", r"finite"),
    ("peak-absurd", sub("value = 400e12", "value = 1e300"), "matrix.bf16.value", r"implausibly large"),
    ("link-zero", sub("value = 1e11", "value = 0"), "links.ici.bandwidth.value", r"greater than zero"),
    ("link-nan", sub("value = 1e11", "value = nan"), "links.ici.bandwidth.value", r"finite"),
    ("fraction-over-one", sub("value = 0.9", "value = 1.5"), "achievable.fraction.value", r"at most 1"),
    # unknown dtype or link
    ("dtype-unknown", sub("int8 = {", "int3 = {"), "matrix.int3", r"unknown dtype"),
    ("vector-dtype-unknown", sub("fp32 = { value = 20e12", "fp64 = { value = 20e12"), "vector.fp64",
     r"unknown dtype"),
    ("link-unknown", sub("[links.ici]", "[links.infiniband]"), "links.infiniband", r"unknown link"),
    # versions, truncation, junk, size
    ("format-newer", sub("format = 1", "format = 2"), "format", r"newer than this app reads"),
    ("format-zero", sub("format = 1", "format = 0"), "format", r"must be 1"),
    ("truncated", good("bad-chip")[: good("bad-chip").index("int8 = {") + 20], None, r"not valid TOML"),
    ("truncated-at-line", good("bad-chip").split("[memory]")[0], "memory", r"missing"),
    ("empty", "", "format", r"missing"),
    ("binary-junk", bytes(range(256)) * 4, None, r"not a text file|not valid TOML"),
    ("binary-utf8-junk", "\x00\x01format = 1\x02".encode(), None, r"not valid TOML"),
    ("utf16", good("bad-chip").encode("utf-16"), None, r"not a text file|not valid TOML"),
    ("too-large", good("bad-chip") + "#" * (MAX_FILE_BYTES + 10), None, r"too large"),
    ("not-a-table-at-all", "[[format]]\nx = 1\n", "format", r"whole number"),
]


@pytest.mark.parametrize("case, content, key, problem", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_user_file_gives_one_error_and_everything_else_loads(case, content, key, problem):
    d = user_chip_dir()
    write(d, "aaa-good.toml", good("aaa-good"))
    bad = write(d, "bad-chip.toml", content)
    write(d, "zzz-good.toml", good("zzz-good"))
    cat = Catalog.load()
    assert len(cat.errors) == 1, [str(e) for e in cat.errors]
    err = cat.errors[0]
    assert isinstance(err, SpecError)
    assert Path(err.path) == bad
    assert err.key == key, str(err)
    assert re.search(problem, err.problem), str(err)
    msg = str(err)
    assert "bad-chip.toml" in msg and (key is None or key in msg) and "\n" not in msg
    assert len(msg) < 400
    # every other chip still loads
    assert "aaa-good" in cat.chips and "zzz-good" in cat.chips
    assert "bad-chip" not in cat.chips
    assert len(cat) == N_SHIPPED + 2
    # and the same file given directly raises that error
    with pytest.raises(SpecError) as e:
        load_chip_file(bad)
    assert str(e.value) == msg


def test_user_dir_loads_beside_the_shipped_catalog():
    d = user_chip_dir()
    assert d.is_relative_to(Path(os.environ["ROOFGUI_HOME"]))
    write(d, "my-accel.toml", good("my-accel"))
    write(d, "notes.txt", "not a chip")
    cat = Catalog.load()
    assert cat.errors == []
    chip = cat.get("my-accel")
    assert not chip.builtin and chip.path == str(d / "my-accel.toml")
    assert chip.matrix["bf16"].value == 400e12 and chip.links["ici"].bandwidth.value == 1e11
    assert chip.achievable.value == 0.9
    assert len(cat) == N_SHIPPED + 1
    assert Catalog.load(user_dir=False).chips.keys().isdisjoint({"my-accel"})


def test_missing_user_dir_is_fine():
    cat = Catalog.load()
    assert cat.errors == [] and len(cat) == N_SHIPPED


def test_user_file_with_a_shipped_id_is_refused_with_a_message():
    d = user_chip_dir()
    text = (SPECS / "tpu-v5e.toml").read_text(encoding="utf-8").replace("value = 1.97e14", "value = 9e99", 1)
    write(d, "tpu-v5e.toml", text.replace("9e99", "5e14"))
    cat = Catalog.load()
    assert len(cat.errors) == 1
    err = cat.errors[0]
    assert err.key == "id" and "shipped" in err.problem and "tpu-v5e.toml" in str(err)
    chip = cat.get("tpu-v5e")
    assert chip.builtin and chip.matrix["bf16"].value == 1.97e14  # the shipped figures stand


def test_a_directory_named_like_a_chip_file_is_one_error():
    d = user_chip_dir()
    (d / "weird.toml").mkdir(parents=True)
    write(d, "my-accel.toml", good("my-accel"))
    cat = Catalog.load()
    assert len(cat.errors) == 1 and "weird.toml" in str(cat.errors[0])
    assert "my-accel" in cat.chips


def test_get_by_id_case_and_path(tmp_path):
    cat = Catalog.load()
    assert cat.get("TPU-V5E").id == "tpu-v5e"
    assert cat.get(" h100-sxm ").id == "h100-sxm"
    p = write(tmp_path, "lab-chip.toml", good("lab-chip"))
    chip = cat.get(str(p))
    assert chip.id == "lab-chip" and not chip.builtin
    with pytest.raises(ModelError, match="no chip file"):
        cat.get(str(tmp_path / "nope.toml"))
    with pytest.raises(ModelError, match="did you mean"):
        cat.get("h100")
    with pytest.raises(ModelError, match="unknown chip"):
        cat.get("zz-top")
    bad = write(tmp_path, "broken.toml", "format = 1\n")
    with pytest.raises(SpecError, match="broken.toml"):
        cat.get(str(bad))


def test_ids_are_sorted_by_family():
    ids = Catalog.load(user_dir=False).ids()
    assert ids.index("tpu-v4") < ids.index("h100-sxm") < ids.index("mi300x") < ids.index("trainium2")
    assert len(ids) == len(set(ids)) == N_SHIPPED


# --------------------------------------------------------------------------- custom chips

def custom_chip(cid="lab-h100"):
    return make_chip(cid, 'Lab "H100" — underclocked\\ñ\t\x7f', peak=8e14, hbm_bandwidth=3e12, hbm_capacity=80e9,
                     links={"nvlink": 4.5e11}, matrix={"fp8": 1.6e15}, vector={"fp32": 6e13},
                     source="own measurement 2026-01-10")


def test_save_custom_round_trip():
    cat = Catalog.load()
    chip = custom_chip()
    path = cat.save_custom(chip)
    assert path == user_chip_dir() / "lab-h100.toml" and path.is_file()
    assert cat.get("lab-h100").path == str(path)
    again = Catalog.load()
    assert again.errors == []
    got = again.get("lab-h100")
    assert not got.builtin
    assert got.name == chip.name
    assert got.matrix == chip.matrix and got.vector == chip.vector
    assert got.hbm_bandwidth == chip.hbm_bandwidth and got.hbm_capacity == chip.hbm_capacity
    assert got.links == chip.links and got.sources == chip.sources
    # leaves no temporary files behind
    assert [p.name for p in user_chip_dir().iterdir()] == ["lab-h100.toml"]


def test_chip_to_toml_round_trips_every_field():
    chip = Catalog.load(user_dir=False).get("h100-sxm")
    text = chip_to_toml(chip)
    back = parse_chip_toml(text, "h100-sxm.toml", builtin=True)
    for field in ("id", "name", "vendor", "kind", "summary", "matrix", "vector", "hbm_capacity",
                  "hbm_bandwidth", "links", "sources", "achievable"):
        assert getattr(back, field) == getattr(chip, field), field


def test_save_custom_overwrites_atomically_and_a_failed_write_keeps_the_old_file(monkeypatch):
    cat = Catalog.load()
    path = cat.save_custom(custom_chip())
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    real_replace = os.replace
    monkeypatch.setattr(paths.os, "replace", boom)
    faster = make_chip("lab-h100", "Lab H100 v2", peak=9e14, hbm_bandwidth=3.3e12)
    with pytest.raises(OSError):
        cat.save_custom(faster)
    assert path.read_bytes() == before
    assert [p.name for p in user_chip_dir().iterdir()] == ["lab-h100.toml"]  # the temp file is gone
    monkeypatch.setattr(paths.os, "replace", real_replace)  # (not undo(): that would drop ROOFGUI_HOME)
    cat.save_custom(faster)
    assert Catalog.load().get("lab-h100").matrix["bf16"].value == 9e14


def test_shipped_chips_are_read_only():
    cat = Catalog.load()
    shipped = cat.get("tpu-v5e")
    with pytest.raises(ModelError, match="shipped"):
        cat.save_custom(make_chip("tpu-v5e", "mine", peak=1e15, hbm_bandwidth=1e12))
    with pytest.raises(ModelError, match="shipped"):
        cat.delete_custom("tpu-v5e")
    assert cat.get("tpu-v5e") is shipped
    assert not user_chip_dir().exists() or not any(user_chip_dir().iterdir())


@pytest.mark.parametrize("bad_id", ["My Chip", "../escape", "a/b", "", "UPPER"])
def test_save_custom_refuses_bad_ids_before_writing(bad_id, tmp_path):
    cat = Catalog.load()
    chip = make_chip("ok", "x", peak=1e15, hbm_bandwidth=1e12)
    from dataclasses import replace
    with pytest.raises(ModelError):
        cat.save_custom(replace(chip, id=bad_id))
    home = Path(os.environ["ROOFGUI_HOME"])
    written = [p for p in home.rglob("*") if p.is_file()] if home.exists() else []
    assert written == []


def test_delete_custom():
    cat = Catalog.load()
    path = cat.save_custom(custom_chip("temp-chip"))
    cat.delete_custom("temp-chip")
    assert not path.exists() and "temp-chip" not in cat.chips
    assert "temp-chip" not in Catalog.load().chips
    with pytest.raises(ModelError, match="unknown chip"):
        cat.delete_custom("temp-chip")


def test_make_chip_validates_its_numbers():
    for kw in ({"peak": 0}, {"peak": float("nan")}, {"hbm_bandwidth": -1}, {"hbm_bandwidth": float("inf")},
               {"links": {"ici": 0}}, {"links": {"warp": 1e9}}, {"matrix": {"fp64": 1e12}}, {"peak": "1e12"}):
        args = {"peak": 1e14, "hbm_bandwidth": 1e12, **kw}
        with pytest.raises(ModelError):
            make_chip("x", "x", **args)


def test_what_if_scaling_keeps_the_catalog_untouched():
    cat = Catalog.load(user_dir=False)
    chip = cat.get("h100-sxm")
    fast = chip.scaled(2, 0.5, 4)
    assert fast.matrix["bf16"].value == 2 * 989.4e12 and chip.matrix["bf16"].value == 989.4e12
    assert fast.hbm_bandwidth.value == 1.675e12 and fast.links["nvlink"].bandwidth.value == 1.8e12
    assert "what-if" in fast.matrix["bf16"].note
    assert isinstance(fast.matrix["bf16"], Figure)
    assert chip.scaled() is chip


# -- files that are not what they seem (issue #28) --------------------------------------

def _chip_text(cid: str) -> str:
    return chip_to_toml(make_chip(cid, "Mine", peak=8e14, hbm_bandwidth=3e12))


def test_a_chip_id_with_a_look_alike_letter_is_refused(tmp_path):
    d = tmp_path / "chips"
    d.mkdir()
    cid = "h100-s\u0445m"  # Cyrillic ha, looks exactly like x
    (d / f"{cid}.toml").write_text(_chip_text(cid), encoding="utf-8")
    cat = Catalog.load(user_dir=d)
    assert cid not in cat.chips
    assert any("ASCII" in str(e) for e in cat.errors)


def test_a_byte_order_mark_is_no_error(tmp_path):
    d = tmp_path / "chips"
    d.mkdir()
    (d / "mine.toml").write_bytes(b"\xef\xbb\xbf" + _chip_text("mine").encode())
    cat = Catalog.load(user_dir=d)
    assert "mine" in cat.chips, [str(e) for e in cat.errors]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_the_chips_folder_is_skipped_with_one_error_naming_it(tmp_path):
    d = tmp_path / "chips"
    d.mkdir()
    os.mkfifo(d / "pipe.toml")
    (d / "mine.toml").write_text(_chip_text("mine"), encoding="utf-8")
    cat = Catalog.load(user_dir=d)  # returns at once: the FIFO is never waited on
    assert "mine" in cat.chips
    (err,) = cat.errors
    assert "pipe.toml" in str(err) and "not a regular file" in str(err)


def test_a_chips_folder_that_cannot_be_read_is_reported(tmp_path):
    not_a_folder = tmp_path / "chips"
    not_a_folder.write_text("oops")
    cat = Catalog.load(user_dir=not_a_folder)
    assert len(cat) > 0  # the shipped chips are all there
    (err,) = cat.errors
    assert "cannot read the chips folder" in str(err) and str(not_a_folder) in str(err)


def test_a_chip_path_in_a_scenario_is_relative_to_the_scenario(tmp_path, monkeypatch):
    from roofgui.model.evaluate import evaluate_scenario
    from roofgui.model.scenario import Scenario, load_scenario, save_scenario

    proj = tmp_path / "project"
    proj.mkdir()
    (proj / "mine.toml").write_text(_chip_text("mine"), encoding="utf-8")
    sc = Scenario.from_dict(json.loads((ROOT / "resources/examples/01-bf16-matmul-tpu-v5e.json").read_text()))
    sc.chips = ["mine.toml"]
    save_scenario(sc, proj / "s.json")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    ev = evaluate_scenario(load_scenario(proj / "s.json"), Catalog.load(user_dir=False))
    assert not ev.errors and ev.entries and ev.entries[0].analysis.chip.id == "mine"
