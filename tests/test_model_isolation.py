"""roofgui.model never imports Qt (an import-linter style contract, as napari keeps for its core).

(a) statically: no file under roofgui/model/ imports PySide6, shiboken6, pyqtgraph, roofgui.gui
    or roofgui.export, at any level (top of file, inside functions, relative imports, importlib);
(b) at run time: importing every model module and the command line, and running ``chips`` and
    ``analyze``, leaves no Qt module in sys.modules.
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "roofgui" / "model"
FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "roofgui.gui", "roofgui.export",
             "roofgui.app")
MODEL_FILES = sorted(MODEL.rglob("*.py"))


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def imported_names(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, relative imports resolved against roofgui.model."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ["roofgui"] + list(path.relative_to(ROOT / "roofgui").parent.parts)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call):
            # importlib.import_module("...") / __import__("...") with a literal name
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if name in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                out.append((node.lineno, node.args[0].value))
    return out


def test_there_are_model_files():
    names = {p.stem for p in MODEL_FILES}
    assert {"ops", "roofline", "chips", "catalog", "scenario", "units"} <= names


@pytest.mark.parametrize("path", MODEL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_model_file_imports_no_qt(path):
    bad = [(line, name) for line, name in imported_names(path) if _forbidden(name)]
    assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_the_scanner_sees_every_kind_of_import(tmp_path):
    """The scan itself must catch what it is meant to catch."""
    d = tmp_path / "roofgui" / "model"
    d.mkdir(parents=True)
    f = d / "sneaky.py"
    f.write_text("import os\n"
                 "def f():\n    from PySide6 import QtCore\n"
                 "from ..gui import plots\n"
                 "import pyqtgraph as pg\n"
                 "import importlib\nimportlib.import_module('shiboken6')\n"
                 "from .. import export\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = sorted(name for _, name in imported_names(f) if _forbidden(name))
    finally:
        ROOT = saved
    assert found == ["PySide6", "PySide6.QtCore", "pyqtgraph", "roofgui.export", "roofgui.gui",
                     "roofgui.plotting.plots", "shiboken6"]


PROBE = r"""
import importlib, io, json, pkgutil, sys
import roofgui.model as model
names = sorted(m.name for m in pkgutil.walk_packages(model.__path__, "roofgui.model."))
for n in names:
    importlib.import_module(n)
import roofgui.cli as cli
out = io.StringIO()
rc1 = cli.main(["chips"], out)
rc2 = cli.main(["analyze", "--chip", "tpu-v5e", "--chip", "h100-sxm", "--op", "matmul",
                "--dims", "B=256,D=8k,F=8k", "--json"], out)
rc3 = cli.main(["analyze", "--chip", "tpu-v5e", "--op", "matmul", "--shard", "D=2", "--link", "ici",
                "--working"], out)
qt = sorted(m for m in sys.modules
            if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")
            or m.startswith(("roofgui.gui", "roofgui.export", "roofgui.app")))
print(json.dumps({"modules": names, "rc": [rc1, rc2, rc3], "qt": qt}))
"""


def test_importing_the_model_and_running_the_cli_loads_no_qt():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout.strip().splitlines()[-1])
    assert res["rc"] == [0, 0, 0]
    assert res["modules"] == sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                                    for p in MODEL_FILES if p != MODEL / "__init__.py")
    assert res["qt"] == []
