"""VOICE_TURN_SECRET and VOICE_PUBLIC_ADDRESS (docs/hosting.md «Voice through routers»): each
browser's own time-limited TURN login in coturn's use-auth-secret scheme, and the public
address stated in the SFU's answer without STUN."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path

from app.voice.settings import VoiceSettings, announce, turn_credentials

SECRET = "north-wind-7"
TURN = {"urls": ["turn:turn.example.org:3478?transport=udp"]}
STUN = {"urls": "stun:stun.example.org:3478"}


def settings(tmp_path: Path, **config: object) -> VoiceSettings:
    return VoiceSettings.from_config(
        {
            "VOICE_ICE_SERVERS": [STUN, {**TURN, "username": "static", "credential": "shared"}],
            **config,
        },
        tmp_path,
    )


def test_each_player_gets_his_own_expiring_turn_login(tmp_path: Path) -> None:
    voice = settings(tmp_path, VOICE_TURN_SECRET=SECRET, VOICE_TURN_TTL=600)
    ivan = voice.browser_ice_servers("Иван", now=1_800_000_000)
    maria = voice.browser_ice_servers("мАрия", now=1_800_000_000)
    assert ivan[0] == STUN  # STUN needs no login
    assert ivan[1]["username"] == "1800000600:%D0%98%D0%B2%D0%B0%D0%BD"
    expected = hmac.new(SECRET.encode(), ivan[1]["username"].encode(), hashlib.sha1).digest()
    assert ivan[1]["credential"] == base64.b64encode(expected).decode()
    assert maria[1]["username"] != ivan[1]["username"]
    assert maria[1]["credential"] != ivan[1]["credential"]
    assert "shared" not in json.dumps([ivan, maria])
    # The SFU gets no TURN login that would expire under it; STUN it keeps.
    sfu = json.loads(voice.command()[voice.command().index("--ice-servers") + 1])
    assert sfu == [STUN]


def test_without_a_secret_the_list_is_given_as_configured(tmp_path: Path) -> None:
    voice = settings(tmp_path)
    assert voice.browser_ice_servers("Ёж")[1]["credential"] == "shared"


def test_a_name_with_a_colon_stays_one_user_field() -> None:
    username, _ = turn_credentials(SECRET, "a:b 🃏", 60, 100)
    assert username == "160:a%3Ab%20%F0%9F%83%8F"


ANSWER = "\r\n".join(
    [
        "v=0",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111",
        "a=candidate:0b1a2f0e 1 udp 2130706431 192.168.1.10 40003 typ host",
        "a=candidate:7c1d 1 udp 2130706431 fd00::2 40004 typ host",
        "a=end-of-candidates",
        "",
    ]
)


def test_the_public_address_is_offered_next_to_the_hosts_own() -> None:
    lines = announce(ANSWER, "203.0.113.9").split("\r\n")
    host = lines.index("a=candidate:0b1a2f0e 1 udp 2130706431 192.168.1.10 40003 typ host")
    assert lines[host + 1] == (
        "a=candidate:srflx20301139 1 udp 1065353215 203.0.113.9 40003 typ srflx "
        "raddr 192.168.1.10 rport 40003"
    )
    assert sum("203.0.113.9" in line for line in lines) == 1  # IPv6 is left alone
    assert lines[-2:] == ["a=end-of-candidates", ""]
