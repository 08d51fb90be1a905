"""``python -m mechopt ...`` runs the command line (:func:`mechopt.cli.main`)."""

import sys

from mechopt.cli import main

if __name__ == "__main__":
    sys.exit(main())
