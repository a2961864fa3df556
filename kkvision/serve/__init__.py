"""`kkvision serve`: a small web server and one mobile-first page for people
holding a phone and a newspaper: a photo (or a pasted puzzle text) in, the
answer, a hint or a check of their answers out, drawn onto the picture; tap a
label to correct it and solve again.  The JSON API under the page
(POST /api/solve, /api/hint, /api/check) returns the command line's records
(schema kkvision/1) plus the drawn picture.

  config.py  ServeConfig: every limit, with its default and reason (no web imports)
  work.py    one request's job, run in a worker process: the records, the picture, the overlay
  pool.py    the worker processes: bounded queue, deadline, a worker replaced when it overruns
  app.py     the Starlette app: routes, upload limits, security headers, the page's HTML
  server.py  run(config): the socket bound, uvicorn started, the pool warmed

Needs the `serve` extra (pip install 'kkvision[serve]'): Starlette, uvicorn,
python-multipart and Jinja2.
"""
