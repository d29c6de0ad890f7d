"""Export: the plot as PNG, SVG or PDF, the data as CSV, from the window or ``roofgui export``.

``render_image``, ``export_file`` and ``copy_plot_to_clipboard`` live in
:mod:`roofgui.export.render` (Qt); :mod:`roofgui.export.csv` and
:mod:`roofgui.presentation.caption` need no Qt.
"""
