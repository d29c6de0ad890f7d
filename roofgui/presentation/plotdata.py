"""Plot geometry: everything the roofline and sweep plots draw, computed without Qt.

The plotting layer only hands pyqtgraph what these modules return.  All coordinates are
**log10** of the quantity (the plots draw log10 data on linear axes whose ticks read as
powers of ten).  The names live in small modules, gathered here for the callers:

* :mod:`.roofgeom`: the roofline's roofs, ridges, points, op labels and fit;
* :mod:`.regions`: its red / yellow / green regions;
* :mod:`.tooltips`: the points' tooltips;
* :mod:`.colours`: palette slots per chip, dashes per op;
* :mod:`.ticks`: log ticks, tick labels, readout values, padded ranges;
* :mod:`.placement`: where labels and the legend go;
* :mod:`.polylines`: points along a polyline, the drawn points of a sweep curve.

The sweep plot's geometry is :mod:`.sweepgeom`.
"""

from roofgui.presentation.colours import OP_DASHES, ChipLook, assign_colours, chip_look
from roofgui.presentation.placement import (label_rects, least_covered, place_label,
                                            spread_1d, stack_rows, view_covers)
from roofgui.presentation.polylines import (DRAWN_PER_DECADE, DRAWN_POINTS, densify, densify_many,
                                            sweep_drawing)
from roofgui.presentation.regions import (LOG_INF, REGION_KINDS, REGION_LABELS, REGION_SHORT,
                                          Region, region_at, region_intervals)
from roofgui.presentation.roofgeom import (BOUND_SYMBOLS, ChipGeometry, ChipRoofs, OpLabel,
                                           Point, Ridge, Roof, RooflineGeometry, chip_geometry,
                                           key_points, op_labels, roofline_geometry)
from roofgui.presentation.ticks import (log_tick_levels, log_ticks, nice_range, tick_label,
                                       tick_label_exact)
from roofgui.presentation.tooltips import BOUND_LABELS, format_intensity, point_tooltip

__all__ = [
    "BOUND_LABELS", "BOUND_SYMBOLS", "ChipGeometry", "ChipLook", "chip_look", "ChipRoofs", "DRAWN_PER_DECADE", "DRAWN_POINTS", "LOG_INF",
    "OP_DASHES", "OpLabel", "Point", "REGION_KINDS", "REGION_LABELS", "REGION_SHORT", "Region",
    "Ridge", "Roof", "RooflineGeometry", "assign_colours", "chip_geometry", "densify",
    "densify_many", "format_intensity", "key_points", "label_rects", "least_covered",
    "log_tick_levels", "log_ticks", "nice_range", "op_labels", "place_label", "point_tooltip", "region_at",
    "region_intervals", "roofline_geometry", "spread_1d", "stack_rows", "sweep_drawing",
    "tick_label", "tick_label_exact", "view_covers",
]
