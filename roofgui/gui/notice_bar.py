"""The notice bar above the plot: problems the model reported."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QWidget


def palette_is_dark(palette: QPalette | None = None) -> bool:
    p = palette or QApplication.palette()
    return p.color(QPalette.ColorRole.Window).lightness() < 128


class NoticeBar(QFrame):
    """Problems the model reported (a chip without a link, a dtype with no peak …), above the plot."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notices")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        self.icon = QLabel("⚠")
        lay.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName("Notices")
        lay.addWidget(self.label, 1)
        self._messages: list[str] = []
        self._dark: bool | None = None
        self._restyle()
        self.hide()

    def _restyle(self) -> None:
        dark = palette_is_dark(QApplication.palette())
        if dark == self._dark:  # a style sheet change is itself a palette change: stop there
            return
        self._dark = dark
        bg, fg, border = (("#3a3000", "#ffe08a", "#6b5a00") if dark
                          else ("#fff4ce", "#5c4400", "#e0c060"))
        self.setStyleSheet(f"#notices {{ background: {bg}; border: 1px solid {border}; "
                           f"border-radius: 4px; }} #notices QLabel {{ color: {fg}; }}")

    def changeEvent(self, e: QEvent) -> None:  # noqa: N802
        if e.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._restyle()
        super().changeEvent(e)

    def set_messages(self, messages: list[str]) -> None:
        seen = list(dict.fromkeys(messages))  # (each once, in order)
        if seen == self._messages:
            return
        self._messages = seen
        if not seen:
            self.hide()
            self.label.clear()
            return
        text = "\n".join(seen[:3])
        if len(seen) > 3:
            text += f"\n… and {len(seen) - 3} more (hover to see all)"
        self.label.setText(text)
        self.setToolTip("\n".join(seen))
        self.show()

    def messages(self) -> list[str]:
        return list(self._messages)
