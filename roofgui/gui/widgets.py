"""Small building blocks of the form: signal blocking, quantity fields, two-way bindings.

The binding pattern follows napari's ``qt_signals_blocked``: a widget writes
the scenario through the document when the *user* changes it, and is updated
from the scenario with its signals blocked, so the way back never echoes into
a second edit.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QLabel, QLineEdit, QSizePolicy, QVBoxLayout,
                               QWidget)

from roofgui.model.errors import ModelError
from roofgui.model.units import MAX_VALUE, parse_quantity


@contextmanager
def signals_blocked(*objects) -> Iterator[None]:
    """Block the signals of every object for the duration, restoring each previous state."""
    previous = [o.blockSignals(True) for o in objects]
    try:
        yield
    finally:
        for o, was in zip(objects, previous):
            o.blockSignals(was)


def format_value(value: float, integer: bool = False) -> str:
    """How a number is written back into a field: ``8192``, ``1e+12``, ``0.5``."""
    if not math.isfinite(value):
        return ""
    if float(value).is_integer() and abs(value) < 1e12:
        return str(int(value))
    return f"{value:.12g}"


ERROR_STYLE = "QLineEdit { border: 2px solid #d32f2f; border-radius: 3px; padding: 1px; }"


class QuantityEdit(QLineEdit):
    """A line edit for a positive quantity, typed as ``4096``, ``4k``, ``8Ki``, ``1e6`` or ``2**20``.

    Emits :attr:`valueEdited` with the parsed value on every user edit that
    parses; otherwise shows an inline message (red border and a line of text
    naming the field and the problem) in :attr:`message`, which the layout
    places beneath the field, and emits :attr:`invalid`.
    """

    valueEdited = Signal(float)
    invalid = Signal(str)
    validityChanged = Signal(bool)

    def __init__(self, label: str, tooltip: str = "", *, integer: bool = False,
                 max_value: float = MAX_VALUE, min_value: float = 0.0,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        self.integer = integer
        self.max_value = max_value
        self.min_value = min_value
        self._value: float | None = None
        self._error: str | None = None
        #: the value the field held when the edit under way began (None: no edit under way)
        self._edit_start: float | None = None
        #: an extra rule after parsing: ``check(value)`` returns a problem or None
        self.check: Callable[[float], str | None] | None = None
        self.setAccessibleName(label)
        hint = "Accepts 4096, 4k, 8Ki, 1e6 or 2**20."
        self.setToolTip(f"{tooltip} {hint}".strip() if tooltip else hint)
        self.setClearButtonEnabled(False)
        self.message = QLabel()
        self.message.setObjectName("fieldError")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #d32f2f;")
        self.message.setAccessibleName(f"{label} error")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.textEdited.connect(self._on_text_edited)
        self.editingFinished.connect(self._end_edit)

    # -- state ----------------------------------------------------------------
    def value(self) -> float | None:
        """The last valid value (what the model sees)."""
        return self._value

    def error(self) -> str | None:
        return self._error

    def parse(self, text: str) -> float:
        v = parse_quantity(text, self.label, integer=self.integer, max_value=self.max_value,
                           min_value=self.min_value)
        problem = self.check(v) if self.check is not None else None
        if problem:
            raise ModelError(problem, self.label)
        return v

    def set_value(self, value: float | None, force: bool = False) -> None:
        """Show a value from the scenario (no signals).

        An unfinished bad entry is left in place (with its message) while the
        scenario still holds the value it replaced, so an edit elsewhere does
        not wipe what the user is typing; ``force`` (a new op selected, undo)
        replaces it.
        """
        if not force and value == self._value and (self._error is not None or self.text()):
            return  # already shown (as typed), or an unfinished bad entry to leave alone
        self._value = value
        self._edit_start = None  # (the scenario changed under the edit: it starts afresh)
        text = "" if value is None else format_value(value, self.integer)
        current_ok = False
        if self._error is None and self.text():
            try:
                current_ok = self.parse(self.text()) == value
            except ModelError:
                current_ok = False
        if not current_ok:
            with signals_blocked(self):
                self.setText(text)
        self._set_error(None)

    # -- slots ----------------------------------------------------------------
    def _on_text_edited(self, text: str) -> None:
        """Each keystroke that parses is live; while the text does not parse, the scenario
        holds the value from before this edit began (not the last prefix that parsed)."""
        if self._edit_start is None:
            self._edit_start = self._value
        try:
            v = self.parse(text)
        except ModelError as e:
            msg = e.args[0]
            self._set_error(f"{self.label}: {msg}")
            self.invalid.emit(self._error or msg)
            v = self._edit_start
            if v is None:
                return
        else:
            self._set_error(None)
        if v != self._value:
            self._value = v
            self.valueEdited.emit(v)

    def _end_edit(self) -> None:
        """Return or focus out: the next keystroke begins a new edit (a bad entry stays
        shown with its message; the scenario already holds the value from before it)."""
        self._edit_start = None

    def focusInEvent(self, event) -> None:  # noqa: N802
        self._end_edit()  # (editingFinished is not sent when the text is as it last was)
        super().focusInEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802
        super().focusOutEvent(event)
        self._end_edit()

    def _set_error(self, msg: str | None) -> None:
        if msg == self._error:
            return
        was_valid = self._error is None
        self._error = msg
        if msg is None:
            self.setStyleSheet("")
            self.message.hide()
            self.message.clear()
            self.setAccessibleDescription("")
        else:
            if was_valid:  # a style sheet re-polishes the widget: only when it turns red
                self.setStyleSheet(ERROR_STYLE)
            self.message.setText(msg)
            self.message.show()
            self.setAccessibleDescription(msg)
        if was_valid != (msg is None):
            self.validityChanged.emit(msg is None)


def field_with_message(edit: QuantityEdit) -> QWidget:
    """The edit with its inline message beneath it, for a form row."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(2)
    lay.addWidget(edit)
    lay.addWidget(edit.message)
    box.setFocusProxy(edit)
    return box


def make_label(text: str, buddy: QWidget, tooltip: str = "") -> QLabel:
    """A form label whose buddy carries the same accessible name and tooltip."""
    lab = QLabel(text)
    lab.setBuddy(buddy)
    buddy.setAccessibleName(text)
    if tooltip:
        buddy.setToolTip(tooltip)
        lab.setToolTip(tooltip)
    return lab


#: Characters of a combo's longest choice beyond which the box no longer widens to show it.
LONG_CHOICE = 18


def make_combo(label: str, tooltip: str, items: list[tuple[str, Any]]) -> QComboBox:
    """A combo box of (text, data) items with an accessible name and tooltip."""
    c = QComboBox()
    c.setAccessibleName(label)
    c.setToolTip(tooltip)
    set_combo_items(c, items)
    c.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    if max((len(text) for text, _ in items), default=0) > LONG_CHOICE:
        # (a long choice, such as the LLM step's network-time models, is elided in the box
        # and shown whole in its list: the form stays as narrow as its dock)
        c.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        c.setMinimumContentsLength(LONG_CHOICE)
    return c



def set_combo_items(combo: QComboBox, items: list[tuple[str, Any]]) -> None:
    """Replace a combo's items only if they differ (keeps the widget quiet otherwise)."""
    items = list(items)
    have = [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]
    if have == items:
        return
    with signals_blocked(combo):
        current = combo.currentData()
        combo.clear()
        for text, data in items:
            combo.addItem(text, data)
        idx = combo.findData(current)
        combo.setCurrentIndex(max(idx, 0))


def set_combo_data(combo: QComboBox, data: Any) -> None:
    """Select the item holding ``data`` without emitting signals."""
    if data is not None and combo.currentData() == data:
        return  # (the usual case, at every edit elsewhere: no search)
    idx = combo.findData(data)
    if idx >= 0 and idx != combo.currentIndex():
        with signals_blocked(combo):
            combo.setCurrentIndex(idx)


def set_checked(box: QCheckBox, checked: bool) -> None:
    if box.isChecked() != checked:
        with signals_blocked(box):
            box.setChecked(checked)


def set_text(edit: QLineEdit, text: str) -> None:
    if edit.text() != text:
        with signals_blocked(edit):
            edit.setText(text)
            if not edit.hasFocus():
                edit.setCursorPosition(0)  # show the start of a long text


class Binding:
    """One widget bound two ways to one place in the scenario.

    ``read(scenario)`` gives the value to show; ``write(scenario, value)``
    stores a user edit into a scenario *copy* handed over by the document.
    ``key`` identifies the field so that a burst of keystrokes in it merges
    into one undo step.
    """

    def __init__(self, widget: QWidget, read: Callable[[Any], Any],
                 write: Callable[[Any, Any], None], key: str, text: str) -> None:
        self.widget = widget
        self.read = read
        self.write = write
        self.key = key
        self.text = text

    @property
    def merges(self) -> bool:
        """Typing merges into one undo step; a choice in a combo or a checkbox is a step of its own."""
        return isinstance(self.widget, QLineEdit)

    def undo_key(self, prefix: str = "") -> str | None:
        return f"{prefix}{self.key}" if self.merges else None

    def show(self, scenario: Any, force: bool = False) -> None:
        try:
            value = self.read(scenario)
        except (IndexError, KeyError, AttributeError):
            return
        w = self.widget
        if isinstance(w, QuantityEdit):
            w.set_value(None if value is None else float(value), force)
        elif isinstance(w, QComboBox):
            set_combo_data(w, value)
        elif isinstance(w, QCheckBox):
            set_checked(w, bool(value))
        elif isinstance(w, QLineEdit):
            set_text(w, "" if value is None else str(value))


def bind(widget: QWidget, read: Callable[[Any], Any], write: Callable[[Any, Any], None], *,
         key: str, text: str, apply: Callable[[Binding, Any], None]) -> Binding:
    """Connect a widget's *user* edits to ``apply(binding, value)`` and return the binding.

    ``apply`` is normally ``document.edit``-based; programmatic updates go
    through :meth:`Binding.show`, which blocks signals.
    """
    b = Binding(widget, read, write, key, text)
    if isinstance(widget, QuantityEdit):
        widget.valueEdited.connect(lambda v: apply(b, v))
    elif isinstance(widget, QComboBox):
        widget.currentIndexChanged.connect(lambda _i: apply(b, widget.currentData()))
    elif isinstance(widget, QCheckBox):
        widget.toggled.connect(lambda on: apply(b, bool(on)))
    elif isinstance(widget, QLineEdit):
        widget.textEdited.connect(lambda t: apply(b, t))
    else:  # pragma: no cover - programming error
        raise TypeError(f"cannot bind {type(widget).__name__}")
    return b
