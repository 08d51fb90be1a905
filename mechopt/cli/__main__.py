"""``python -m mechopt.cli``: the command line."""

import sys

from mechopt.cli import main

if __name__ == "__main__":
    sys.exit(main())
