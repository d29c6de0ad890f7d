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
from roofgui.model.roofline import analyze

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
    ("b200", 2250e12, {"fp8": 4500e12, "fp4": 9000e12}, 180e9, 7.7e12, {"nvlink": 900e9}, 292),
    ("gb200", 2500e12, {"fp8": 5000e12, "fp4": 10000e12}, 186e9, 8.0e12, {"nvlink": 900e9}, 312),
    ("a100-80gb", 312e12, {"int8": 624e12, "int4": 1248e12}, 80e9, 2.039e12, {"nvlink": 300e9}, 153),
    ("l40s", 362.05e12, {"fp8": 733e12, "int8": 733e12, "int4": 1466e12}, 48e9, 0.864e12, {}, 419),
    ("mi250x", 383e12, {"fp32": 95.7e12, "int8": 383e12, "int4": 383e12}, 128 * GiB, 3.2768e12, {"xgmi": 350e9}, 117),
    ("mi300x", 1307.4e12, {"fp8": 2614.9e12}, 192 * GiB, 5.3e12, {"xgmi": 448e9}, 247),
    ("mi355x", 2500e12, {"fp8": 5000e12}, 288 * GiB, 8.0e12, {"xgmi": 537.6e9}, 312),
    ("gaudi3", 1835e12, {"fp8": 1835e12}, 128e9, 3.67e12, {"ethernet": 525e9, "dcn": 75e9}, 500),
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


# Figures corrected for issue #23, each pinned to its exact value and to the source that states it.
# (chip, key path, exact value, source key, text the source's citation must contain)
CORRECTED = [
    ("b200", "memory.bandwidth", 7.7e12, "NV-BW-DS", "7.7TB/s"),
    ("b200", "vector.fp32", 75e12, "NV-BW-DS", "FP32 75 TFLOPS"),
    ("gb200", "memory.bandwidth", 8.0e12, "MLE", "stas00/ml-engineering@744d01e"),
    ("gb200", "vector.fp32", 80e12, "MLE", "stas00/ml-engineering@744d01e"),
    ("gb200", "memory.capacity", 186e9, "MLE", "stas00/ml-engineering@744d01e"),
    ("mi355x", "links.xgmi.bandwidth", 537.6e9, "AMD-355X", "153.6 GB/s"),
    ("l40s", "matrix.int4", 1466e12, "L40S-DS", "https://"),
    ("mi250x", "matrix.fp32", 95.7e12, "AMD-250X", "95.7 TFLOPs"),
    ("mi250x", "matrix.int4", 383e12, "AMD-250X", "Peak INT4 Performance 383 TOPs"),
    ("gaudi3", "links.ethernet.bandwidth", 525e9, "MLE-net", "stas00/ml-engineering@744d01e"),
    ("gaudi3", "links.dcn.bandwidth", 75e9, "MLE-net", "stas00/ml-engineering@744d01e"),
    ("tpu-v5e", "vector.fp32", 6.144e12, "SB-tpu", "https://jax-ml.github.io/scaling-book/tpus/"),
    ("trainium2", "vector.fp32", 8.0e12, "AWS-NKI2", "1.0 TFLOPS of FP32"),
]


def _figure_at(data: dict, path: str) -> dict:
    node = data
    for part in path.split("."):
        node = node[part]
    return node


@pytest.mark.parametrize("cid, path, value, source, cited", CORRECTED, ids=[f"{c[0]}:{c[1]}" for c in CORRECTED])
def test_corrected_figure_is_exact_and_cites_its_source(cid, path, value, source, cited):
    data = raw(SPECS / f"{cid}.toml")
    fig = _figure_at(data, path)
    assert fig["value"] == value
    assert fig["source"] == source
    assert cited in data["sources"][source]
    assert re.search(r"https?://\S+\.\S+", data["sources"][source])


def test_corrected_figures_follow_from_their_stated_arithmetic(catalog):
    assert 7 * 153.6e9 / 2 == pytest.approx(catalog.get("mi355x").links["xgmi"].bandwidth.value, rel=1e-15)
    gaudi = catalog.get("gaudi3")
    assert gaudi.links["ethernet"].bandwidth.value == 21 * 200e9 / 8  # 21 ports to the peers
    assert gaudi.links["dcn"].bandwidth.value == 3 * 200e9 / 8        # the other 3 ports
    l40s = catalog.get("l40s")
    assert l40s.matrix["int4"].value == 2 * l40s.matrix["int8"].value
    mi250x = catalog.get("mi250x")
    assert mi250x.matrix["int4"].value == mi250x.matrix["int8"].value  # AMD lists both at 383 TOPs
    assert mi250x.matrix["fp32"].value == pytest.approx(2 * mi250x.vector["fp32"].value, rel=2e-3)  # 47.9 is rounded
    assert catalog.get("tpu-v5e").vector["fp32"].value == 8 * 128 * 4 * 1.5e9
    assert catalog.get("trainium2").vector["fp32"].value == 8 * 1.0e12  # 8 NeuronCore-v3 Vector Engines
    assert catalog.get("b200").critical_intensity == pytest.approx(2250e12 / 7.7e12)  # 292


def test_gb200_keeps_its_own_figures_apart_from_b200(catalog):
    b200, gb200 = catalog.get("b200"), catalog.get("gb200")
    assert (b200.hbm_bandwidth.value, gb200.hbm_bandwidth.value) == (7.7e12, 8.0e12)
    assert (b200.vector["fp32"].value, gb200.vector["fp32"].value) == (75e12, 80e12)
    assert (b200.hbm_capacity.value, gb200.hbm_capacity.value) == (180e9, 186e9)
    assert (b200.matrix["bf16"].value, gb200.matrix["bf16"].value) == (2250e12, 2500e12)


def test_gaudi3_lists_only_the_matrix_peaks_intel_publishes(catalog):
    gaudi = catalog.get("gaudi3")
    assert set(gaudi.matrix) == {"bf16", "fp8"}
    note = raw(SPECS / "gaudi3.toml")["matrix"]["bf16"]["note"]
    assert all(t in note for t in ("fp32 229e12", "tf32 459e12", "fp16 459e12"))  # MLE's, kept as text


def test_mi250x_fp32_matmul_runs_on_the_matrix_cores(catalog):
    a = analyze("matmul", {"B": 4096, "D": 4096, "F": 4096}, catalog.get("mi250x"), dtypes={"compute": "fp32"})
    assert float(a.result.peak_flops) == 95.7e12 and a.figures.peak_info.key == "fp32"
    assert a.result.bound == "compute"


def test_dot_product_on_v5e_is_judged_against_its_vpu(catalog):
    a = analyze("dot", {"N": 1 << 20}, catalog.get("tpu-v5e"))
    assert a.figures.peak_info.unit == "vector" and float(a.result.peak_flops) == 6.144e12
    assert a.result.bound == "memory"


def test_amd_capacities_are_gib_as_amds_own_spec_table_states_with_the_product_pages_gb_beside(catalog):
    # AMD's ROCm GPU table gives VRAM in GiB (HBM stacks are powers of two); its product pages
    # say "GB". The app uses the GiB figure and keeps the GB one as an alternative.
    for cid, gib in (("mi250x", 128), ("mi300x", 192), ("mi325x", 256), ("mi355x", 288)):
        cap = catalog.get(cid).hbm_capacity
        assert cap.value == gib * GiB and cap.source == "ROCm-specs", cid
        assert f"{gib}e9" in cap.alternatives, cid


def test_capacities_are_shown_in_the_unit_the_vendor_states():
    from roofgui.model.units import format_capacity

    assert format_capacity(32 * GiB) == "32 GiB"     # TPU v4 (Google states GiB), not "34.4 GB"
    assert format_capacity(256 * GiB) == "256 GiB"   # MI325X, not "275 GB"
    assert format_capacity(80e9) == "80 GB"          # H100 (NVIDIA states GB)
    assert format_capacity(141e9) == "141 GB"
