"""The main window's menu bar: File, Edit, View, Chips and Help."""

from __future__ import annotations

import importlib.util

from PySide6.QtGui import QAction, QKeySequence

from roofgui.gui.controller import make_action


def build_menus(w) -> None:
    """Fill the window's menu bar; the actions other code needs become the window's attributes."""
    _file_menu(w)
    _edit_menu(w)
    _view_menu(w)
    chips = w.menuBar().addMenu("&Chips")
    chips.addAction("Show &Spec…").triggered.connect(w.chips_panel.show_spec)
    chips.addAction("&New Custom Chip…").triggered.connect(lambda: w.chips_panel.new_custom())
    chips.addAction("Find &Chip").triggered.connect(w.focus_chip_filter)
    helpm = w.menuBar().addMenu("&Help")
    helpm.addAction("&About Roofline Explorer").triggered.connect(w.show_about)
    for m in menus_of(w.menuBar()):
        ensure_mnemonics(m)
        # (Open Recent and Examples fill themselves as they open: after them, this)
        m.aboutToShow.connect(lambda m=m: ensure_mnemonics(m))


def menus_of(menu) -> list:
    """Every menu under a menu bar or menu, submenus included."""
    out = []
    for a in menu.actions():
        sub = a.menu()
        if sub is not None:
            out += [sub] + menus_of(sub)
    return out


def ensure_mnemonics(menu) -> None:
    """Give each item of a menu without a shortcut or a mnemonic (&) one: the first letter
    of its text not already taken in the menu (so every item is reachable by keyboard)."""
    taken = set()
    for a in menu.actions():
        t = a.text()
        if "&" in t:
            taken.add(t[t.index("&") + 1:t.index("&") + 2].lower())
    for a in menu.actions():
        t = a.text()
        if a.isSeparator() or not t or "&" in t or not a.shortcut().isEmpty():
            continue
        for i, ch in enumerate(t):
            if ch.isalnum() and ch.lower() not in taken:
                taken.add(ch.lower())
                a.setText(t[:i] + "&" + t[i:])
                break


def _file_menu(w) -> None:
    c = w.controller
    file = w.menuBar().addMenu("&File")
    for a in (c.new_action, c.open_action):
        file.addAction(a)
    file.addMenu(c.recent_menu)
    file.addMenu(c.examples_menu)
    file.addSeparator()
    file.addAction(c.save_action)
    file.addAction(c.save_as_action)
    file.addSeparator()
    w.export_action = make_action(w, "E&xport…", w.open_export, QKeySequence("Ctrl+E"),
                                  "Export the plot as PNG, SVG or PDF, or the data as CSV")
    w.copy_image_action = make_action(w, "&Copy Plot Image", w.copy_plot_image,
                                      QKeySequence("Ctrl+Shift+C"),
                                      "Copy the current plot to the clipboard as an image")
    available = importlib.util.find_spec("roofgui.gui.export_dialog") is not None
    w.export_action.setEnabled(available)
    w.copy_image_action.setEnabled(available)
    if not available:
        w.export_action.setToolTip("Export is not available in this build")
    file.addAction(w.export_action)
    file.addAction(w.copy_image_action)
    file.addSeparator()
    w.quit_action = make_action(w, "&Quit", w.close, QKeySequence("Ctrl+Q"))
    w.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    file.addAction(w.quit_action)


def _edit_menu(w) -> None:
    edit = w.menuBar().addMenu("&Edit")
    edit.addAction(w.controller.undo_action)
    edit.addAction(w.controller.redo_action)
    edit.addSeparator()
    ops = w.form.ops
    w.add_op_action = make_action(w, "&Add Op", lambda: ops.add_op(), QKeySequence("Ctrl+Shift+A"))
    edit.addAction(w.add_op_action)
    edit.addAction("&Duplicate Op").triggered.connect(ops.duplicate_op)
    edit.addAction("&Remove Op").triggered.connect(ops.remove_op)


def _view_menu(w) -> None:
    view = w.menuBar().addMenu("&View")
    for i, (text, key) in enumerate((("&Roofline", "Ctrl+1"), ("&Sweep", "Ctrl+2"))):
        a = view.addAction(text)
        a.setShortcut(QKeySequence(key))
        a.triggered.connect(lambda _=False, i=i: w.tabs.setCurrentIndex(i))
    fit = view.addAction("&Fit View")
    fit.setShortcut(QKeySequence("Ctrl+0"))
    fit.triggered.connect(w.fit_view)
    view.addSeparator()
    for d in (w.form_dock, w.chips_dock, w.results_dock):
        view.addAction(d.toggleViewAction())
    view.addSeparator()
    view.addAction("Reset &Layout").triggered.connect(w.reset_layout)
