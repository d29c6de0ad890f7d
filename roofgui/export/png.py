"""Encode a QImage as PNG fast: rows converted by Qt and deflated by zlib in bands on
several threads into one stream (zlib releases the GIL while it compresses)."""

from __future__ import annotations

#: PNG row bands smaller than this many bytes are not worth a thread of their own.
_PNG_BAND_MIN_BYTES = 1 << 20
_ADLER_BASE = 65521


def png_threads() -> int:
    """Threads the PNG encoder may use: the CPUs this process may run on, at most 4."""
    import os

    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))


def adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """The Adler-32 of ``a + b`` from the Adler-32s of ``a`` and ``b`` (``len(b) == len2``),
    as zlib's ``adler32_combine``."""
    a1, b1 = adler1 & 0xFFFF, adler1 >> 16
    a2, b2 = adler2 & 0xFFFF, adler2 >> 16
    a = (a1 + a2 - 1) % _ADLER_BASE
    b = (b1 + b2 + len2 * (a1 - 1)) % _ADLER_BASE
    return (b << 16) | a


def _zlib_header(level: int) -> bytes:
    """The two bytes zlib writes before a deflate stream at ``level`` (32 KB window)."""
    flevel = 0 if level < 2 else 1 if level < 6 else 2 if level == 6 else 3
    head = (0x78 << 8) | (flevel << 6)
    head += (31 - head % 31) % 31
    return head.to_bytes(2, "big")


def zlib_parallel(rows, level: int = 1, threads: int | None = None) -> bytes:
    """One zlib stream of ``rows`` (a 2-D uint8 array, C-contiguous rows), compressed in
    bands on several threads; ``zlib.decompress`` gives ``rows.tobytes()`` back.

    Each band is deflated raw and on its own (no back-references into the band
    before), ending on a byte boundary (``Z_SYNC_FLUSH``), the last one with
    ``Z_FINISH``; put together behind a zlib header and followed by the Adler-32
    of the whole (combined from the bands'), they are one valid stream.  zlib
    releases the GIL while it compresses, so the bands run in parallel.
    """
    row_bytes = rows.shape[1] if rows.ndim > 1 else 1
    return _deflate_bands(rows.shape[0], row_bytes, lambda r0, r1: rows[r0:r1], level, threads)


def _deflate_bands(n_rows: int, row_bytes: int, band_rows, level: int,
                   threads: int | None) -> bytes:
    """:func:`zlib_parallel` of the rows ``band_rows(r0, r1)`` gives (a C-contiguous
    uint8 array of rows ``r0`` to ``r1``), called on the worker threads."""
    import zlib
    from concurrent.futures import ThreadPoolExecutor

    threads = png_threads() if threads is None else max(1, int(threads))
    # twice as many bands as threads: a band of busy rows (text, curves) compresses
    # slower than one of background, and a CPU may be busy with something else
    n_bands = min(threads * 2 if threads > 1 else 1,
                  max(1, n_rows * row_bytes // _PNG_BAND_MIN_BYTES), n_rows)
    n_bands = max(1, n_bands)
    bounds = [round(i * n_rows / n_bands) for i in range(n_bands + 1)]

    def band(i: int):
        block = band_rows(bounds[i], bounds[i + 1])
        comp = zlib.compressobj(level, zlib.DEFLATED, -15)
        data = comp.compress(block)
        data += comp.flush(zlib.Z_FINISH if i == n_bands - 1 else zlib.Z_SYNC_FLUSH)
        return data, zlib.adler32(block), block.nbytes

    if n_bands == 1 or threads == 1:
        parts = [band(i) for i in range(n_bands)]
    else:
        with ThreadPoolExecutor(max_workers=min(threads, n_bands)) as pool:
            parts = list(pool.map(band, range(n_bands)))
    adler = 1
    for _, a, n in parts:
        adler = adler32_combine(adler, a, n)
    return b"".join([_zlib_header(level)] + [d for d, _, _ in parts]
                    + [adler.to_bytes(4, "big")])


def encode_png(img, level: int = 1, threads: int | None = None,
               opaque: bool | None = None) -> bytes:
    """A QImage as PNG, encoded with numpy and zlib: 8-bit RGB when opaque, RGBA otherwise,
    no row filter, zlib ``level`` (compressed in bands on ``threads`` threads, see
    :func:`zlib_parallel`), and the image's resolution (pHYs).

    Qt's PNG writer spends seconds on a 3840 × 2160 picture (libpng's adaptive row
    filters at the default compression); this writes the same pixels several times
    faster for a file about as large.  Premultiplied images are written unpremultiplied
    (as Qt converts them to ARGB32).  ``opaque=True`` says that every pixel is opaque
    (the caller painted an opaque background under everything), sparing the check.
    """
    import struct
    import zlib

    import numpy as np
    from PySide6.QtGui import QImage

    Fmt = QImage.Format
    if img.format() not in (Fmt.Format_ARGB32, Fmt.Format_ARGB32_Premultiplied, Fmt.Format_RGB32):
        img = img.convertToFormat(Fmt.Format_ARGB32)
    w, h = img.width(), img.height()
    if img.format() == Fmt.Format_RGB32:
        opaque = True
    elif opaque is None:
        argb = np.frombuffer(img.constBits(), np.uint32, count=h * img.bytesPerLine() // 4)
        argb = argb.reshape(h, img.bytesPerLine() // 4)[:, :w]
        opaque = bool((argb >= 0xFF000000).all())  # alpha is the top byte, whatever the endianness
        del argb
    # Each band of rows is converted by Qt on the worker thread that compresses it:
    # Qt holds the GIL while it converts, zlib does not, so one band converts while
    # another compresses.  Premultiplied or not, an opaque pixel's colour is the same;
    # a translucent one is unpremultiplied as Qt does it (to ARGB32) before the swizzle.
    fmt = img.format()
    if opaque:
        steps, colour_type, bpp = [Fmt.Format_RGB888], 2, 3
    else:
        steps, colour_type, bpp = [Fmt.Format_RGBA8888], 6, 4
        if fmt == Fmt.Format_ARGB32_Premultiplied:
            steps.insert(0, Fmt.Format_ARGB32)
    src_bpl = img.bytesPerLine()
    bits = np.frombuffer(img.constBits(), np.uint8, count=h * src_bpl).reshape(h, src_bpl)

    def band_rows(r0: int, r1: int):
        n = r1 - r0
        rows = bits[r0:r1]  # whole rows of the image: contiguous, wrapped without a copy
        band = QImage(rows.data, w, n, src_bpl, fmt)
        for f in steps:
            band = band.convertToFormat(f)
        bpl = band.bytesPerLine()
        px = np.frombuffer(band.constBits(), np.uint8, count=n * bpl).reshape(n, bpl)
        raw = np.empty((n, w * bpp + 1), np.uint8)
        raw[:, 0] = 0  # filter type 0 (None) on every row
        raw[:, 1:] = px[:, :w * bpp]
        return raw

    idat = _deflate_bands(h, w * bpp + 1, band_rows, level, threads)
    del bits

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag)) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0))
            + chunk(b"pHYs", struct.pack(">IIB", max(img.dotsPerMeterX(), 0),
                                         max(img.dotsPerMeterY(), 0), 1))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
