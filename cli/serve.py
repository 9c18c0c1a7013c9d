"""`svara serve`: start the web server on one instance folder.

The first start creates the schema (later starts upgrade it), an `admin` account with a
generated password shown only then, and a demo `classic` table; with `DEMO_HOUSE` (`make
run` sets it) the house gets that much for the bots and two of them sit at the demo table.
The address is printed once the port is listening, so whoever started the server (a person,
a test) may connect at once. SIGTERM (systemd's stop, `kill`) ends it as Ctrl-C does: every
feature's `stop` runs (the SFU ended, the chat lines on their way stored).
"""

from __future__ import annotations

import gc
import os
import resource
import signal
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import click

from . import guard, redirect
from .options import instance_option

if TYPE_CHECKING:  # imported after eventlet's monkey patching, in `serve`
    from app.tls import TlsFiles

ASYNC_MODE_ENV = "SVARA_ASYNC_MODE"
#: Seconds between two looks at the process's size while serving: a full collection comes
#: when it grew (`collect_when_grown`), not after a count of middle collections (Python's
#: own policy), which came every 25–60 s at 4,000 players.
LOOK_EVERY = 60.0
#: How much the process's peak size grows after a full collection before the next one:
#: CPython's own ratio for a full collection (the objects new to the old generation above a
#: quarter of it), measured in memory, which cycles left behind do grow.
GROWTH_FOR_A_COLLECTION = 1.25
#: A full-collection threshold Python never reaches: `collect_when_grown` makes them.
NEVER = 2**31 - 1
#: Seconds a stopping server gives its requests in flight before it ends its connections.
STOP_GRACE = 1.0


@click.command()
@click.option("--host", default=None, help="address to listen on  [default: 127.0.0.1]")
@click.option("--port", type=int, default=None, help="port (0: any free one)  [default: 5000]")
@click.option(
    "--lan",
    is_flag=True,
    help="for friends on this network: every address (unless --host), HTTPS, "
    "the addresses to open and a QR code",
)
@click.option("--tls", is_flag=True, help="serve HTTPS (browsers give the mic only to HTTPS)")
@click.option(
    "--cert",
    type=click.Path(dir_okay=False, path_type=Path),
    help="certificate chain (PEM; implies --tls)",
)
@click.option(
    "--key", type=click.Path(dir_okay=False, path_type=Path), help="its private key (PEM)"
)
@instance_option
def serve(
    host: str | None,
    port: int | None,
    lan: bool,
    tls: bool,
    cert: Path | None,
    key: Path | None,
    instance: str,
) -> None:
    """Run the game server (Flask-SocketIO; eventlet unless SVARA_ASYNC_MODE says otherwise).

    With --tls alone a self-signed certificate is generated into the instance folder
    (docs/hosting.md); --cert/--key give your own. --lan is --host 0.0.0.0 --tls and
    prints the https:// addresses to open, with a QR code of the first."""
    async_mode = os.environ.get(ASYNC_MODE_ENV, "eventlet")
    if async_mode == "eventlet":
        # Before anything imports the web stack, so sockets, threads and locks are green.
        # eventlet is the designed server (docs/architecture.md); its deprecation notice is known.
        warnings.filterwarnings("ignore", message="\nEventlet is deprecated")
        import eventlet

        eventlet.monkey_patch()
        # psycopg (PostgreSQL, several processes) waits for the server in C unless told
        # otherwise, which holds the hub for every round trip (docs/performance.md, «Two
        # processes»); its `select` wait is the patched, green one.
        os.environ.setdefault("PSYCOPG_WAIT_FUNC", "wait_select")

    from app import create_app, start, stop
    from app.admin.money import demo_float
    from app.auth.service import ADMIN_NAME, ensure_admin
    from app.backup import BackupError, hold_serving
    from app.config import instance_folder
    from app.lobby.service import ensure_demo_table
    from app.models import get_db
    from app.tls import TlsError, tls_files

    try:  # before the app migrates the database: never in the middle of a restore
        held = hold_serving(instance_folder(instance))
    except BackupError as e:
        raise click.ClickException(str(e)) from None
    overrides: dict[str, Any] = {"INSTANCE": instance, "ASYNC_MODE": async_mode}
    if lan or tls or cert or key:
        overrides["TLS"] = True  # a Secure session cookie and HSTS (app/headers.py)
    if lan and host is None:
        host = "0.0.0.0"
    if host is not None:
        overrides["HOST"] = host
    if port is not None:
        overrides["PORT"] = port
    app = create_app(overrides)
    files = None
    if lan or tls or cert or key:
        # The certificate names the --host address too, unless that is "every address".
        named = [] if app.config["HOST"] in ("0.0.0.0", "::") else [app.config["HOST"]]
        try:
            files = tls_files(Path(app.instance_path), cert, key, hosts=named)
        except TlsError as e:
            raise click.ClickException(str(e)) from None
    with app.app_context(), get_db().session() as s:
        password = ensure_admin(s)
        demo = ensure_demo_table(s)
        if password is not None:  # the first start (`make run`: the demo's house for bots)
            demo_float(s, demo, int(app.config["DEMO_HOUSE"]))

    def ready(address: str) -> None:
        # The password first: once "listening" is printed, everything about the start is.
        if password is not None:
            click.echo(f"Administrator created: name {ADMIN_NAME}, password {password}")
            click.echo("This password is shown only now; change it after logging in.")
        click.echo(f"Svara is listening on {address}  (instance {app.instance_path})")
        if lan:
            port = urlsplit(address).port
            assert port is not None
            click.echo(lan_banner(lan_urls(app.config["HOST"], port)))

    start(app)  # every feature's serving part, in app.FEATURES order
    try:
        run(app, app.config["HOST"], int(app.config["PORT"]), ready, files)
    finally:
        stop(app)
        held.close()


def run(app: Any, host: str, port: int, ready: Any, tls: TlsFiles | None = None) -> None:
    """Listen (HTTPS with `tls`), call `ready(address)` with the real port, then serve until
    interrupted."""
    async_mode = app.config["ASYNC_MODE"]
    stop_on_signals(async_mode)
    open_files_for(int(app.config["MAX_CONNECTIONS"]))
    gc_for_serving()
    try:
        if async_mode == "eventlet":
            import time

            import eventlet
            import eventlet.wsgi

            from app import metrics

            with _listening(host, port):
                listener = eventlet.listen((host, port))
            eventlet.spawn(metrics.watch_the_loop, eventlet.sleep, time.monotonic)
            eventlet.spawn(collect_when_grown, eventlet.sleep, metrics.sockets_closed)
            ready(_address(host, listener.getsockname()[1], tls is not None))
            base: type = eventlet.wsgi.HttpProtocol
            if tls is not None:
                listener = eventlet.wrap_ssl(
                    listener, certfile=str(tls.cert), keyfile=str(tls.key), server_side=True
                )
                base = redirect.protocol(tls.names())  # http:// → its https address
            eventlet.wsgi.server(
                listener,
                app,
                log_output=False,
                custom_pool=ClosingPool(int(app.config["MAX_CONNECTIONS"]), STOP_GRACE),
                protocol=guard.protocol(
                    base, connections_of(app.config), float(app.config["HEADER_TIMEOUT"])
                ),
            )
        elif async_mode == "threading":
            import logging
            import threading
            import time

            from werkzeug.serving import make_server

            from app import metrics

            logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
            threading.Thread(
                target=collect_when_grown, args=(time.sleep, metrics.sockets_closed), daemon=True
            ).start()

            context = tls.ssl_context() if tls is not None else None
            with _listening(host, port):
                server = make_server(host, port, app, threaded=True, ssl_context=context)
            ready(_address(host, server.port, tls is not None))
            server.serve_forever()
        else:
            raise click.UsageError(f"{ASYNC_MODE_ENV}={async_mode}: use eventlet or threading")
    except KeyboardInterrupt:
        click.echo("Svara stopped.")


def stop_on_signals(async_mode: str) -> None:
    """SIGTERM (systemd's stop) ends serving as Ctrl-C does: a KeyboardInterrupt where the
    server waits for connections. Under eventlet both are thrown into the main green thread
    by the hub, never raised in whichever green thread the signal interrupted (a handler
    that catches everything would swallow it and the server would not stop)."""
    if async_mode != "eventlet":
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        return
    import greenlet
    from eventlet import hubs

    main = greenlet.getcurrent()

    def interrupt(signum: int, frame: Any) -> None:
        hubs.get_hub().schedule_call_global(0, main.throw, KeyboardInterrupt)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, interrupt)


class ClosingPool:
    """The eventlet server's green threads, one per connection, at most `size`. At a stop
    the server waits for them all, and a websocket never ends by itself: those still open
    after `grace` seconds are ended, so a stop with players at the tables ends too."""

    def __init__(self, size: int, grace: float) -> None:
        import eventlet

        self._pool = eventlet.GreenPool(size)
        self.grace = grace

    def spawn(self, function: Any, *args: Any) -> Any:
        return self._pool.spawn(function, *args)

    def waitall(self) -> None:
        import eventlet

        with eventlet.Timeout(self.grace, False):
            self._pool.waitall()
        for thread in list(self._pool.coroutines_running):
            thread.kill()
        self._pool.waitall()


def connections_of(config: Any) -> guard.Connections:
    """The bound of open connections per client address (cli/guard.py); the trusted
    proxy's addresses are not bounded (every player comes through them)."""
    proxies = tuple(config["PROXY_ADDRESSES"]) if config["TRUST_PROXY"] else ()
    return guard.Connections(int(config["CONNECTIONS_PER_ADDRESS"]), proxies)


def lan_urls(host: str, port: int, addresses: list[str] | None = None) -> list[str]:
    """What to open from another machine: `host`, or for every address (0.0.0.0) each LAN
    address of this machine (`addresses`: app.tls.lan_addresses() unless given)."""
    from app.tls import lan_addresses

    if host in ("0.0.0.0", "::"):
        hosts = lan_addresses() if addresses is None else addresses
    else:
        hosts = [host]
    return [_address(h, port, True) for h in hosts]


def lan_banner(urls: list[str]) -> str:
    """The addresses, a QR code of the first (segno, drawn in the terminal), and what a
    phone says the first time (docs/hosting.md «Friends on the LAN»)."""
    import io

    import segno

    if not urls:
        return "No LAN address found: is this machine connected to a network?"
    qr = io.StringIO()
    segno.make(urls[0], micro=False).terminal(out=qr, compact=True)
    first_host = urls[0].split("//", 1)[1].rsplit(":", 1)[0]
    return "\n".join(
        [
            "Open on a phone or a laptop on this network:",
            *(f"  {url}" for url in urls),
            qr.getvalue().rstrip("\n"),
            "The first visit warns that the connection is not private (the certificate is "
            f"this server's own): tap «Advanced», then «Proceed to {first_host}» "
            "(Safari: «Show Details», then «visit this website»).",
        ]
    )


def open_files_for(connections: int) -> int:
    """Raise this process's soft limit of open files so that `connections` sockets (plus the
    database, the voice socket, logs: a margin of 256) fit, never above the hard limit; many
    systems start services at 1,024, fewer than a full server's players. Returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 256
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if wanted > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        return wanted
    return soft


def gc_for_serving() -> None:
    """The cyclic garbage collector's policy while serving (docs/performance.md, «The
    garbage collector», «Who held the loop, switch by switch, and full collections on a
    clock» and «The full collection at 4,000: the handshakes' frames, and a collection when
    the process grew»).

    A full collection walks every object and, under eventlet, holds every table meanwhile:
    ~220 ms at 1,000 players, 1–2 s at 4,000. What start-up made (the libraries, the app,
    the scoring tables) lives as long as the process, so it is frozen out of the collector's
    walk; and Python makes no full collection itself: `collect_when_grown` does, when there
    is something for it to find.
    """
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)


def peak_size() -> int:
    """The process's peak resident size (in the platform's unit: only ratios are used)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def collect_when_grown(
    sleep: Callable[[float], object],
    closed: Callable[[], float],
    size: Callable[[], int] = peak_size,
) -> None:
    """Forever: every LOOK_EVERY seconds (on the event loop under eventlet), a full
    collection if the process's peak size grew by GROWTH_FOR_A_COLLECTION since the last one,
    counting only the minutes in which a connection closed (`closed`: how many have closed
    so far, app.metrics.sockets_closed).

    While tables play, a full collection finds nothing: a table's data is freed by reference
    counting, and a socket's handshake keeps no cycle (app/socket_context.py). What it finds
    is what closed connections left, and that, not freed, makes the process grow: so the
    pause (1–2 s at 4,000 players) comes when the players who left made the process a
    quarter bigger, not every few minutes of a steady evening; the memory stays within a
    quarter of what the last collection left (tests/load/test_soak.py). A minute in which
    nobody left grew by the players who came, live data a collection would walk for nothing
    (455 ms for 8 objects at 3,000 players: docs/performance.md, «The 10-minute soak at 2,000
    before and after the steady state's work»): the mark moves up by that growth."""
    mark = before = size()
    left = closed()
    while True:
        sleep(LOOK_EVERY)
        now, leaving = size(), closed()
        if leaving == left:  # nobody left: the growth is the players who came
            mark += now - before
        elif now >= mark * GROWTH_FOR_A_COLLECTION:
            gc.collect()
            now = mark = size()
        before, left = now, leaving


@contextmanager
def _listening(host: str, port: int) -> Iterator[None]:
    """A port that is taken (or an address that is not this machine's) is one clear line."""
    try:
        yield
    except OSError as e:
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


def _address(host: str, port: int, secure: bool) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if secure else 'http'}://{shown}:{port}"
