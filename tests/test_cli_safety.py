"""The command line never lets user text drive the terminal, never ignores an empty flag,
and turns every file or output problem into one line with a non-zero status."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roofgui import cli
from roofgui.model.scenario import OpSpec, Scenario, save_scenario
from roofgui.model.units import parse_quantity
from roofgui.model.errors import ModelError
from roofgui.presentation.safe_text import escape_controls, escape_json_controls

ROOT = Path(__file__).resolve().parents[1]
EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m"


def run(capsys, *argv):
    rc = cli.main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _raw_controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


def _evil_scenario(tmp_path) -> Path:
    p = tmp_path / "evil.json"
    save_scenario(Scenario(ops=[OpSpec(EVIL, "matmul", {"B": 8, "D": 8, "F": 8})],
                           chips=["h100-sxm"], title=EVIL), p)
    return p


def test_escape_controls_shows_every_control_but_newline_and_tab():
    assert escape_controls("a\x1b[2Jb\x07\x9b\x7f\n\tc") == "a\\x1b[2Jb\\x07\\x9b\\x7f\n\tc"
    assert json.loads(escape_json_controls(json.dumps("\x9b\x7f", ensure_ascii=False))) == "\x9b\x7f"


def test_an_op_name_with_terminal_escapes_is_printed_escaped(capsys, tmp_path):
    rc, out, err = run(capsys, "analyze", str(_evil_scenario(tmp_path)))
    assert rc == 0, err
    assert _raw_controls(out) == [] and _raw_controls(err) == []
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in out


def test_json_output_stays_json_with_no_raw_controls(capsys, tmp_path):
    rc, out, err = run(capsys, "analyze", str(_evil_scenario(tmp_path)), "--json")
    assert rc == 0, err
    assert _raw_controls(out) == []
    assert json.loads(out)[0]["op"] == EVIL


def test_error_messages_naming_user_text_are_escaped(capsys, tmp_path):
    bad = tmp_path / f"x{EVIL}.json"
    bad.write_text("{", encoding="utf-8")
    rc, out, err = run(capsys, "analyze", str(bad))
    assert rc == 2 and len(err.splitlines()) == 1
    assert _raw_controls(err) == [] and "\\x1b" in err


def test_a_user_chip_name_with_escapes_is_listed_escaped(capsys):
    d = Path(os.environ["ROOFGUI_HOME"]) / "chips"
    d.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "specs" / "l4.toml").read_text().replace('id = "l4"', 'id = "evil"')
    text = text.replace('name = "', 'name = "\\u001b[2J', 1)
    (d / "evil.toml").write_text(text)
    for argv in (["chips"], ["show-chip", "evil"]):
        rc, out, err = run(capsys, *argv)
        assert rc == 0, err
        assert _raw_controls(out) == [] and "\\x1b[2J" in out


def test_measured_file_and_kernel_names_are_escaped(capsys, tmp_path):
    f = tmp_path / f"m{EVIL}.csv"
    f.write_text(f"name,seconds,flops,bytes\n{EVIL},1e-3,1e9,1e6\n")
    rc, out, err = run(capsys, "measured", str(f), "--chip", "h100-sxm")
    assert rc == 0, err
    assert _raw_controls(out) == [] and out.count("\\x1b]0;pwned") == 2


@pytest.mark.parametrize("flag", ["--dtype", "--x-dtype", "--w-dtype", "--out-dtype", "--compute-dtype"])
def test_an_empty_dtype_flag_is_an_error(capsys, flag):
    rc, out, err = run(capsys, "analyze", "--op", "matmul", "--dims", "B=8,D=8,F=8",
                       "--chip", "h100-sxm", flag, "")
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert flag in err and "empty" in err


def test_a_five_thousand_digit_dimension_is_too_large(capsys, tmp_path):
    digits = "1" + "0" * 5000
    rc, out, err = run(capsys, "analyze", "--op", "matmul", "--dims", f"B={digits},D=8,F=8",
                       "--chip", "h100-sxm")
    assert rc == 2 and len(err.splitlines()) == 1 and "--dims B: is too large" in err
    with pytest.raises(ModelError, match="too large"):
        parse_quantity(10 ** 5000, "B")
    p = tmp_path / "big.json"
    p.write_text(json.dumps({"ops": [{"name": "m", "kind": "matmul", "dims": {"B": 1, "D": 8, "F": 8}}],
                             "chips": ["h100-sxm"]}).replace('"B": 1', f'"B": {digits}'))
    rc, out, err = run(capsys, "analyze", str(p))
    assert rc == 2 and len(err.splitlines()) == 1 and "big.json" in err and "too large" in err


def test_a_chip_file_with_a_five_thousand_digit_number(capsys, tmp_path):
    p = tmp_path / "big.toml"
    p.write_text(f'id = "big"\nname = "Big"\nhbm_bandwidth = 1{"0" * 5000}\n')
    rc, out, err = run(capsys, "analyze", "--op", "matmul", "--dims", "B=8,D=8,F=8", "--chip", str(p))
    assert rc == 2 and len(err.splitlines()) == 1 and "big.toml" in err and "internal" not in err


@pytest.mark.parametrize("where", ["scenario", "chip"])
def test_a_file_name_too_long_is_one_line_naming_it(capsys, tmp_path, where):
    name = str(tmp_path / ("a" * 300))
    argv = ([name + ".json"] if where == "scenario" else
            ["--op", "matmul", "--dims", "B=8,D=8,F=8", "--chip", name + ".toml"])
    rc, out, err = run(capsys, "analyze", *argv)
    assert rc == 2 and len(err.splitlines()) == 1
    assert "a" * 60 in err and "too long" in err and "internal" not in err  # (named, cut short)


class _Full(io.StringIO):
    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_output_on_a_full_disk_is_one_line(capsys):
    rc = cli.main(["chips"], out=_Full())
    err = capsys.readouterr().err
    assert rc == 1 and err.strip() == "roofgui: error: cannot write the output: No space left on device"


def _env():
    env = dict(os.environ)
    env.pop("ROOFGUI_DEBUG", None)
    return env


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["chips"], ["analyze", "--list-models"]])
def test_subprocess_output_onto_dev_full(argv):
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "main.py", *argv], cwd=ROOT, stdout=full,
                           stderr=subprocess.PIPE, text=True, env=_env(), timeout=120)
    assert p.returncode in (1, 2)
    assert p.stderr == "roofgui: error: cannot write the output: No space left on device\n"


def test_subprocess_broken_pipe_is_quiet():
    p = subprocess.Popen([sys.executable, "main.py", "chips"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env())
    p.stdout.close()  # the reader leaves at once
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait(timeout=120) == 0 and err == ""


def test_a_lone_surrogate_in_an_op_name_prints_escaped(capsys, tmp_path):
    p = tmp_path / "sur.json"
    save_scenario(Scenario(ops=[OpSpec("op \ud800", "matmul", {"B": 8, "D": 8, "F": 8})],
                           chips=["h100-sxm"]), p)
    rc, out, err = run(capsys, "analyze", str(p))
    assert rc == 0 and "internal" not in err
    assert "op \\ud800 on" in out
    rc, out, err = run(capsys, "analyze", str(p), "--json")
    assert rc == 0, err
    out.encode("utf-8")  # (no lone surrogate reaches the terminal)
    assert json.loads(out)[0]["op"] == "op \ud800"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_error_with_stderr_on_a_full_disk_keeps_its_status():
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "main.py", "analyze", "--op", "bogus"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=full, env=_env(), timeout=120)
    assert p.returncode == 2
