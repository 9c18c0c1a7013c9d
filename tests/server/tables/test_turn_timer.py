"""The hand timer of `Play` in every game, on a clock the test moves (docs/rules.md,
«Timers»): each newly timed decision gets its phase's full period; players deciding at once
share one deadline; a timeout is declared only for those whose own timer ran out. The
sockets' side of the same is tests/server/tables/test_decision_timers.py."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from app.engine import games
from app.engine.games import get_variant
from app.engine.hand import Action, Hand, Seat
from app.tables.play import Play
from tests.engine.handkit import scripted

START = 1000.0


class Clock:
    """The part of the scheduler `Play` uses, on a clock the test sets; nothing fires."""

    def __init__(self) -> None:
        self.now = START

    def deadline_in(self, seconds: float) -> float:
        return self.now + seconds

    def set(self, key: Hashable, deadline: float, fire: Callable[[], None]) -> None:
        pass

    def cancel(self, key: Hashable) -> None:
        pass


class Unstored:
    """The store's side `Play.apply` writes to; nothing is kept."""

    def record(self, *written: Any) -> None:
        pass


def timed(hand: Hand) -> tuple[Play, Clock]:
    """`hand` in play at a table, its first decision timed."""
    clock = Clock()
    play = Play(1, Unstored(), clock, games.game(hand.game).manners, lambda token: None)  # type: ignore[arg-type]
    play.resume(1, hand, [], "")
    play.advance(lambda name: False)
    return play, clock


def step(play: Play, clock: Clock, *actions: str, after: float = 1.0) -> None:
    """`after` seconds later, each action («A call», «B raise 20», «C propose cook») in
    turn."""
    clock.now += after
    for text in actions:
        player, do, *more = text.split()
        to = int(more[0]) if more and more[0].isdigit() else None
        deal = more[0] if more and to is None else None
        play.apply(Action(player, do, to, deal))
        play.advance(lambda name: False)


def left(play: Play, clock: Clock) -> float:
    assert play.turn is not None
    return play.turn.deadline - clock.now


def test_shaha36_tie_vote_shares_its_time_and_each_buy_in_has_its_own() -> None:
    """S-7.1: both tied vote at once in `tie_seconds` (one deadline); S-7.3: each buy-in
    offer has `buy_in_seconds` of its own; the Svara deal's first turn its full turn."""
    tie = {"A": "K♠ 9♥ 7♦", "B": "Q♦ 8♣ 7♥", "C": "8♥ 7♠ 6♦"}  # 10, 10, 8
    svara = {"A": "A♥ K♥ Q♥", "B": "8♦ 9♠ 6♣", "C": "J♣ 9♦ 8♠"}
    seats = [Seat(p, 1000) for p in "ABC"]
    variant = get_variant("shaha36", {"tie_seconds": 10, "buy_in_seconds": 12})
    play, clock = timed(games.hand_class("shaha36")(variant, seats, "C", scripted(tie, svara)))
    step(play, clock, "A bet 10", "B call", "C fold")
    assert play.hand is not None and play.hand.phase == "tie"
    assert play.turn is not None and play.turn.awaiting == {"A", "B"} and left(play, clock) == 10
    vote = play.turn.deadline
    step(play, clock, "A cook", after=4)  # the first cook starts the Svara: the buy-in
    assert play.hand.phase == "buy_in" and play.turn.awaiting == {"C"}
    assert left(play, clock) == 12 and play.turn.deadline > vote
    step(play, clock, "C skip", after=5)
    assert play.hand.phase == "betting" and left(play, clock) == variant["turn_seconds"]


def test_shaha36_tie_vote_timeout_is_each_silent_players() -> None:
    """S-7.1: one tied player votes, the other lets the shared deadline pass: only he
    timed out (a timeout counts as a split), and the pot is split."""
    tie = {"A": "K♠ 9♥ 7♦", "B": "Q♦ 8♣ 7♥", "C": "8♥ 7♠ 6♦"}
    seats = [Seat(p, 1000) for p in "ABC"]
    play, clock = timed(
        games.hand_class("shaha36")(get_variant("shaha36"), seats, "C", scripted(tie))
    )
    step(play, clock, "A bet 10", "B call", "C fold")
    assert play.turn is not None
    vote = play.turn.deadline
    step(play, clock, "A split", after=2)
    assert play.turn.awaiting == {"B"} and play.turn.deadline == vote  # one deadline
    result = play.timeout(play.turn.token)
    assert result is not None and result[1] == ["B"]
    assert play.hand is not None and play.hand.finished


def test_svara32_entry_has_its_own_time_for_everyone_and_the_svara_deal_a_full_turn() -> None:
    """B-5.2: the outsiders decide at once in `svara_seconds`, not in the rest of the last
    turn; when both let it pass, each of them timed out, and the Svara is dealt with a
    full turn (B-1.5)."""
    tie = {"anna": "K♠ Q♦ 9♥", "boris": "K♥ Q♣ 9♦", "vera": "8♠ 7♦ 9♣", "gleb": "8♦ 7♥ 9♠"}
    svara = {"anna": "A♠ K♦ 9♥", "boris": "K♥ Q♣ 9♦"}
    seats = [Seat(n, 100) for n in ("anna", "boris", "vera", "gleb")]
    variant = get_variant("svara32", {"svara_seconds": 20})
    hand = games.hand_class("svara32")(variant, seats, "anna", scripted(tie, svara))
    play, clock = timed(hand)
    step(play, clock, "boris call", "vera call", "gleb call", "anna call", after=25)
    assert hand.phase == "svara_entry" and play.turn is not None
    assert play.turn.awaiting == {"vera", "gleb"} and left(play, clock) == 20
    clock.now += 20
    result = play.timeout(play.turn.token)
    assert result is not None and sorted(result[1]) == ["gleb", "vera"]
    play.advance(lambda name: False)
    assert hand.phase == "betting" and left(play, clock) == variant["turn_seconds"]


def test_classic_dark_choice_after_a_cook_has_its_own_time() -> None:
    """C-7.5: the dark player proposes «Варить» on his closing turn; agreed, with nobody
    able to buy in, his dark choice comes at once: a decision of its own with a full timer,
    not the rest of the turn the vote ran in (C-5.3)."""
    first = {
        "boris": "10♠ J♠ 6♦",
        "vera": "10♥ J♥ 7♣",
        "gleb": "7♠ 8♦ 9♣",
        "anna": "A♥ K♥ Q♥",
    }
    svara = {"boris": "A♥ K♥ Q♥", "vera": "7♠ 8♦ 9♣"}
    money = {"anna": 10, "boris": 200, "vera": 200, "gleb": 10}  # anna, gleb: the ante only
    seats = [Seat(n, m) for n, m in money.items()]
    variant = get_variant("classic", {"turn_seconds": 30})
    hand = games.hand_class("classic")(variant, seats, "anna", scripted(first, svara), "boris")
    play, clock = timed(hand)
    step(play, clock, "vera bet 30", "boris bet 30", "vera give_on")
    assert play.turn is not None and play.turn.awaiting == {"boris"}
    step(play, clock, "boris propose cook", after=10)  # the vote runs in his turn's time
    assert hand.phase == "vote" and play.turn.awaiting == {"vera"}
    assert play.turn.owners == {"boris"} and left(play, clock) == 20
    step(play, clock, "vera agree", after=10)
    assert hand.phase == "dark_decision" and play.turn.awaiting == {"boris"}
    assert left(play, clock) == 30
