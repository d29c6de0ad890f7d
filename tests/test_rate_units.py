"""Rates of requests and tokens never read as "mreq/s" (or any milli/micro prefix)."""

import math
import re

import pytest

from roofgui import cli
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec, save_scenario
from roofgui.model.units import format_rate
from roofgui.presentation.ticks import tick_label, tick_label_exact

MILLI_RATE = re.compile(r"\d\s*[mµun](?:tok|req)/s")


@pytest.mark.parametrize("value, text", [
    (12345.0, "12.3 ktok/s"), (2.5, "2.5 tok/s"), (1.0, "1 tok/s"), (0.9996, "1 tok/s"),
    (0.5, "0.5 tok/s"), (0.0104, "0.0104 tok/s"), (0.01, "0.01 tok/s"),
    (0.005, "1 tok per 3.33 min"), (0.05 / 60, "1 tok per 20 min"), (1 / 7200, "1 tok per 2 h"),
    (1 / (3 * 86400), "1 tok per 3 days"), (0.0, "0 tok/s"), (math.nan, "—"), (math.inf, "∞")])
def test_format_rate(value, text):
    assert format_rate(value, "tok/s") == text


def test_format_rate_of_requests_below_one_a_second():
    assert format_rate(0.05, "req/s") == "0.05 req/s"
    assert format_rate(0.002, "req/s") == "1 req per 8.33 min"


def test_rate_ticks_below_one_are_plain_decimals():
    assert [tick_label(math.log10(v), "rate") for v in (0.01, 0.5, 1, 1000, 2e6)] == [
        "0.01", "0.5", "1", "1 k", "2 M"]
    assert tick_label_exact(math.log10(0.0523), "rate") + "tok/s" == "0.0523 tok/s"
    assert tick_label_exact(math.log10(5230), "rate") + "tok/s" == "5.23 ktok/s"


def slow_llm() -> Scenario:
    """Llama-3 70B on 8 H100s, one request of a 32k prompt and 16k output tokens: about
    one request a minute and a half (the per-request rate is well under 1 req/s)."""
    op = OpSpec("long requests", "llm", {"B": 1, "p": 32768, "d": 16384},
                {"w": "bf16", "x": "bf16", "kv": "bf16", "compute": "bf16"},
                ShardSpec("tp", 8, "scale-up"), {"model": "llama-3-70b"})
    return Scenario(ops=[op], chips=["h100-sxm"])


def test_analyze_prints_slow_rates_without_milli_prefixes(capsys, tmp_path):
    path = tmp_path / "slow.json"
    save_scenario(slow_llm(), path)
    assert cli.main(["analyze", str(path), "--working"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Per-request +0\.0\d+ req/s … 0\.0\d+ req/s", out)
    assert "Per-request = Throughput_total / (p+d) = 0.0" in out
    assert not MILLI_RATE.search(out)


def test_pareto_best_line_has_no_milli_rates(capsys):
    assert cli.main(["pareto", "--model", "llama-3-70b", "--chip", "h100-sxm", "--chips-count", "8", "--link", "nvlink",
                     "--prefill", "32k", "--decode", "16k"]) == 0
    assert not MILLI_RATE.search(capsys.readouterr().out)
