"""``python -m mechopt ...`` runs the command line through the console script's entry (:mod:`_mechopt_entry`).

``import mechopt`` is cheap (its public names load on first use), so the entry's interrupt handling is in place
before the command line's imports: a Ctrl-C then ends with one line and exit status 130, as ``mechopt`` does.
"""

import sys

from _mechopt_entry import main

if __name__ == "__main__":
    sys.exit(main())
