"""Typed errors raised by the model before any arithmetic happens."""

from __future__ import annotations


class ModelError(ValueError):
    """An invalid input to the model.

    Parameters
    ----------
    message:
        A sentence a user can act on.
    field:
        The name of the field or key at fault, when there is one.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def __str__(self) -> str:  # pragma: no cover - trivial
        msg = super().__str__()
        return f"{self.field}: {msg}" if self.field else msg


class SpecError(ModelError):
    """A chip file that cannot be used: names the file, the key and the problem."""

    def __init__(self, path: str, key: str | None, problem: str) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        where = f"{path}: {key}" if key else path
        ModelError.__init__(self, f"{where}: {problem}")

    def __str__(self) -> str:
        return self.args[0]


class ScenarioError(ModelError):
    """A scenario file that cannot be used."""

    def __init__(self, path: str, key: str | None, problem: str) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        where = f"{path}: {key}" if key else path
        ModelError.__init__(self, f"{where}: {problem}")

    def __str__(self) -> str:
        return self.args[0]
