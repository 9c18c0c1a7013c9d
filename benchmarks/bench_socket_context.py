"""What a socket event costs before its handler runs: the request context it is pushed in.

Run: .venv/bin/python -m benchmarks.bench_socket_context [--events 5000] [--repeats 5]

Flask-SocketIO pushes a request context for every socket event, on the environ of the
socket's handshake (a logged-in player's cookie in it). The figure is the CPU time of one
push and pop that reads the session, median of `--repeats`: Flask's own signed-cookie
sessions (the cookie verified at every event) against app/auth/cookie.py's (verified once
per environ), alternating. CPU time of this one process: valid on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from typing import Any

from flask import Flask, session
from flask.sessions import SecureCookieSessionInterface
from werkzeug.test import EnvironBuilder

from app import create_app
from app.auth.cookie import OPENED, SocketCookieSessions


def handshake(app: Flask) -> dict[str, Any]:
    """The environ of a socket handshake that brings a logged-in player's cookie."""
    with app.test_request_context("/"):
        session["user_id"], session["epoch"] = 1, 0
        response = app.make_response("")
        app.session_interface.save_session(app, session, response)
        cookie = response.headers["Set-Cookie"].split(";")[0]
    return EnvironBuilder(
        path="/socket.io/", query_string="EIO=4&transport=websocket", headers=[("Cookie", cookie)]
    ).get_environ()


def per_event(app: Flask, environ: dict[str, Any], events: int) -> float:
    """CPU µs per pushed context that reads the session's player."""
    start = time.process_time()
    for _ in range(events):
        with app.request_context(environ):
            assert session["user_id"] == 1
    return (time.process_time() - start) / events * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="svara-context-") as folder:
        app = create_app({"INSTANCE": folder, "ASYNC_MODE": "threading"})
        environ = handshake(app)
        kinds = {"flask": SecureCookieSessionInterface(), "once_per_socket": SocketCookieSessions()}
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(args.repeats):
            for name, interface in kinds.items():
                app.session_interface = interface
                environ.pop(OPENED, None)
                per_event(app, environ, args.events // 10)  # warm up
                times[name].append(per_event(app, environ, args.events))
        row = {f"{name}_us": round(statistics.median(t), 1) for name, t in times.items()}
        print(json.dumps({**row, "ratio": round(row["once_per_socket_us"] / row["flask_us"], 2)}))


if __name__ == "__main__":
    main()
