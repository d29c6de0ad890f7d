"""The shape of the code: layers one way down, no cycles, no private names taken from
another module, files and functions of a size a reader can hold.

The layers are declared in ``pyproject.toml`` (``[tool.importlinter]``) and checked here
with import-linter, so ``make test`` fails when a lower layer reaches up.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "roofgui"
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60


@functools.cache
def _modules() -> list[tuple[str, Path, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((".".join(parts), path, ast.parse(path.read_text(encoding="utf-8"))))
    return out


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def test_layer_contracts_hold():
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "broken" in run.stdout and " 0 broken" in run.stdout


def test_no_import_cycles():
    graph: dict[str, set[str]] = {}
    mods = _modules()
    names = {m for m, _, _ in mods}
    for mod, path, tree in mods:
        deps = graph.setdefault(mod, set())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _absolute(mod, path, node)
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    deps.add(full if full in names else target)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        deps &= names
        deps.discard(mod)
    # a package's __init__ importing its own submodules is not a cycle of layers
    cycles = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_no_private_names_taken_from_another_module():
    taken = []
    for mod, path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _absolute(mod, path, node)
                if not target.startswith("roofgui"):
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        taken.append(f"{mod}: {alias.name} from {target}")
    assert not taken, "\n".join(taken)


@functools.cache
def _sizes():
    files, functions = {}, {}
    for mod, path, tree in _modules():
        rel = str(path.relative_to(ROOT))
        files[rel] = len(path.read_text(encoding="utf-8").splitlines())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[f"{rel}:{node.name}:{node.lineno}"] = node.end_lineno - node.lineno + 1
    return files, functions


def test_files_are_short():
    files, _ = _sizes()
    over = {f: n for f, n in files.items() if n > MAX_FILE_LINES}
    assert not over, over


def test_functions_are_short():
    _, functions = _sizes()
    over = {k: n for k, n in functions.items() if n > MAX_FUNCTION_LINES}
    assert not over, over


@pytest.mark.parametrize("layer", ["model", "presentation"])
def test_lower_layers_load_without_qt(layer):
    code = (f"import sys, pkgutil, importlib, roofgui.{layer} as p\n"
            "for m in pkgutil.iter_modules(p.__path__):\n"
            f"    importlib.import_module('roofgui.{layer}.' + m.name)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
            "assert not bad, bad\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
