"""The web process's side (app/voice/): supervisor, client, hub, against the real SFU."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.protocol import ProtocolError
from app.voice.client import VoiceError, VoiceUnavailable
from app.voice.hub import VoiceHub, start_hub
from app.voice.settings import MAX_SOCKET_PATH, VoiceSettings, socket_path
from app.voice.sockets import register_events
from tests.voicekit import Participant, free_udp_ports

ROOT = Path(__file__).resolve().parents[2]


class Inbox:
    """What the hub delivered, with a way to wait (bounded) for one event, and the tables
    whose voice marks it said changed (`changed`)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, str | None, dict[str, Any]]] = []
        self.tables_changed: list[int] = []
        self._changed = threading.Condition()

    def changed(self, table: int) -> None:
        with self._changed:
            self.tables_changed.append(table)
            self._changed.notify_all()

    def __call__(self, name: str, table: int, player: str | None, payload: dict[str, Any]) -> None:
        with self._changed:
            self.events.append((name, table, player, payload))
            self._changed.notify_all()

    def wait_for(self, name: str, player: str | None = None, timeout: float = 30) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            for event, _, to, payload in self.events:
                if event == name and to == player:
                    return payload
            return None

        with self._changed:
            assert self._changed.wait_for(lambda: found() is not None, timeout=timeout)
            payload = found()
        assert payload is not None
        return payload


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[VoiceHub, Inbox]]:
    inbox = Inbox()
    config = {"VOICE_ADDRESSES": ["127.0.0.1"], "VOICE_PORTS": free_udp_ports(40)}
    voice = start_hub(config, tmp_path, inbox, spawn=_spawn, sleep=_sleep, changed=inbox.changed)
    assert voice.supervisor is not None
    try:
        yield voice, inbox
    finally:
        voice.supervisor.stop()


def _spawn(target: Any, *args: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _sleep(seconds: float) -> None:
    threading.Event().wait(seconds)


def connected(voice: VoiceHub, timeout: float = 30) -> None:
    """Wait until the supervisor has a live SFU connection."""
    ready = threading.Event()

    def probe() -> None:
        while not ready.is_set():
            try:
                voice._sfu().request("ping")
                ready.set()
            except VoiceUnavailable:
                _sleep(0.05)

    _spawn(probe)
    assert ready.wait(timeout)


async def talk(voice: VoiceHub, table: int, player: str, seats: int) -> Participant:
    """The browser's path: voice:join, then voice:offer → answer (blocking calls in a thread)."""
    config = await asyncio.to_thread(voice.join, table, player, seats)
    participant = Participant(slots=config["slots"])
    offer = await participant.offer()
    answer = await asyncio.to_thread(voice.offer, table, player, seats, offer)
    await participant.accept(answer)
    return participant


async def heard(participant: Participant, frames: int = 25) -> None:
    await participant.wait_until(
        lambda: any(c.frames >= frames for c in participant.received.values())
    )


def test_hub_connects_browsers_and_reports_toggles(hub: tuple[VoiceHub, Inbox]) -> None:
    voice, inbox = hub
    connected(voice)

    async def scenario() -> None:
        a = await talk(voice, 7, "ann", 3)
        b = await talk(voice, 7, "bob", 3)
        await heard(a)
        await heard(b)
        await asyncio.to_thread(voice.set_mic, 7, "ann", False)
        assert voice.marks(7) == {
            "ann": {"in": True, "mic": False, "listen": True},
            "bob": {"in": True, "mic": True, "listen": True},
        }
        await asyncio.to_thread(voice.leave, 7, "bob")
        assert voice.marks(7) == {"ann": {"in": True, "mic": False, "listen": True}}
        # Each one's connection, the mic toggle and bob's leave were changes of table 7's
        # marks (ann's hanging up below is one more).
        assert inbox.tables_changed == [7] * 4
        await a.close()
        await b.close()

    asyncio.run(scenario())
    slots = inbox.wait_for("voice:slots", "bob")
    assert [s["player"] for s in slots["slots"]] == ["ann", None]
    assert inbox.wait_for("voice:levels")["table"] == 7
    with pytest.raises(VoiceError):
        voice.offer(7, "bob", 3, "v=0")  # bob left: no offer accepted any more


def test_a_dead_sfu_is_restarted_and_voice_resumes(hub: tuple[VoiceHub, Inbox]) -> None:
    """Kill -9 the SFU: calls fail meanwhile (the table plays on), a new SFU comes up,
    members are re-joined with their toggles, and browsers are told to re-offer."""
    voice, inbox = hub
    connected(voice)
    supervisor = voice.supervisor
    assert supervisor is not None

    async def before() -> None:
        a = await talk(voice, 3, "ann", 2)
        await asyncio.to_thread(voice.set_listen, 3, "ann", False)
        await a.close()

    asyncio.run(before())
    old_pid = supervisor.pid
    assert old_pid is not None
    os.kill(old_pid, signal.SIGKILL)
    assert inbox.wait_for("voice:restart") == {"table": 3}
    connected(voice)
    assert supervisor.pid != old_pid and supervisor.starts == 2
    # Kept with her toggles; nobody is in the voice again before his page has offered again.
    assert voice.marks(3) == {"ann": {"in": False, "mic": True, "listen": False}}

    async def after() -> None:
        a = await talk(voice, 3, "ann", 2)  # a re-offer is accepted: ann was re-joined
        b = await talk(voice, 3, "bob", 2)
        await heard(b)  # bob hears ann; ann's listen off survived the restart
        assert all(c.frames == 0 for c in a.received.values())
        await a.close()
        await b.close()

    asyncio.run(after())


def test_voice_disabled_answers_unavailable(tmp_path: Path) -> None:
    voice = start_hub({"VOICE": False}, tmp_path, Inbox(), spawn=_spawn, sleep=_sleep)
    with pytest.raises(VoiceUnavailable):
        voice.join(1, "ann", 4)


def test_settings_build_the_sfu_command(tmp_path: Path) -> None:
    config = {
        "VOICE_ICE_SERVERS": [
            {"urls": "turn:example.org:3478", "username": "u", "credential": "p"}
        ],
        "VOICE_ADDRESSES": ["eth0"],
        "VOICE_PORTS": "40000-40099",
    }
    settings = VoiceSettings.from_config(config, tmp_path)
    command = settings.command()
    assert command[:3] == [sys.executable, "-m", "rtc"]
    assert command[command.index("--address") + 1] == "eth0"
    assert command[command.index("--ports") + 1] == "40000-40099"
    assert '"turn:example.org:3478"' in command[command.index("--ice-servers") + 1]
    assert settings.browser_ice_servers("Иван") == config["VOICE_ICE_SERVERS"]
    assert settings.socket_path == tmp_path / "voice.sock"


def test_socket_path_stays_bindable_for_deep_instance_folders(tmp_path: Path) -> None:
    deep = tmp_path / ("x" * 120)
    path = socket_path(deep)
    assert len(str(path)) <= MAX_SOCKET_PATH
    assert path == socket_path(deep)  # stable across restarts


def test_supervisor_client_works_green_under_eventlet(tmp_path: Path) -> None:
    """The designed web process: eventlet.monkey_patch(), socketio-style spawn/sleep."""
    script = textwrap.dedent(
        f"""
        import warnings
        warnings.filterwarnings("ignore")
        import eventlet
        eventlet.monkey_patch()
        from pathlib import Path
        from app.voice.hub import start_hub

        events = []
        voice = start_hub({{"VOICE_ADDRESSES": ["127.0.0.1"]}}, Path({str(tmp_path)!r}),
                      lambda *e: events.append(e), spawn=eventlet.spawn, sleep=eventlet.sleep)
        for _ in range(400):
            try:
                voice.join(5, "ann", 4)
                break
            except Exception:
                eventlet.sleep(0.05)
        voice.set_mic(5, "ann", False)
        voice.set_listen(5, "ann", False)
        assert voice.marks(5) == {{"ann": {{"in": False, "mic": False, "listen": False}}}}
        voice.leave(5, "ann")
        assert voice.sent(5)  # the leave is queued, never waited for by the caller
        stats = voice.supervisor.client.request("stats")
        assert stats["rooms"] == 0, stats
        voice.supervisor.stop()
        print("green ok", len(events))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("green ok")


class Seat:
    """A player as app.protocol hands it to handlers (only the name matters here)."""

    def __init__(self, name: str) -> None:
        self.name = name


def test_socket_events_are_for_seated_players_only(hub: tuple[VoiceHub, Inbox]) -> None:
    """register_events: the voice:* handlers check the seat, then call the hub."""
    voice, _ = hub
    connected(voice)
    handlers: dict[str, Any] = {}
    shapes: dict[str, dict[str, type]] = {}

    def on(name: str, handler: Any, required: dict[str, type]) -> None:
        handlers[name], shapes[name] = handler, required

    seated = {(9, "ann"): 4, (9, "bob"): 4}
    register_events(voice, lambda table, name: seated.get((table, name)), lambda t, n: True, on=on)
    assert shapes == {
        "voice:join": {"table": int},
        "voice:ice": {"table": int},
        "voice:offer": {"table": int, "sdp": str},
        "voice:mic": {"table": int, "on": bool},
        "voice:listen": {"table": int, "on": bool},
        "voice:leave": {"table": int},
    }
    ann, spectator = Seat("ann"), Seat("sam")
    with pytest.raises(ProtocolError, match="seated"):
        handlers["voice:join"](spectator, {"table": 9})
    joined = handlers["voice:join"](ann, {"table": 9})
    assert joined["ok"] and joined["slots"] == 3 and joined["iceServers"] == []

    async def offer() -> None:
        participant = Participant(slots=3)
        ack = await asyncio.to_thread(
            handlers["voice:offer"], ann, {"table": 9, "sdp": await participant.offer()}
        )
        assert ack["ok"] and ack["sdp"].startswith("v=0")
        await participant.close()

    asyncio.run(offer())
    with pytest.raises(ProtocolError, match="offer"):
        handlers["voice:offer"](ann, {"table": 9, "sdp": "nonsense"})
    with pytest.raises(ProtocolError, match="not joined"):
        handlers["voice:mic"](Seat("bob"), {"table": 9, "on": False})  # seated, no voice yet
    assert handlers["voice:mic"](ann, {"table": 9, "on": False}) is None
    mark = voice.marks(9)["ann"]
    assert (mark["mic"], mark["listen"]) == (False, True)
    assert handlers["voice:leave"](ann, {"table": 9}) is None
    assert voice.marks(9) == {}
