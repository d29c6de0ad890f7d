"""Entry point of the frozen bundle: the same as the ``roofgui`` command
(no sub-command opens the window; ``chips``, ``analyze``, ``export`` ... run the CLI)."""

import sys

from roofgui.cli import main

if __name__ == "__main__":
    sys.exit(main())
