"""The caption stamped under a picture: ops with shapes and dtypes, chips with the
figures plotted, and their sources."""

from __future__ import annotations

from roofgui.presentation.caption import build_caption, op_summary, short_citation
from roofgui.model.catalog import Catalog
from roofgui.model.scenario import OpSpec
from roofgui.model.evaluate import evaluate_scenario
from test_export_support import sharded_scenario, two_chip_scenario


def test_op_summary_names_shapes_dtypes_and_sharding():
    assert op_summary(OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192},
                             {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"})) == \
        "matmul: B=256, D=8192, F=8192 · bf16"
    mixed = op_summary(OpSpec("q3", "matmul", {"B": 64, "D": 4096, "F": 4096},
                              {"x": "bf16", "w": "int8", "out": "bf16", "compute": "bf16"}))
    assert "q3 (matmul): B=64, D=4096, F=4096" in mixed and "weights int8" in mixed
    sharded = op_summary(sharded_scenario().ops[1])
    assert "D sharded over 2 chips (ici)" in sharded


def test_short_citation_drops_commit_details_and_schemes():
    text = ("J. Austin et al., How to Scale Your Model, 'All About Rooflines' (jax-ml/scaling-book "
            "roofline.md @0296c23; fork @37acb5e (2026)) — https://jax-ml.github.io/scaling-book/roofline/")
    assert short_citation(text) == ("J. Austin et al., How to Scale Your Model, 'All About Rooflines'"
                                    " — jax-ml.github.io/scaling-book/roofline/")
    assert short_citation("A page — https://a.example/x , https://b.example/y") == \
        "A page — a.example/x, b.example/y"
    assert short_citation("Just a title") == "Just a title"


def test_caption_cites_the_source_of_every_figure_plotted():
    cat = Catalog.load()
    sc = sharded_scenario()
    cap = build_caption(sc, evaluate_scenario(sc, cat))
    chip = cat.get("tpu-v5e")
    # the peak, HBM and ICI figures plotted, each with a numbered source that exists
    assert "197 TFLOP/s bf16 [" in cap.chips and "HBM 820 GB/s [" in cap.chips
    assert "ici 45 GB/s [" in cap.chips
    for key in (chip.matrix["bf16"].source, chip.hbm_bandwidth.source,
                chip.links["ici"].bandwidth.source):
        assert short_citation(chip.sources[key]) in cap.sources
    assert cap.paragraphs()[:2] == [op_summary(op) for op in sc.ops]


def test_caption_mentions_what_ifs():
    cat = Catalog.load()
    sc = two_chip_scenario()
    sc.what_if.peak = 2.0
    cap = build_caption(sc, evaluate_scenario(sc, cat))
    assert "what-if peak ×2" in cap.chips
    assert "394 TFLOP/s" in cap.chips  # the doubled TPU v5e peak that is plotted


def test_caption_cites_each_chips_own_link_when_sharded_over_scale_up():
    from roofgui.model.scenario import Scenario, ShardSpec

    cat = Catalog.load()
    sc = Scenario(title="scale-up", chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("mm", "matmul", {"B": 4096, "D": 8192, "F": 8192}, {},
                              ShardSpec("D", 2, "scale-up"))])
    cap = build_caption(sc, evaluate_scenario(sc, cat))
    assert "D sharded over 2 chips (each chip's scale-up link)" in cap.paragraphs()[0]
    assert "ici 45 GB/s [" in cap.chips and "nvlink " in cap.chips
    for cid, name in (("tpu-v5e", "ici"), ("h100-sxm", "nvlink")):
        chip = cat.get(cid)
        assert short_citation(chip.sources[chip.links[name].bandwidth.source]) in cap.sources
    assert "scale-up 4" not in cap.chips
