"""VOICE_TICK_MS (docs/hosting.md «Settings»): the SFU's tick (rtc/ticks.py) as the host
sets it, passed to the SFU's command line; a value out of range stops the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.voice.settings import MAX_TICK_MS, VoiceSettings
from rtc.server import parse_args
from rtc.ticks import MAX_TICK


def command(tmp_path: Path, value: object) -> list[str]:
    return VoiceSettings.from_config({"VOICE_TICK_MS": value}, tmp_path).command()


def test_the_tick_goes_to_the_sfu_as_set(tmp_path: Path) -> None:
    assert "--tick-ms" not in command(tmp_path, None)  # the SFU's own default
    for value, ms in ((0, 0.0), ("4.5", 0.0045), (20, 0.02)):
        line = command(tmp_path, value)
        assert parse_args(line[line.index("--socket") :])[3] == pytest.approx(ms)


@pytest.mark.parametrize("value", [-1, 25, "десять", "nan", True, [10]])
def test_a_tick_out_of_range_stops_the_start_with_its_name(tmp_path: Path, value: object) -> None:
    with pytest.raises(ValueError, match="VOICE_TICK_MS"):
        command(tmp_path, value)


def test_the_web_side_and_the_sfu_agree_on_the_longest_tick() -> None:
    assert MAX_TICK_MS == MAX_TICK * 1000
