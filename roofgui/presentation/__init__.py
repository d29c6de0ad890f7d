"""Presentation: what the window and the command line show, without Qt: result rows and
working text, plot geometry, colours, labels and tables."""
