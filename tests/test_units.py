"""parse_quantity (what users type, parsed without eval) and the SI formatters."""

import builtins
import math

import pytest

from roofgui.model.errors import ModelError
from roofgui.model.units import MAX_VALUE, check_positive, format_number, format_si, format_time, parse_quantity

FORMS = [
    ("4096", 4096), ("4k", 4e3), ("4K", 4e3), ("8Ki", 8192), ("8ki", 8192), ("8KI", 8192), ("1.5M", 1.5e6),
    ("1.5m", 1.5e6), ("3G", 3e9), ("2T", 2e12), ("1P", 1e15), ("1Mi", 2**20), ("1Gi", 2**30), ("1Ti", 2**40),
    ("1e6", 1e6), ("1E6", 1e6), ("2.5e-1", 0.25), (".5k", 500), ("5.", 5), ("2**20", 2**20), ("2 ** 10", 1024),
    ("2^20", 2**20), ("1.5**2", 2.25), ("4_096", 4096), ("1,024", 1024), ("1,024,000", 1_024_000),
    ("  42  ", 42), ("+7", 7), ("16 k", 16e3), ("\t8\n", 8), ("1e15", 1e15),
]


@pytest.mark.parametrize("text, value", FORMS)
def test_parse_quantity_forms(text, value):
    assert parse_quantity(text, "B") == value


def test_numbers_pass_through():
    assert parse_quantity(4096) == 4096.0 and parse_quantity(0.25) == 0.25
    assert isinstance(parse_quantity(3), float)


ERRORS = [
    ("", r"empty"), ("   ", r"empty"), ("abc", r"not a number"), ("4 q", r"unknown suffix 'q'"),
    ("4kb", r"unknown suffix"), ("1e400", r"finite"), ("2**5000", r"too large"), ("10**300", r"too large"),
    ("nan", r"NaN"), ("NaN", r"NaN"), ("inf", r"finite"), ("Infinity", r"finite"), ("-inf", r"finite"),
    ("∞", r"finite"), ("-3", r"greater than zero"), ("−3", r"greater than zero"), ("0", r"greater than zero"),
    ("0.0", r"greater than zero"), ("0k", r"greater than zero"), ("0**2", r"greater than zero"),
    ("2e15", r"too large"), ("1,2", r"not a number"), ("1,0000", r"not a number"), ("١٢", r"not a number"),
    ("４０９６", r"not a number"), ("2**", r"not a number"), ("**2", r"not a number"), ("1e", r"not a number|suffix"),
    ("e5", r"not a number|suffix"), ("0x10", r"not a number|suffix"), ("--5", r"not a number"),
    ("__import__('os').system('true')", r"not a number|too long"), ("1+1", r"not a number"),
    ("2**-1", r"not a number"), ("7" * 65, r"too large"), ("1" + "0" * 5000, r"too large"), ("💥", r"not a number"), ("4\x00", r"not a number"),
    ("\u202e4096", r"not a number"),
]


@pytest.mark.parametrize("text, problem", ERRORS)
def test_parse_quantity_errors_name_the_field(text, problem):
    with pytest.raises(ModelError, match=problem) as e:
        parse_quantity(text, "batch size")
    assert e.value.field == "batch size"
    assert str(e.value).startswith("batch size: ")
    assert "\n" not in str(e.value) and len(str(e.value)) < 200


@pytest.mark.parametrize("value", [True, False, None, [1], {"a": 1}, b"4", 10**400, float("nan"), -1.0, 0])
def test_parse_quantity_rejects_non_numbers_and_bad_numbers(value):
    with pytest.raises(ModelError) as e:
        parse_quantity(value, "D")
    assert e.value.field == "D"


def test_integer_and_max_value():
    assert parse_quantity("1.5k", "n", integer=True) == 1500
    with pytest.raises(ModelError, match="whole number"):
        parse_quantity("1.5", "n", integer=True)
    assert parse_quantity("1e6", "x", max_value=1e6) == 1e6
    with pytest.raises(ModelError, match="too large"):
        parse_quantity("1.0001e6", "x", max_value=1e6)
    assert parse_quantity(str(int(MAX_VALUE))) == MAX_VALUE
    with pytest.raises(ModelError, match="too large"):
        check_positive(MAX_VALUE * 2, "x")


def test_parsing_never_evaluates(monkeypatch):
    def no(*a, **k):
        raise AssertionError("eval/exec called")

    monkeypatch.setattr(builtins, "eval", no)
    monkeypatch.setattr(builtins, "exec", no)
    assert parse_quantity("2**20") == 2**20 and parse_quantity("8Ki") == 8192
    with pytest.raises(ModelError):
        parse_quantity("__import__('os')")


@pytest.mark.parametrize("value, unit, text", [
    (1.97e14, "FLOP/s", "197 TFLOP/s"), (8.2e11, "B/s", "820 GB/s"), (3.35e12, "B/s", "3.35 TB/s"),
    (4.5e10, "B/s", "45 GB/s"), (16e9, "B", "16 GB"), (1, "", "1"), (0, "s", "0 s"), (0, "", "0"),
    (1e-6, "s", "1 µs"), (174.4e-6, "s", "174 µs"), (2.5e-9, "s", "2.5 ns"), (999.96, "", "1 k"),
    (-2e9, "B", "-2 GB"), (1.5e18, "FLOP", "1.5 EFLOP"), (12345, "", "12.3 k"),
])
def test_format_si(value, unit, text):
    assert format_si(value, unit) == text


def test_format_si_specials():
    assert format_si(float("nan")) == "—" and format_si(None) == "—"
    assert format_si(float("inf"), "s") == "∞" and format_si(float("-inf")) == "−∞"
    assert format_si(1.97e14, "FLOP/s", digits=4) == "197 TFLOP/s"
    assert format_si(1.2345e9, "B", digits=2) == "1.2 GB"
    import numpy as np
    assert format_si(np.float64(3e9), "B") == "3 GB"


def test_format_time_and_number():
    assert format_time(1.01e-3) == "1.01 ms" and format_time(2.5) == "2.5 s"
    assert format_time(5000) == "5e+03 s" and format_time(float("nan")) == "—"
    assert format_number(4096) == "4\u2009096" and format_number(1.5) == "1.5"
    assert format_number(2 / 3) == "0.6667" and format_number(float("inf")) == "∞"
    assert format_number(None) == "—" and format_number(1e20) == "1e+20"


def test_format_si_round_trips_through_parse_quantity():
    for v in (1, 4096, 1.97e14, 3.35e12, 8.2e11, 123456789):
        text = format_si(v, digits=15).replace(" ", "")
        assert math.isclose(parse_quantity(text), v, rel_tol=1e-12), text
