"""The rules engine: pure Python, no Flask, sockets, database, clocks or I/O.

One module per concern: `cards`, `scoring`, `variants`, `hand` (the common API and its one
contract, `Hand.act`), one module per game (`classic`, `shaha36`, `svara32`: each defines
its `games.Game` record), `games` (the registry), `handfile` (replay and record), `policies`
(the bots' policies: base, simple, odds, roster), `simulate` and `arena`.

Adding a game: its own module here, one line in `games.MODULES`, its page module under
static/js/games/ — the steps are in games.py.
"""
