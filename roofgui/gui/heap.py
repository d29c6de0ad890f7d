"""The C heap under the window's view-sized pictures (issue 28's soak).

The window keeps pictures the size of its plots (the cache layers, the axes' device caches,
the backing store): at 3000×2000 each is 24 MB.  glibc serves a block that large with its
own ``mmap`` and unmaps it when freed, but it then raises its *dynamic* mmap threshold to the
size of that block (up to 32 MB), so every later picture, resized or redrawn, comes from the
heap instead.  Freed there, among small blocks that stay in use, their pages are not given
back.  Measured with the soak's busy window: rounds of resizes from 200×150 to 3000×2000
left 43-47 MB free in the heap (resident set 236-241 MB); with the threshold pinned
(:func:`pin_mmap_threshold`), 3 MB (195 MB); the first 200 edits of the soak under
tracemalloc, 187 MB of a 274 MB heap free.  Pinning turns the adjustment off: blocks of
1 MiB or more are always mapped on their own and unmapped when freed (allocating and
filling a 1920×1080 picture costs the same ~0.4 ms either way).
"""

from __future__ import annotations

import ctypes
import sys

#: Blocks of at least this many bytes are mapped on their own and unmapped when freed
#: (a 512×512 picture and up).
MMAP_THRESHOLD = 1 << 20
M_MMAP_THRESHOLD = -3  # (glibc's malloc.h)


def pin_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at ``threshold`` bytes (which also stops it moving with the
    blocks freed); whether it was set (False off Linux or on a C library without it)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(M_MMAP_THRESHOLD, int(threshold)))
