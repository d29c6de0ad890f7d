"""The bundled example scenarios (File ▸ Examples)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from roofgui.model.errors import ModelError, ScenarioError
from roofgui.model.paths import UnreadableFile, read_regular_file, shipped_path
from roofgui.model.scenario import MAX_SCENARIO_BYTES, Scenario

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Example:
    name: str       # file name
    title: str      # the question it answers
    text: str       # the JSON


def example_files() -> list:
    """The example files, from beside the modules, the installed package or the checkout."""
    here = shipped_path("resources", "examples")
    if here is not None and here.is_dir():
        files = [e for e in here.iterdir() if e.name.endswith(".json")]
        if files:
            return files
    try:
        root = resources.files("roofgui") / "resources" / "examples"
        if root.is_dir():
            files = [e for e in root.iterdir() if e.name.endswith(".json")]
            if files:
                return files
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError, OSError):
        pass
    checkout = Path(__file__).resolve().parents[2] / "resources" / "examples"
    return list(checkout.glob("*.json")) if checkout.is_dir() else []


def why_unreadable(e: Exception) -> str:
    """What is wrong with an example, in a few words."""
    if isinstance(e, UnicodeDecodeError):
        return "not a text file (not valid UTF-8)"
    if isinstance(e, UnreadableFile):  # (its text starts with the path)
        return "cannot read: " + str(e).split(": ", 1)[-1]
    if isinstance(e, OSError):
        return f"cannot read: {e.strerror or e}"
    if isinstance(e, ScenarioError):  # (its text starts with the file name again)
        return f"{e.key}: {e.problem}" if e.key else e.problem
    return str(e)


def examples(problems: list[str] | None = None) -> list[Example]:
    """The bundled example scenarios, sorted by file name.

    An example that cannot be read or is not a valid scenario is left out; it is
    logged, and described in ``problems`` (one line each) when a list is given, so
    that the window can say so rather than drop it silently.
    """
    out = []
    for f in sorted(example_files(), key=lambda e: e.name):
        try:
            # (a path: only a regular file, never a FIFO or a link to /dev/zero)
            raw = read_regular_file(f, MAX_SCENARIO_BYTES) if isinstance(f, Path) else f.read_bytes()
            text = raw.decode("utf-8")
            title = Scenario.from_json(text, f.name).title or f.name
        except (ModelError, OSError, UnicodeDecodeError) as e:
            message = f"Example {f.name} skipped: {why_unreadable(e)}"
            log.warning("%s", message)
            if problems is not None:
                problems.append(message)
            continue
        out.append(Example(f.name, title, text))
    return out
