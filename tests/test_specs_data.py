"""The shipped chip catalog: every file loads, every number is cited, headline figures
match the cross-checked reference table (chip-specs.md §2)."""

import re
import tomllib
from pathlib import Path

import pytest

from roofgui.model.catalog import Catalog, builtin_spec_files
from roofgui.model.chip_file import load_chip_file
from roofgui.model.chips import LINK_NAMES
from roofgui.model.dtypes import PEAK_KEYS

SPECS = Path(__file__).resolve().parents[1] / "specs"
FILES = sorted(SPECS.glob("*.toml"))

REQUIRED = ["tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu7x", "h100-sxm", "h100-pcie", "h200", "b200",
            "gb200", "a100-80gb", "l40s", "mi300x", "mi325x", "mi355x", "gaudi3", "trainium2"]

GiB = 2**30


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


def raw(path: Path) -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def figures(data: dict):
    """Every figure table in a parsed chip file, with its key path."""
    for table in ("matrix", "vector"):
        for k, v in data.get(table, {}).items():
            yield f"{table}.{k}", v
    for k, v in data["memory"].items():
        yield f"memory.{k}", v
    for name, link in data.get("links", {}).items():
        yield f"links.{name}.bandwidth", link["bandwidth"]
    if "achievable" in data:
        yield "achievable.fraction", data["achievable"]["fraction"]


def test_there_are_shipped_files():
    assert len(FILES) >= len(REQUIRED)
    assert sorted(n for n, _ in builtin_spec_files()) == sorted(p.name for p in FILES)


def test_every_shipped_file_loads_with_no_errors(catalog):
    assert catalog.errors == []
    assert sorted(catalog.chips) == sorted(p.stem for p in FILES)
    for p in FILES:
        chip = load_chip_file(p)
        assert chip.id == p.stem
        assert catalog.get(chip.id).builtin


@pytest.mark.parametrize("cid", REQUIRED)
def test_required_chip_exists(catalog, cid):
    chip = catalog.get(cid)
    assert chip.id == cid and chip.name and chip.vendor
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cid)
    assert "bf16" in chip.matrix or "fp16" in chip.matrix
    assert chip.hbm_bandwidth.value > 0 and chip.hbm_capacity.value > 0
    assert chip.links, f"{cid} has no link"
    assert set(chip.links) <= set(LINK_NAMES)


def _is_citation(text: str) -> bool:
    """A URL, or a document named by repository@commit or a document number."""
    return bool(re.search(r"https?://\S+\.\S+", text)
                or re.search(r"\b[\w.-]+/[\w.-]+@[0-9a-f]{7,40}\b", text)
                or re.search(r"\b[A-Z]{2,}-\d{3,}(-\d+)*\b", text))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_figure_has_a_source_that_resolves_to_a_citation(path):
    data = raw(path)
    sources = data["sources"]
    n = 0
    for key, fig in figures(data):
        n += 1
        src = fig.get("source", "")
        assert isinstance(src, str) and src.strip(), f"{path.name}: {key} has no source"
        assert src in sources, f"{path.name}: {key} cites {src!r}, not in [sources]"
        assert _is_citation(sources[src]), f"{path.name}: source {src!r} has no URL or document name"
        assert isinstance(fig["value"], (int, float)) and fig["value"] > 0
        if fig.get("sparsity_halved"):
            assert fig.get("note"), f"{path.name}: {key} halved from a headline the note does not name"
    assert n >= 4
    for key, text in sources.items():
        assert _is_citation(text), f"{path.name}: [sources].{key} is not a citation: {text!r}"


def test_source_keys_named_in_notes_are_defined_in_the_same_file():
    vocab = set()
    for p in FILES:
        vocab |= set(raw(p)["sources"])
    pattern = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, vocab), key=len, reverse=True))
                         + r")(?![\w-])")
    for p in FILES:
        data = raw(p)
        for key, fig in figures(data):
            for text in (fig.get("note", ""), fig.get("alternatives", "")):
                for name in pattern.findall(text):
                    assert name in data["sources"], f"{p.name}: {key} mentions {name!r}, not in [sources]"


def test_dtype_keys_and_link_names_are_known():
    for p in FILES:
        data = raw(p)
        assert set(data.get("matrix", {})) <= set(PEAK_KEYS)
        assert set(data.get("vector", {})) <= set(PEAK_KEYS)
        assert set(data.get("links", {})) <= set(LINK_NAMES)


# Headline figures from the reference table (chip-specs.md §2, dense peaks), for a handful of chips.
# (id, bf16 matrix, {other matrix dtype: value}, HBM bytes, HBM B/s, {link: one-way B/s}, critical intensity)
REFERENCE = [
    ("tpu-v5e", 197e12, {"int8": 394e12}, 16e9, 0.82e12, {"ici": 45e9}, 240),
    ("tpu-v4", 275e12, {"int8": 275e12}, 32 * GiB, 1.2e12, {"ici": 45e9}, 229),
    ("tpu-v6e", 918e12, {"int8": 1836e12}, 32e9, 1.6e12, {"ici": 90e9}, 574),
    ("tpu7x", 2307e12, {"fp8": 4614e12}, 192 * GiB, 7.4e12, {"ici": 90e9}, 312),
    ("h100-sxm", 989.4e12, {"fp8": 1978.9e12, "int8": 1978.9e12}, 80e9, 3.35e12, {"nvlink": 450e9}, 295),
    ("h200", 989.4e12, {"fp8": 1978.9e12}, 141e9, 4.8e12, {"nvlink": 450e9}, 206),
    ("b200", 2250e12, {"fp8": 4500e12, "fp4": 9000e12}, 180e9, 8.0e12, {"nvlink": 900e9}, 281),
    ("a100-80gb", 312e12, {"int8": 624e12, "int4": 1248e12}, 80e9, 2.039e12, {"nvlink": 300e9}, 153),
    ("l40s", 362.05e12, {"fp8": 733e12}, 48e9, 0.864e12, {}, 419),
    ("mi300x", 1307.4e12, {"fp8": 2614.9e12}, 192e9, 5.3e12, {"xgmi": 448e9}, 247),
    ("mi355x", 2500e12, {"fp8": 5000e12}, 288 * GiB, 8.0e12, {"xgmi": 535.5e9}, 312),
    ("gaudi3", 1835e12, {"fp8": 1835e12}, 128e9, 3.67e12, {"ethernet": 600e9}, 500),
    ("trainium2", 667e12, {"fp8": 1299e12}, 96 * GiB, 2.9e12, {"neuronlink": 640e9}, 230),
]


@pytest.mark.parametrize("cid, bf16, others, cap, bw, links, crit", REFERENCE, ids=[r[0] for r in REFERENCE])
def test_headline_figures_match_the_reference_table(catalog, cid, bf16, others, cap, bw, links, crit):
    chip = catalog.get(cid)
    assert chip.matrix["bf16"].value == pytest.approx(bf16, rel=1e-9)
    for k, v in others.items():
        assert chip.matrix[k].value == pytest.approx(v, rel=1e-9), k
    assert chip.hbm_capacity.value == pytest.approx(cap, rel=1e-9)
    assert chip.hbm_bandwidth.value == pytest.approx(bw, rel=1e-9)
    for k, v in links.items():
        assert chip.links[k].bandwidth.value == pytest.approx(v, rel=1e-9), k
    assert chip.critical_intensity == pytest.approx(crit, abs=1)


def test_reference_two_chip_link_and_ridges(catalog):
    # The chapter's two-chip example runs over 4.5e10 B/s each way from the v5e preset.
    assert catalog.get("tpu-v5e").links["ici"].bandwidth.value == 4.5e10
    assert catalog.get("tpu-v5e").critical_intensity == pytest.approx(240.24, abs=0.01)
    assert catalog.get("h100-sxm").critical_intensity == pytest.approx(295.3, abs=0.1)
    h100 = raw(SPECS / "h100-sxm.toml")["matrix"]["bf16"]
    assert h100["sparsity_halved"] is True and "1,979" in h100["note"]


def test_achievable_fractions_are_fractions(catalog):
    for chip in catalog:
        if chip.achievable is not None:
            assert 0 < chip.achievable.value <= 1
    for cid in ("tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu7x"):
        assert catalog.get(cid).achievable.value == pytest.approx(0.95)


def _readme_table():
    text = (SPECS / "README.md").read_text(encoding="utf-8")
    section = text.split("## Shipped chips", 1)[1]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\|\s*`([a-z0-9-]+)`\s*\|(.*)\|\s*$", line)
        if m:
            cells = [c.strip() for c in m.group(2).split("|")]
            rows[m.group(1)] = cells
    return rows


def test_readme_table_lists_every_shipped_chip_with_its_figures(catalog):
    rows = _readme_table()
    assert sorted(rows) == sorted(catalog.chips)
    for cid, cells in rows.items():
        chip = catalog.get(cid)
        # columns: chip, bf16 peak (TFLOP/s), memory, memory bandwidth (TB/s), critical intensity
        peak = re.search(r"[\d.]+", cells[1].split("fp16:")[-1]).group(0)
        assert chip.peak("bf16").value == pytest.approx(float(peak) * 1e12, rel=1e-9), cid
        assert chip.hbm_bandwidth.value == pytest.approx(float(cells[3]) * 1e12, rel=1e-9), cid
        assert chip.critical_intensity == pytest.approx(float(cells[4]), abs=1), cid
