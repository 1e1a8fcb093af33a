"""Table config: the shipped examples pass; unknown keys, wrong types and clashing pins name file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_daemon.cli import main
from table_daemon.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[2]


def test_examples_are_valid() -> None:
    cfg = load_config(ROOT / "config/table.example.toml")
    assert cfg.table.id == "T07" and cfg.panels.pin_factory == "lgpio"
    assert cfg.panels.seats["W"].report_light == 8
    assert cfg.root == "guandan/v1/huaian-open/T07/"
    assert load_config(ROOT / "config/table.sim.toml").dealer.port.startswith("sim://")


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ('[table]\nid = "T1"\n\n[mqtt]\nurl = "mqtt://h:1"\nkeepalive_s = 3\n', ":6:", "mqtt.keepalive_s: unknown key"),
        ('[camera]\nfps = "fast"\n', ":2:", "camera.fps: must be a number"),
        ("[panels.seats.S]\npass_button = 5\nturn_light = 5\n", ":3:", "GPIO 5 is already used"),
        ("[panels.seats.Q]\npass_button = 5\n", ":1:", "unknown seat"),
        ('[mqtt]\nurl = "http://x"\n', ":2:", "bad broker URL"),
        ("[tabel]\nid = 1\n", ":1:", "tabel: unknown key"),
    ],
)
def test_bad_configs_name_key_file_and_line(text: str, where: str, what: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text, "table.toml")
    assert f"table.toml{where}" in str(err.value) and what in str(err.value)


def test_check_config_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(ROOT / "config/table.example.toml")]) == 0
    assert '"ok": true' in capsys.readouterr().out
    bad = tmp_path / "t.toml"
    bad.write_text('[table]\nid = "T1"\nprofil = "national"\n')
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{bad}:3: table.profil: unknown key" in err
    bad.write_text('[table]\nprofile = "nationale"\n')
    assert main(["check-config", str(bad)]) == 2
    assert "unknown profile" in capsys.readouterr().err
    assert main(["check-config", str(tmp_path / "missing.toml")]) == 2
