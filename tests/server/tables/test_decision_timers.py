"""Every decision a seed times gets its own full timer, and only the player whose own timer
ran out is stood up (C-1.7, C-5.2, C-5.3, C-7.3; docs/rules.md, «Timers»), over real
sockets with fast timers (tablekit.SCALE): the tests wait on the states the server sends."""

from __future__ import annotations

from typing import Any

from ..conftest import Server
from ..tablekit import SCALE, SLOW, Player, decide, everyone, new_table, seat, whose_turn

TURN = 60  # 1.2 s at SCALE: time enough to act, short enough to let a vote lapse
PERIOD = TURN * SCALE


def kinds(state: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in state["hand"]["events"] if e["kind"] == kind]


def left(state: dict[str, Any]) -> float:
    """How long the running hand timer had to go when the state was made (server time)."""
    return float(state["turn"]["deadline"] - state["now"])


def seated(state: dict[str, Any]) -> set[str]:
    return {s["name"] for s in state["seats"] if s}


NAMES = ("Иван", "Ёж", "мАрия", "Стоян")


def started(fast: Server, count: int, **rules: Any) -> list[Player]:
    """`count` players with 100 ₽ each in a classic hand that has just started."""
    table = new_table(fast, "classic", turn_seconds=TURN, **rules)
    players = seat(fast, table, count, 100, names=NAMES)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    return players


def to_the_vote(players: list[Player], folds: int, deal: str) -> tuple[Player, list[Player]]:
    """The first to act opens at 10, the next `folds` fold, the rest answer 10; the opener,
    on his closing turn, proposes `deal` (C-5.1). The proposer, and the players in turn
    order after him."""
    opener = whose_turn(players)
    assert decide(players, opener, do="bet", to=10) == {"ok": True}
    order = []
    for i in range(len(players) - 1):
        actor = whose_turn(players)
        order.append(actor)
        decision = {"do": "fold"} if i < folds else {"do": "bet", "to": 10}
        assert decide(players, actor, **decision) == {"ok": True}
    assert whose_turn(players) is opener
    assert decide(players, opener, do="propose", deal=deal) == {"ok": True}
    assert opener.hand["phase"] == "vote"  # type: ignore[index]
    return opener, order


def test_after_a_lapsed_vote_the_next_player_gets_his_own_full_turn(fast: Server) -> None:
    """C-5.3: the vote runs in the rest of the proposer's turn; nobody answers, the proposer
    folds (C-4.12) and the next player gets a full turn of his own, not what was left; the
    voters who did not answer are not stood up (C-1.7: it was not their timer), the
    proposer whose turn ran out is, when the hand ends."""
    players = started(fast, 3)
    proposer, (after, last) = to_the_vote(players, folds=0, deal="split")
    vote_deadline = proposer.state["turn"]["deadline"]
    assert proposer.state["turn"]["awaiting"] == sorted([after.name, last.name])
    cancelled = after.until(lambda s: kinds(s, "vote_cancelled") and s)
    assert [e["why"] for e in kinds(cancelled, "vote_cancelled")] == ["timeout"]
    folds = kinds(cancelled, "fold")
    assert [(e["player"], e.get("reason")) for e in folds] == [(proposer.name, "timeout")]
    assert cancelled["turn"]["awaiting"] == [after.name]
    assert cancelled["turn"]["deadline"] > vote_deadline
    assert left(cancelled) > PERIOD / 2
    assert after.hand["legal"]  # type: ignore[index]
    assert decide(players, after, do="fold") == {"ok": True}
    last.until(lambda s: s["phase"] == "waiting" and proposer.name not in seated(s))
    assert seated(last.state) == {after.name, last.name}
    assert kinds(last.state, "award")[0]["player"] == last.name
    for p in players:
        p.close()


def test_a_voter_who_lets_the_vote_lapse_keeps_his_seat(fast: Server) -> None:
    """C-5.3, C-1.7: heads up, the voter does not answer: the vote ends with the proposer's
    turn, he folds and the voter takes the pot; the voter keeps his seat (his non-answer is
    no agreement, and no timer of his ran out), the proposer is stood up."""
    players = started(fast, 2)
    proposer, (voter,) = to_the_vote(players, folds=0, deal="split")
    over = voter.until(lambda s: s["phase"] == "waiting" and s)
    assert [e["player"] for e in kinds(over, "award")] == [voter.name]
    assert seated(over) == {voter.name}
    assert over["hand"]["timed_out"] == [proposer.name]
    assert "ready" in over["you"]["can"]
    for p in players:
        p.close()


def test_the_svara_entry_after_a_cook_gets_its_own_full_timer(fast: Server) -> None:
    """C-5.4, C-7.3: after an agreed «Варить» every eligible player has the entry's own
    30 s (`svara_seconds`), all at once, not the rest of the proposer's turn; each decides."""
    players = started(fast, 4, svara_seconds=SLOW)
    proposer, (first, second, voter) = to_the_vote(players, folds=2, deal="cook")
    vote_deadline = proposer.state["turn"]["deadline"]
    assert decide(players, voter, do="agree") == {"ok": True}
    entry = first.until(lambda s: s["hand"]["phase"] == "svara_entry" and s)
    assert entry["turn"]["awaiting"] == sorted([first.name, second.name])
    assert entry["turn"]["deadline"] > vote_deadline
    assert left(entry) > PERIOD  # the entry's 12 s here, far more than a turn
    for buyer in (first, second):
        legal = buyer.until(lambda s: s["hand"]["phase"] == "svara_entry" and s["hand"]["legal"])
        assert {o["do"] for o in legal} == {"join", "skip"}
    assert decide(players, first, do="join") == {"ok": True}
    assert first.state["turn"]["deadline"] == entry["turn"]["deadline"]  # one shared deadline
    assert decide(players, second, do="skip") == {"ok": True}
    dealt = second.until(lambda s: s["hand"]["phase"] == "betting" and s)
    assert not [e for e in dealt["hand"]["events"] if e.get("timeout")]
    assert {p["name"] for p in dealt["hand"]["players"] if p["state"] == "active"} == {
        proposer.name,
        voter.name,
        first.name,
    }
    for p in players:
        p.close()


def test_the_first_turn_of_a_cooked_svara_is_a_full_one(fast: Server) -> None:
    """C-5.4, C-7.7: a «Варить» of two with nobody to buy in deals the Svara at once; its
    first turn (here the proposer's own) is a new turn with its full timer."""
    players = started(fast, 2)
    proposer, (voter,) = to_the_vote(players, folds=0, deal="cook")
    vote_deadline = proposer.state["turn"]["deadline"]
    assert decide(players, voter, do="agree") == {"ok": True}
    dealt = proposer.until(lambda s: kinds(s, "cook") and s["hand"]["phase"] == "betting" and s)
    assert dealt["turn"]["awaiting"] == [proposer.name]
    assert dealt["turn"]["deadline"] > vote_deadline
    assert left(dealt) > PERIOD / 2
    for p in players:
        p.close()


def test_a_voter_who_stands_up_refuses_and_the_proposers_turn_goes_on(fast: Server) -> None:
    """S-1.7, C-5.3: a voter standing up in a vote refuses it (as a drop does); the
    proposer's turn goes on in its own time and he is not folded for it."""
    players = started(fast, 3)
    proposer, (_, last) = to_the_vote(players, folds=0, deal="cook")
    vote_deadline = proposer.state["turn"]["deadline"]
    assert last.call("table:stand") == {"ok": True}
    back = proposer.until(lambda s: s["hand"]["phase"] == "betting" and s)
    assert [e["player"] for e in kinds(back, "refuse")] == [last.name]
    assert not kinds(back, "fold")
    assert back["turn"] == {"awaiting": [proposer.name], "deadline": vote_deadline}
    assert proposer.hand["legal"]  # type: ignore[index]
    everyone(players, lambda s: s["version"] >= back["version"])
    for p in players:
        p.close()


def test_a_proposer_who_stands_up_folds_and_the_next_turn_is_full(fast: Server) -> None:
    """S-1.7, C-5.3: the proposer standing up in his vote folds (an ordinary action, which
    cancels the proposal), and the next player has his own full turn."""
    players = started(fast, 3)
    proposer, (after, _) = to_the_vote(players, folds=0, deal="split")
    vote_deadline = proposer.state["turn"]["deadline"]
    assert proposer.call("table:stand") == {"ok": True}
    folded = after.until(lambda s: kinds(s, "fold") and s)
    assert [e["player"] for e in kinds(folded, "fold")] == [proposer.name]
    assert [e["why"] for e in kinds(folded, "vote_cancelled")] == ["cancelled"]
    assert folded["turn"]["awaiting"] == [after.name]
    assert folded["turn"]["deadline"] > vote_deadline and left(folded) > PERIOD / 2
    for p in players:
        p.close()
