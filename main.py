"""Run Roofline Explorer from a checkout: ``python main.py`` opens the window,
``python main.py analyze ...`` runs the command line."""

import sys

from roofgui.cli import main

if __name__ == "__main__":
    sys.exit(main())
