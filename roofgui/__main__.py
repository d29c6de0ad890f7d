import sys

from roofgui.cli import main

sys.exit(main())
