"""`svara admin table …`, `seed` and `variant …` through click's runner: tables through the
lobby's own `create_table`, custom variants checked against the game's parameters, a close
that refunds the hand in play (C-8.5) and returns the stacks (S-1.5)."""

from __future__ import annotations

from sqlmodel import select

from app import ledger
from app.auth.service import find_user
from app.engine.games import GAME_PARAMS, get_variant
from app.models import CANCELLED, PLAYING, CustomVariant, HandRecord, Table

from .conftest import Admin, play


def test_create_list_show_with_overrides(admin: Admin) -> None:
    made = admin.ok(
        "table", "create", "Вечер", "--variant", "classic", "--seats", "4", "--ante", "20",
        "--set", "levels=20,40,60", "--set", "dark=no", "--private",
    )  # fmt: skip
    assert (made["seats"], made["ante"], made["private"], made["bots"]) == (4, 20, True, 0)
    shown = admin.ok("table", "show", "Вечер")
    assert shown["overrides"] == {"ante": 20, "levels": [20, 40, 60], "dark": False}
    assert shown["rules"]["levels"] == [20, 40, 60] and shown["rules"]["seats"] == 4
    assert admin.ok("table", "show", str(made["id"]))["name"] == "Вечер"
    assert [t["name"] for t in admin.ok("table", "list")] == ["Вечер"]
    human = admin.run("table", "list")
    assert human.stdout.split("\n")[0].split()[:3] == ["id", "name", "variant"]


def test_bots_switch_off_the_rake_where_the_game_knows_bots(admin: Admin) -> None:
    """S-8.2: no rake at a table with a bot — shaha36's `bots` rule is set with --bots."""
    made = admin.ok("table", "create", "Шаха", "--variant", "shaha36", "--bots", "2")
    assert made["bots"] == 2
    assert admin.ok("table", "show", "Шаха")["rules"]["bots"] is True
    classic = admin.ok("table", "create", "K", "--variant", "classic", "--bots", "1")
    assert classic["bots"] == 1 and "bots" not in admin.ok("table", "show", "K")["rules"]


def test_table_refusals_change_nothing(admin: Admin) -> None:
    admin.ok("table", "create", "A", "--variant", "classic")
    admin.refused("table", "create", "B", "--variant", "poker", match="unknown variant")
    admin.refused("table", "create", "B", "--variant", "classic", "--seats", "9", match="seats")
    admin.refused(
        "table", "create", "B", "--variant", "shaha36", "--set", "levels=1", match="'levels'"
    )
    admin.refused(
        "table", "create", "B", "--variant", "classic", "--set", "ante", match="key=value"
    )
    admin.refused("table", "create", "B", "--variant", "classic", "--ante", "0", match="ante")
    admin.refused(
        "table", "create", "B", "--variant", "classic", "--seats", "3", "--bots", "3", match="bots"
    )
    admin.refused("table", "create", " ", "--variant", "classic", match="1 to 64")
    admin.refused("table", "show", "nothing", match="no open table")
    admin.refused("table", "show", "99", match="no table with id 99")
    admin.refused("table", "close", "nothing", match="no open table")
    admin.refused("table", "kick", "A", "nobody", match="unknown user")
    admin.user("anna")
    admin.refused("table", "kick", "A", "anna", match="no server is running")
    admin.ok("table", "create", "A", "--variant", "classic")
    admin.refused("table", "show", "A", match="several open tables")


def test_seed_is_idempotent(admin: Admin) -> None:
    made = admin.ok("seed")
    assert {t["variant"] for t in made} >= {"classic", "shaha36", "svara32"}
    assert admin.ok("seed") == []
    assert len(admin.ok("table", "list")) == len(made)


def test_close_refunds_the_hand_in_play_and_returns_stacks(admin: Admin) -> None:
    """C-8.5 and S-1.5: without a server the CLI closes in the database itself."""
    names = ["anna", "boris", "vera"]
    for name in names:
        admin.user(name)
        admin.ok("balance", "grant", name, "1000", "--reason", "start")
    table = admin.ok("table", "create", "Шаха", "--variant", "shaha36")
    with admin.db.session() as s:  # S-1.5: each sits down with a stack of 300
        for name in names:
            user = find_user(s, name)
            assert user is not None and user.id is not None
            ledger.buy_in(s, user.id, table["id"], 300)
    finished = play(admin.db, table["id"], names, get_variant("shaha36"), "close:0")
    in_play = play(admin.db, table["id"], names, get_variant("shaha36"), "close:1", stop_after=1)
    assert admin.ok("ledger", "verify")["ok"]
    shown = admin.ok("table", "show", "Шаха")
    assert shown["in_play"] == in_play and set(shown["stacks"]) == set(names)
    closed = admin.ok("table", "close", "Шаха")
    assert closed["cancelled_hands"] == [in_play] and closed["server"] is False
    balances = sum(admin.ok("balance", "show", n)["balance"] for n in names)
    assert balances == 3 * 700 + sum(closed["returned_stacks"].values())
    report = admin.ok("ledger", "verify")
    assert report["ok"] and report["in_play"] == 0 and report["balances"] == 3000  # + rake
    assert all(admin.ok("balance", "show", n)["stacks"] == {} for n in names)
    with admin.db.session() as s:
        assert s.get(HandRecord, in_play).status == CANCELLED  # type: ignore[union-attr]
        assert s.get(HandRecord, finished).status != PLAYING  # type: ignore[union-attr]
        assert s.exec(select(Table.closed).where(Table.id == table["id"])).one()
    admin.refused("table", "close", str(table["id"]), match="already closed")
    assert admin.ok("table", "list") == []
    assert [t["id"] for t in admin.ok("table", "list", "--all")] == [table["id"]]


def test_variants_create_show_use_delete(admin: Admin) -> None:
    names = [v["name"] for v in admin.ok("variant", "list")]
    assert names[:3] == ["classic", "shaha36", "svara32"]
    shown = admin.ok("variant", "show", "shaha36")
    assert [p["key"] for p in shown["params"]] == list(GAME_PARAMS["shaha36"])
    rake = next(p for p in shown["params"] if p["key"] == "rake_percent")
    assert (rake["value"], rake["low"], rake["high"]) == (3, 0, 100) and "S-8.1" in rake["doc"]
    made = admin.ok("variant", "create", "quick", "--from", "classic", "--set", "turn_seconds=10",
                    "--set", "levels=20,40,60")  # fmt: skip
    assert (made["name"], made["game"], made["base"]) == ("quick", "classic", "classic")
    faster = admin.ok("variant", "create", "quicker", "--from", "quick", "--set", "ante=20")
    assert faster["base"] == "classic"  # stored against the preset, with both sets of rules
    rules = {p["key"]: p["value"] for p in admin.ok("variant", "show", "quicker")["params"]}
    assert (rules["turn_seconds"], rules["levels"], rules["ante"]) == (10, [20, 40, 60], 20)
    with admin.db.session() as s:
        stored = s.exec(select(CustomVariant).where(CustomVariant.name == "quicker")).one()
        assert stored.rules == {"turn_seconds": 10, "levels": [20, 40, 60], "ante": 20}
    table = admin.ok("table", "create", "Быстрый", "--variant", "quicker", "--seats", "4")
    assert (table["variant"], table["game"], table["ante"]) == ("quicker", "classic", 20)
    human = admin.run("variant", "show", "quicker")
    assert "turn_seconds" in human.stdout and "5..600" in human.stdout
    admin.refused("variant", "delete", "quicker", match="in use by the open table(s) Быстрый")
    admin.ok("table", "close", str(table["id"]))
    assert admin.ok("variant", "delete", "quicker")["deleted"]
    assert admin.ok("table", "list", "--all")[0]["game"] is None  # still listed, rules gone
    assert "quicker" not in [v["name"] for v in admin.ok("variant", "list")]
    assert get_variant("classic")["turn_seconds"] == 30  # the presets are untouched


def test_variant_refusals_change_nothing(admin: Admin) -> None:
    admin.ok("variant", "create", "quick", "--from", "classic")
    for rule, why in (
        ("nope=1", "unknown rule key 'nope'"),
        ("ante=0", "ante must be between"),
        ("dark=maybe", "true or false"),
    ):
        admin.refused("variant", "create", "x2", "--from", "classic", "--set", rule, match=why)
    admin.refused("variant", "create", "x2", "--from", "poker", match="unknown variant")
    admin.refused("variant", "create", "quick", "--from", "classic", match="exists")
    admin.refused("variant", "create", "classic", "--from", "classic", match="exists")
    admin.refused("variant", "create", "a b", "--from", "classic", match="a variant name")
    admin.refused("variant", "delete", "classic", match="preset")
    admin.refused("variant", "delete", "nothing", match="unknown variant")
    admin.refused("variant", "show", "nothing", match="unknown variant")
