"""Roofline Explorer: a live log-log roofline for ML operations on accelerators."""

__version__ = "0.1.0"
