"""Export: the plot as PNG, SVG or PDF, the data as CSV, from the window or ``roofgui export``.

:mod:`roofgui.export.render` has the entry points (``export_file``,
``render_image``, ``copy_plot_to_clipboard``); :class:`roofgui.export.figure.Figure`
lays out and paints every picture.  :mod:`roofgui.export.options`,
:mod:`roofgui.export.csv` and :mod:`roofgui.export.svg` need no Qt.
"""
