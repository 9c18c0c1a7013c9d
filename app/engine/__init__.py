"""The rules engine: pure Python, no Flask, sockets, database, clocks or I/O.

One module per concern: `cards`, `scoring`, `variants`, `hand` (the common API),
one module per game (`classic`, `shaha36`, `svara32`), `handfile` (replay and record),
`bots` and `simulate`.
"""
