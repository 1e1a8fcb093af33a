"""Table config: the shipped examples pass; unknown keys, wrong types and clashing pins name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge.deal import new_deal
from table_daemon.cli import main
from table_daemon.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[2]


def test_examples_are_valid() -> None:
    cfg = load_config(ROOT / "config/table.example.toml")
    assert cfg.table.id == "T07" and cfg.panels.pin_factory == "lgpio"
    assert cfg.panels.seats["W"].referee_button == 4 and cfg.panels.buzzer == 18
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


def example_here(tmp_path: Path) -> Path:
    """The shipped example with its files and devices made in ``tmp_path`` (this machine has no Pi's)."""
    text = (ROOT / "config/table.example.toml").read_text()
    for name in ("mqtt-password", "hall-ca.pem"):
        (tmp_path / name).write_text("x\n")
        text = text.replace(f"/etc/guandan/{name}", str(tmp_path / name))
    text = text.replace("/var/lib/guandan-table/journal.sqlite", str(tmp_path / "var/journal.sqlite"))
    text = text.replace('port = "/dev/ttyACM0"', f'port = "{tmp_path / "ttyACM0"}"')
    (tmp_path / "ttyACM0").touch()
    out = tmp_path / "table.toml"
    out.write_text(text)
    return out


def test_check_config_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(example_here(tmp_path))]) == 0
    assert '"ok": true' in capsys.readouterr().out
    assert main(["check-config", str(ROOT / "config/table.sim.toml")]) == 0
    capsys.readouterr()
    bad = tmp_path / "t.toml"
    bad.write_text('[table]\nid = "T1"\nprofil = "national"\n')
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{bad}:3: table.profil: unknown key" in err
    bad.write_text('[table]\nid = "T1"\nprofile = "nationale"\n')
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()  # the line too, as for every other key
    assert err.count("\n") == 0 and f"{bad}:3: table.profile: unknown profile" in err
    assert main(["check-config", str(tmp_path / "missing.toml")]) == 2
    capsys.readouterr()
    for text in ('[table]\nid = "T1"\n', '[table]\nevent = "open"\n', '[camera]\nsource = "sim://"\n'):
        bad.write_text(text)  # the demo's T01 of "demo" is no default for a real table
        assert main(["check-config", str(bad)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "missing: a real table names its" in err, err


BAD_VALUES = [
    ('[mqtt]\nurl = "mqtt://h:port"\n', ":2:", "mqtt.url: the port"),
    ('[mqtt]\nurl = "mqtt://h:70000"\n', ":2:", "mqtt.url: the port"),
    ('[mqtt]\nurl = "mqtt://h:0"\n', ":2:", "mqtt.url: the port"),
    ('[mqtt]\nprefix = "guandan/+/v1"\n', ":2:", "mqtt.prefix: bad topic prefix"),
    ('[mqtt]\nprefix = "guandan/#"\n', ":2:", "mqtt.prefix"),
    ('[mqtt]\nprefix = "a//b"\n', ":2:", "mqtt.prefix"),
    ('[mqtt]\nprefix = ""\n', ":2:", "mqtt.prefix"),
    ("[timing]\ntick_seconds = 0\n", ":2:", "timing.tick_seconds"),
    ("[timing]\ntick_seconds = -1\n", ":2:", "timing.tick_seconds"),
    ("[timing]\nplay_seconds = -5\n", ":2:", "timing.play_seconds"),
    ("[camera]\nmin_confidence = 7\n", ":2:", "camera.min_confidence"),
    ('[camera]\nreader = "yolo"\n', ":2:", "camera.reader: unknown card reader 'yolo'"),
    ('[camera]\nruntime = "tensorrt"\n', ":2:", "camera.runtime: unknown network runtime 'tensorrt'"),
    ('[camera]\nsource = "sim://?deck=nope"\n', ":2:", "camera.source: unknown deck design 'nope'"),
    ('[camera]\nsource = "sim://?colour=red"\n', ":2:", "camera.source: unknown setting 'colour'"),
    ("[camera]\nwidth = -1280\n", ":2:", "camera.width"),
    ("[camera]\nstable_frames = 0\n", ":2:", "camera.stable_frames"),
    ("[panels]\ndebounce_ms = -4\n", ":2:", "panels.debounce_ms"),
    ("[dealer]\nbaud = 0\n", ":2:", "dealer.baud"),
    ('[dealer]\nport = "sim://?bogus=1"\n', ":2:", "dealer.port: unknown sim:// option 'bogus'"),
    ('[dealer]\nport = "sim://?jam=2"\n', ":2:", "dealer.port: sim:// option jam=2 is a probability"),
    ('[journal]\npath = ""\n', ":2:", "journal.path"),
    ("[health]\ninterval_seconds = 0\n", ":2:", "health.interval_seconds"),
]


@pytest.mark.parametrize(("text", "where", "what"), BAD_VALUES)
def test_values_run_cannot_use_are_refused(text: str, where: str, what: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text, "table.toml")
    assert f"table.toml{where}" in str(err.value) and what in str(err.value)


def test_check_config_refuses_missing_files_and_devices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = example_here(tmp_path).read_text()
    (tmp_path / "a-file").write_text("x")
    twice = tmp_path / "boards.jsonl"  # board 1 written twice: the tables would all deal the first
    twice.write_text("\n".join(json.dumps(new_deal(1).deal_line(salted=False)) for _ in range(2)) + "\n")
    cases = [
        ('deal_file = ""', 'deal_file = "/nonexistent/boards.json"', "dealer.deal_file: no such file"),
        ('deal_file = ""', f'deal_file = "{twice}"', f"dealer.deal_file: {twice}:2: board 1 again"),
        ('deck = ""', 'deck = "/nonexistent/deck.npz"', "camera.deck: no such file"),
        ('deck = ""', f'deck = "{tmp_path / "a-file"}"', "camera.deck: 登记牌面文件无效 / not an enrolled deck file"),
        ('calibration = ""', 'calibration = "/nonexistent/cal.json"', "camera.calibration: no such file"),
        (f'port = "{tmp_path / "ttyACM0"}"', 'port = "/dev/ttyNOPE9"', "dealer.port: no such device"),
        (f'port = "{tmp_path / "ttyACM0"}"', 'port = "COM3"', "dealer.port: must be a device path"),
        (str(tmp_path / "var/journal.sqlite"), str(tmp_path / "a-file/journal.sqlite"), "journal.path"),
        (str(tmp_path / "var/journal.sqlite"), str(tmp_path), "journal.path"),
        (str(tmp_path / "mqtt-password"), str(tmp_path / "no-password"), "mqtt.password_file: no such file"),
        ('source = "picamera://"', 'source = "/dev/video99"', "camera.source: no such device"),
    ]
    for old, new, what in cases:
        assert old in good, old
        bad = tmp_path / "bad.toml"
        bad.write_text(good.replace(old, new, 1))
        key = what.split(":")[0].split(".")[1]
        line = next(i for i, text in enumerate(bad.read_text().splitlines(), 1) if text.startswith(f"{key} ="))
        assert main(["check-config", str(bad)]) == 2, what
        err = capsys.readouterr().err.strip()
        assert f"{bad}:{line}: {what}" in err and err.count("\n") == 0, (what, err)


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("[panels]\nbuzzer = 3\n", ":2:", "panels.buzzer: GPIO 3 是保留引脚 / is reserved for I²C SCL"),
        ("[panels]\nstatus_light = 2\n", ":2:", "I²C SDA"),
        ("[panels.seats.W]\npass_button = 4\nconfirm_button = 14\n", ":3:", "panels.seats.W.confirm_button: GPIO 14"),
        ("[panels.seats.N]\nturn_light = 10\n", ":2:", "SPI0 MOSI"),
        ("[panels]\nallow_pins = [7]\n\n[panels.seats.N]\nturn_light = 8\n", ":5:", "allow_pins = [8]"),
        ("[camera]\nexposure_us = 15000\n", ":2:", "multiple of 10000 µs"),
        ("[camera]\nflicker_hz = 60\nexposure_us = 20000\n", ":3:", "multiple of 8333 µs"),
        ("[camera]\nexposure_us = 80000\nfps = 15.0\n", ":2:", "longer than a frame"),
        ("[camera]\ncolour_gains = [1.5]\n", ":2:", "[red, blue]"),
        ("[camera]\nflicker_hz = 55\n", ":2:", "camera.flicker_hz"),
        ("[camera]\ncamera_num = 9\n", ":2:", "CAM1"),
    ],
)
def test_reserved_pins_and_camera_controls_are_checked(text: str, where: str, what: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text, "table.toml")
    assert f"table.toml{where}" in str(err.value) and what in str(err.value)


def test_a_reserved_pin_allowed_explicitly_and_fixed_camera_settings_pass() -> None:
    cfg = parse_config("[panels]\nallow_pins = [7, 8]\nstatus_light = 7\n\n[panels.seats.S]\nreport_light = 8\n"
                       "\n[camera]\nexposure_us = 30000\nflicker_hz = 50\nfps = 10.0\ncolour_gains = [2.0, 1.5]\n"
                       "lens_position = 2.5\n")
    assert cfg.panels.status_light == 7 and cfg.camera.colour_gains == [2.0, 1.5]
    assert parse_config("[camera]\nflicker_hz = 60\nexposure_us = 16667\n").camera.exposure_us == 16667


def test_the_example_keeps_i2c_spi_and_uart_free() -> None:
    from table_daemon.config import RESERVED_PINS

    cfg = load_config(ROOT / "config/table.example.toml")
    pins = [cfg.panels.status_light, cfg.panels.buzzer]
    pins += [v for seat in cfg.panels.seats.values() for v in vars(seat).values()]
    used = [p for p in pins if p]
    assert len(used) == len(set(used)) == 17 and not set(used) & set(RESERVED_PINS)
    assert cfg.panels.allow_pins == []


def test_check_config_names_a_reserved_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "config/table.example.toml").read_text().replace("buzzer = 18 ", "buzzer = 3  ")
    bad = tmp_path / "table.toml"
    bad.write_text(text)
    assert main(["check-config", str(bad)]) == 2
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith("buzzer = 3"))
    assert f"{bad}:{line}: panels.buzzer: GPIO 3" in capsys.readouterr().err


def test_check_config_names_the_runtime_a_reader_cannot_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = example_here(tmp_path).read_text()
    assert 'reader = ""' in good and 'runtime = "opencv"' in good
    bad = tmp_path / "bad.toml"
    bad.write_text(good.replace('reader = ""', 'reader = "glyphs"', 1).replace('runtime = "opencv"',
                                                                               'runtime = "onnxruntime"', 1))
    line = next(i for i, text in enumerate(bad.read_text().splitlines(), 1) if text.startswith("runtime ="))
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{bad}:{line}: camera.runtime: the network runtime 'onnxruntime' is for the learned reader" in err, err
