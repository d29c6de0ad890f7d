"""Plotting: the pyqtgraph items that draw what :mod:`roofgui.presentation` computes."""
