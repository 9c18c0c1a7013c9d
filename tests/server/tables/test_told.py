"""Told, not guessed (docs/protocol.md, `stood` and `you.stood`): every way a player loses his
seat reaches him with its reason — in the `stood` news of the change and, until he sits or
queues again, as `you.stood` in every state he is sent, on a new socket too (a phone that
was away when it happened) — and never as someone else's: the others see the news only.

And his balance: a page asks for it (`account:balance`) when it connects or comes back in
front, so a change no running server was told of reaches it as well."""

from __future__ import annotations

from typing import Any

from ..conftest import Server, unique_name
from ..tablekit import FAST, Player, admin, everyone, grant, new_table, seat


def stood(player: Player) -> list[dict[str, Any]]:
    """Every `stood` news this player's socket was sent, in order."""
    return [
        e
        for name, data in player.received
        if name == "table:state"
        for e in data["news"]
        if e["kind"] == "stood"
    ]


def told(player: Player, why: str) -> dict[str, Any]:
    """Wait until his state says he lost his seat for `why`; that `you.stood`."""
    return player.until(
        lambda s: s["you"]["seat"] is None and (s["you"]["stood"] or {}).get("why") == why and s
    )["you"]["stood"]


def again(player: Player) -> dict[str, Any]:
    """His page opened anew (a reload, a phone back from the pocket): a new socket joins."""
    player.client.close()
    player.client = player.browser.socket(player.table)
    player.state = {}
    state: dict[str, Any] = player.join()["state"]
    return state


def balance(player: Player) -> Any:
    return player.client.call("account:balance", {})


def test_a_player_whose_turn_timer_ran_out_is_told_after_the_hand(fast: Server) -> None:
    """C-1.7's Decision: Иван and Мария let every turn run out; when the hand ends both are
    stood up with why `timeout`, each his own `you.stood`, and Ёж watching is told nothing of
    his own. A new socket (a reload) is told again; sitting again ends it."""
    table = new_table(fast, "classic", turn_seconds=FAST)
    ivan, maria = seat(fast, table, 2, 100, ("Иван", "Мария"))
    yozh = Player(fast, table, unique_name("Ёж"))
    yozh.join()
    for p in (ivan, maria):
        assert p.call("table:ready") == {"ok": True}
    for p in (ivan, maria):
        assert told(p, "timeout") == {"why": "timeout"}
        assert {"kind": "stood", "player": p.name, "why": "timeout"} in stood(p)
    yozh.until(lambda s: not any(s["seats"]))
    assert yozh.state["you"]["stood"] is None
    assert {e["player"] for e in stood(yozh)} == {ivan.name, maria.name}
    assert again(ivan)["you"]["stood"] == {"why": "timeout"}
    ivan.sit()
    ivan.until(lambda s: s["you"]["seat"] is not None and s["you"]["stood"] is None)
    for p in (ivan, maria, yozh):
        p.close()


def test_a_player_silent_through_the_gathering_is_told(fast: Server) -> None:
    """C-1.3, C-1.7: Ёж answers nothing; the gathering gives one more period, then lapses,
    and he leaves the table with why `idle`; Иван, who answered, keeps his seat and no
    reason of his own."""
    table = new_table(fast, "classic", ready_seconds=FAST)
    ivan, yozh = seat(fast, table, 2, 100, ("Иван", "Ёж"))
    assert ivan.call("table:ready") == {"ok": True}
    assert told(yozh, "idle") == {"why": "idle"}
    ivan.until(lambda s: [x["name"] for x in s["seats"] if x] == [ivan.name])
    assert ivan.state["you"]["stood"] is None
    for p in (ivan, yozh):
        p.close()


def test_a_player_without_the_ante_is_told(fast: Server) -> None:
    """docs/rules.md, «No money, no seat»: Мария's money went while she sat; Иван's «Готов»
    opens the gathering and stands her up, why `money`."""
    table = new_table(fast, "classic")
    ivan, maria = seat(fast, table, 2, 100, ("Иван", "Мария"))
    grant(fast, maria.name, -95)
    assert ivan.call("table:ready") == {"ok": True}
    assert told(maria, "money") == {"why": "money"}
    for p in (ivan, maria):
        p.close()


def test_a_player_away_too_long_is_told_when_he_comes_back(fast: Server) -> None:
    """S-1.7: Мария's socket is gone for longer than `offline_seconds`; she is stood up
    (why `offline`) while nobody of hers listens, and her page is told on its return."""
    table = new_table(fast, "shaha36", offline_seconds=10)
    ivan, maria = seat(fast, table, 2, 1000, ("Иван", "Мария"), stack=200)
    maria.client.close()
    ivan.until(lambda s: [x["name"] for x in s["seats"] if x] == [ivan.name])
    assert again(maria)["you"]["stood"] == {"why": "offline"}
    assert ivan.state["you"]["stood"] is None
    for p in (ivan, maria):
        p.close()


def test_a_player_an_administrator_stood_up_is_told(fast: Server) -> None:
    """`svara admin table kick` (and «Поднять» on /admin, the same notice): why `admin`."""
    table = new_table(fast, "classic")
    ivan, maria = seat(fast, table, 2, 100, ("Иван", "Мария"))
    assert admin(fast, "table", "kick", str(table), maria.name)["kicked"] is True
    assert told(maria, "admin") == {"why": "admin"}
    assert maria.event("table:kicked") == {"table": table}
    for p in (ivan, maria):
        p.close()


def test_standing_up_oneself_needs_no_telling(fast: Server) -> None:
    """«Выйти» is his own doing: the news says `left`, and no `you.stood` follows him."""
    table = new_table(fast, "classic")
    ivan, maria = seat(fast, table, 2, 100, ("Иван", "Мария"))
    assert maria.call("table:stand") == {"ok": True}
    state = maria.until(lambda s: s["you"]["seat"] is None and s)
    assert state["you"]["stood"] is None
    assert stood(maria) == [{"kind": "stood", "player": maria.name, "why": "left"}]
    for p in (ivan, maria):
        p.close()


def test_a_page_asks_for_its_balance(fast: Server) -> None:
    """A change the running server was not told of (money put straight into the ledger, as a
    `svara admin balance grant` does when it sees no server): the page's `account:balance`
    reads it."""
    table = new_table(fast, "classic")
    (ivan,) = seat(fast, table, 1, 100, ("Иван",))
    assert balance(ivan) == {"ok": True, "balance": 100}
    grant(fast, ivan.name, 250)
    assert balance(ivan) == {"ok": True, "balance": 350}
    everyone([ivan], lambda s: s["you"]["seat"] is not None)
    ivan.close()
