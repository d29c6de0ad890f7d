"""On-chip memory levels in chip files: parsing, errors naming file and key, shipped data."""

import re

import pytest

from roofgui.model.catalog import Catalog
from roofgui.model.chip_file import chip_to_toml, parse_chip_toml
from roofgui.model.errors import SpecError

BASE = """\
format = 1
id = "lab"
name = "Lab chip"
vendor = "Example"
kind = "GPU"

[sources]
mine = "Own measurement, https://example.com/bench"

[matrix]
bf16 = { value = 400e12, source = "mine" }

[memory]
capacity = { value = 64e9, source = "mine" }
bandwidth = { value = 2.0e12, source = "mine" }
"""

L2 = """
[levels.l2]
name = "L2 cache"
kind = "microbenchmark"
capacity = { value = 50e6, source = "mine" }
bandwidth = { value = 5.5e12, source = "mine" }
"""

SMEM = """
[levels.smem]
name = "Shared memory"
kind = "vendor"
scope = "per SM"
capacity = { value = 228e3, source = "mine" }
"""


def parse(text):
    return parse_chip_toml(text, "lab.toml")


def test_levels_parse_nearest_first_with_figures_and_sources():
    chip = parse(BASE + L2 + SMEM)
    assert [lv.id for lv in chip.levels] == ["smem", "l2"]
    smem, l2 = chip.levels
    assert (smem.role, smem.scope, smem.bandwidth, smem.capacity.value) == ("staging", "per SM", None, 228e3)
    assert (l2.role, l2.kind, l2.bandwidth.value, l2.bandwidth.source) == ("cache", "microbenchmark", 5.5e12, "mine")


def test_a_chip_without_levels_has_none():
    assert parse(BASE).levels == ()


@pytest.mark.parametrize("old, new, key, problem", [
    ("[levels.l2]", "[levels.l3]", "levels.l3", "unknown level"),
    ('kind = "microbenchmark"', 'kind = "guess"', "levels.l2.kind", "must be one of vendor, microbenchmark"),
    ('name = "L2 cache"\n', "", "levels.l2.name", "is missing"),
    ('source = "mine" }\nbandwidth', 'source = "nope" }\nbandwidth', "levels.l2.capacity.source", "not a key of [sources]"),
    ("value = 5.5e12", "value = -1", "levels.l2.bandwidth.value", "greater than zero"),
    ('kind = "microbenchmark"', 'kind = "vendor"\nspeed = 3', "levels.l2.speed", "unknown key"),
])
def test_a_bad_level_is_one_error_naming_file_and_key(old, new, key, problem):
    text = BASE + L2.replace(old, new, 1)
    with pytest.raises(SpecError) as e:
        parse(text)
    assert e.value.path == "lab.toml" and e.value.key == key
    assert problem in e.value.problem


def test_a_level_with_neither_figure_is_refused():
    text = BASE + '\n[levels.l2]\nname = "L2"\nkind = "vendor"\n'
    with pytest.raises(SpecError, match=r"lab.toml: levels.l2: needs a bandwidth or a capacity"):
        parse(text)


def test_levels_round_trip_through_toml():
    chip = parse(BASE + L2 + SMEM)
    assert parse(chip_to_toml(chip)).levels == chip.levels


@pytest.mark.parametrize("cid, want", [
    ("h100-sxm", {"smem", "l2"}), ("h200", {"smem", "l2"}), ("b200", {"smem", "l2"}),
    ("a100-40gb", {"smem", "l2"}), ("a100-80gb", {"smem", "l2"}),
    ("mi300x", {"lds", "l2", "mall"}), ("mi325x", {"lds", "l2", "mall"}), ("tpu-v5e", {"vmem"}),
    ("tpu-v4", {"vmem", "cmem"}),
])
def test_shipped_chips_carry_their_levels_each_figure_cited_with_a_url(cid, want):
    chip = Catalog.load(user_dir=False).get(cid)
    assert {lv.id for lv in chip.levels} == want
    for lv in chip.levels:
        for f in (lv.bandwidth, lv.capacity):
            if f is not None:
                assert re.search(r"https?://", chip.sources[f.source]), (cid, lv.id)


def test_shipped_level_figures_are_the_published_ones():
    cat = Catalog.load(user_dir=False)
    h100 = {lv.id: lv for lv in cat.get("h100-sxm").levels}
    assert h100["l2"].bandwidth.value == 5.5e12 and h100["l2"].kind == "microbenchmark"
    assert h100["smem"].bandwidth is None  # no public aggregate figure: absent, not guessed
    mi = {lv.id: lv for lv in cat.get("mi300x").levels}
    assert (mi["mall"].bandwidth.value, mi["mall"].capacity.value) == (17.2e12, 256 * 2**20)
    assert mi["l2"].bandwidth.value == 34.4e12 and mi["lds"].capacity.value == 64 * 1024
    v5e = cat.get("tpu-v5e").levels[0]
    assert (v5e.bandwidth.value, v5e.capacity.value) == (1.8e13, 128 * 2**20)
