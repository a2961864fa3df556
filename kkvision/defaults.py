"""Every default a user can change, named once with its reason.

The command line's options, the web server's, the library's keyword arguments
and the stages that take these as parameters all import them from here, so a
default and the help text that states it cannot drift apart.  Nothing is
imported here: this module sits at the bottom of the package, beside `vocab`
and `errors`.
"""

from __future__ import annotations

# Reading and solving (every command, the library, the server's requests)
MAX_PIXELS = 50_000_000  # a picture's declared size at most: a 50 MP photo peaks at ~0.5 GB solved and drawn
TIME_LIMIT = 20.0  # s for all the solver runs of one source: a user still waits for it; past it, exit 12
MAX_TIME_LIMIT = 3600.0  # s: a --time-limit beyond an hour is surely a typo
DPI = 300  # a PDF page is rasterised as a 300 dpi scan would be
HINT_CELLS = 1  # cells `hint` reveals unless asked for more: a hint, not the answer

# The web server (`kkvision serve`)
HOST = "127.0.0.1"  # loopback unless --host says otherwise: the page has no accounts
PORT = 8000
MAX_UPLOAD = 20_000_000  # bytes of one request's body: a 12 MP phone JPEG is 3-8 MB, a 50 MP PNG is more
QUEUE_PER_WORKER = 4  # requests waiting per worker before 503: at ~0.3 s a picture, about a second's wait
