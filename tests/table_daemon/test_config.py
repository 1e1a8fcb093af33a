"""Table config: the shipped examples pass; unknown keys, wrong types and clashing pins name file and line."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from firmware_bridge.deal import new_deal
from table_daemon import config_check
from table_daemon.cli import main
from table_daemon.config import ConfigError, load_config, parse_config
from table_daemon.config_check import load_checked
from tests.tls import self_signed

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
    """The shipped example with its files and devices made in ``tmp_path`` (this machine has no Pi's): the CA file
    a real certificate, as the MQTT connection loads it."""
    text = (ROOT / "config/table.example.toml").read_text()
    (tmp_path / "mqtt-password").write_text("x\n")
    shutil.copy(self_signed(tmp_path)[0], tmp_path / "hall-ca.pem")
    for name in ("mqtt-password", "hall-ca.pem"):
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
    ('[mqtt]\nurl = "mqtt://broker hall"\n', ":2:", "mqtt.url: bad broker URL 'mqtt://broker hall': 主机名无效"),
    ('[mqtt]\nurl = "mqtts://broker..lan:8883"\n', ":2:", "is not a host name or IP address"),
    ('[mqtt]\nurl = "mqtt://-broker:1883"\n', ":2:", "is not a host name or IP address"),
    ('[mqtt]\nurl = "mqtt://999.0.0.1"\n', ":2:", "is not a host name or IP address"),
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
    (tmp_path / "cal.json").write_text('{"bogus": 1}')  # found, read and not a calibration: run stopped with a traceback
    (tmp_path / "cal.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    cases = [
        ('calibration = ""', f'calibration = "{tmp_path / "a-file"}"', "camera.calibration: cannot read calibration"),
        ('calibration = ""', f'calibration = "{tmp_path / "cal.json"}"', "camera.calibration: calibration "),
        ('calibration = ""', f'calibration = "{tmp_path / "cal.bin"}"', "camera.calibration: cannot read calibration"),
        ('deal_file = ""', 'deal_file = "/nonexistent/boards.json"', "dealer.deal_file: no such file"),
        ('deal_file = ""', f'deal_file = "{twice}"', f"dealer.deal_file: {twice}:2: board 1 again"),
        ('deck = ""', 'deck = "/nonexistent/deck.npz"', "camera.deck: no such file"),
        ('deck = ""', f'deck = "{tmp_path / "a-file"}"', "camera.deck: 登记牌面文件无效 / not an enrolled deck file"),
        ('calibration = ""', 'calibration = "/nonexistent/cal.json"', "camera.calibration: no such file"),
        (f'port = "{tmp_path / "ttyACM0"}"', 'port = "COM3"', "dealer.port: must be a device path"),
        (str(tmp_path / "var/journal.sqlite"), str(tmp_path / "a-file/journal.sqlite"), "journal.path"),
        (str(tmp_path / "var/journal.sqlite"), str(tmp_path), "journal.path"),
        (str(tmp_path / "mqtt-password"), str(tmp_path / "no-password"), "mqtt.password_file: no such file"),
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
        ('[camera]\nfps = 10.0\ncolour_gains = [1.9, "x"]\n', ":3:", "camera.colour_gains.1: must be a number"),
        ('[table]\nid = "T1"\nsoftware_seats = ["S", "X"]\n', ":3:", "table.software_seats.1: unknown seat"),
        ('[camera]\nfps = 10.0\n"帧率" = 10\n', ":3:", "camera.帧率: unknown key"),
        ("[camera]\nflicker_hz = 55\n", ":2:", "camera.flicker_hz"),
        ("[camera]\ncamera_num = 9\n", ":2:", "CAM1"),
        ("[camera]\nfps = nan\n", ":2:", "camera.fps: must be a finite number"),  # passed before
        ("[camera]\ncolour_gains = [1.5, inf]\n", ":2:", "camera.colour_gains.1: must be a finite number"),
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


def test_hosts_that_are_names_or_addresses_pass() -> None:
    for url in ("mqtts://broker.hall.lan:8883", "mqtt://10.0.0.2", "mqtt://[::1]:1883", "mqtt://mqtt_broker",
                "mqtt://localhost.", "mqtt://裁判机.lan"):
        assert parse_config(f'[mqtt]\nurl = "{url}"\n').mqtt.url == url


@pytest.mark.parametrize(
    ("text", "line", "quoted", "seats"),
    [
        ('[table]\nid = "T1"\n\n[camera]\n帧率 = 10\n', 5, "「帧率 = 10」", False),
        ("[panels.seats.南]\npass_button = 5\n", 1, "「[panels.seats.南]」", True),
        ("[camera]\nfps ＝ 10\n", 2, "「fps ＝ 10」", False),
    ],
)
def test_a_chinese_key_is_named_with_its_line_and_keys_are_said_to_be_ascii(text: str, line: int, quoted: str,
                                                                           seats: bool) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text, "table.toml")
    message = str(err.value)
    assert message.startswith(f"table.toml:{line}: not valid TOML: ") and "\n" not in message, message
    assert quoted in message and "键名须为英文" in message and "keys are ASCII names such as fps" in message
    assert ("seats are S, E, N, W" in message) is seats


def test_other_toml_errors_quote_the_line_without_the_ascii_hint() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config("[camera]\nfps = 1.2.3\n", "table.toml")
    assert str(err.value).startswith("table.toml:2: not valid TOML: ") and "「fps = 1.2.3」" in str(err.value)
    assert "ASCII" not in str(err.value)


def minimal(tmp_path: Path, **sections: str) -> Path:
    """A real table's config naming its table and event, with ``sections`` (name -> body) added."""
    text = '[table]\nid = "T1"\nevent = "e1"\n\n[journal]\npath = ":memory:"\n'
    for name, body in sections.items():
        text += f"\n[{name}]\n{body}"
    out = tmp_path / "table.toml"
    out.write_text(text)
    return out


def line_of(path: Path, start: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith(start))


def test_a_ca_file_that_holds_no_certificate_is_refused_by_check_config_and_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A CA file that exists but is no certificate passed check-config, and ``run`` crashed in paho's tls_set
    with a traceback ending in ``ssl.SSLError: [X509: NO_CERTIFICATE_OR_CRL_FOUND]``."""
    ca = tmp_path / "x.pem"
    ca.write_text("plain text\n")
    bad = minimal(tmp_path, mqtt=f'url = "mqtts://127.0.0.1:1883"\nca_file = "{ca}"\n')
    for argv in (["check-config", str(bad)], ["run", "--config", str(bad)]):
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        err = captured.err.strip()
        assert err.count("\n") == 0 and f"{bad}:{line_of(bad, 'ca_file')}: mqtt.ca_file: {ca}: " in err, err
        assert "no CA certificate" in err and "Traceback" not in err and '"ok"' not in captured.out


def test_client_certificate_and_key_are_loaded_as_the_connection_loads_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ca, _ = self_signed(tmp_path, "ca")
    cert, key = self_signed(tmp_path, "client")
    _, other_key = self_signed(tmp_path, "other")
    text = tmp_path / "text.pem"
    text.write_text("plain text\n")
    base = f'url = "mqtts://127.0.0.1:8883"\nca_file = "{ca}"\n'
    good = minimal(tmp_path, mqtt=base + f'cert_file = "{cert}"\nkey_file = "{key}"\n')
    assert main(["check-config", str(good)]) == 0
    assert '"ok": true' in capsys.readouterr().out
    cases = [
        (f'cert_file = "{cert}"\nkey_file = "{other_key}"\n', "key_file", "does not belong to the certificate"),
        (f'cert_file = "{text}"\nkey_file = "{key}"\n', "cert_file", "no certificate (PEM)"),
        (f'cert_file = "{cert}"\nkey_file = "{text}"\n', "key_file", "no private key"),
        (f'cert_file = "{cert}"\n', "cert_file", "no private key"),
        (f'key_file = "{key}"\n', "key_file", "needs its certificate"),
    ]
    for body, setting, what in cases:
        bad = minimal(tmp_path, mqtt=base + body)
        assert main(["check-config", str(bad)]) == 2, body
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and f"{bad}:{line_of(bad, setting)}: mqtt.{setting}: " in err, err
        assert what in err, err


@pytest.fixture
def no_devices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine without video devices (``/dev`` is an empty folder), picamera2 or lgpio."""
    dev = tmp_path / "dev"
    dev.mkdir()
    monkeypatch.setattr(config_check, "DEV", dev)
    monkeypatch.setattr(sys, "platform", "linux")
    for module in ("picamera2", "lgpio"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails, as where it is not installed
    return dev


def test_devices_absent_here_are_warnings_naming_key_file_and_line(
        tmp_path: Path, no_devices: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The table starts without them and reports them missing, so check-config still passes (exit 0, ok), but
    says each one on stderr, one line each, naming key, file and line, in Chinese and English."""
    cases = [
        ('source = "usb://9"\n', "camera", "camera.source: 摄像头不存在 | no camera"),
        ('source = "9"\n', "camera", f"no camera {no_devices / 'video9'}"),
        ('source = "picamera://"\n', "camera", "camera.source: Pi 摄像头不可用 | the Pi camera cannot be used here: "
                                                "picamera2 is not installed"),
        ('pin_factory = "lgpio"\n', "panels", "panels.pin_factory: 引脚驱动 lgpio 无法导入 | the pin driver lgpio"),
        ('source = "/dev/video99"\n', "camera", "camera.source: 摄像头不存在 | no camera /dev/video99"),
        ('port = "/dev/ttyNOPE9"\n', "dealer", "dealer.port: 发牌机不存在 | no such device: /dev/ttyNOPE9"),
    ]
    for body, section, what in cases:
        cfg = minimal(tmp_path, **{section: body})
        assert main(["check-config", str(cfg)]) == 0, body
        captured = capsys.readouterr()
        said = json.loads(captured.out)
        assert said["ok"] is True and [w for w in said["warnings"] if what in w] == said["warnings"][-1:]
        err = [line for line in captured.err.splitlines() if what in line]
        key = body.split(" ")[0]
        assert len(err) == 1 and err[0].startswith(f"guandan-table: warning: {cfg}:{line_of(cfg, key)}: "), err
        warnings: list[str] = []
        load_checked(cfg, warnings)
        assert warnings == said["warnings"]
        capsys.readouterr()


#: each seat's pass and confirm buttons, as a table where people play has them
FOUR_SEATS = "".join(f"\n[panels.seats.{seat}]\npass_button = {a}\nconfirm_button = {b}\n"
                     for seat, a, b in (("S", 4, 17), ("E", 27, 22), ("N", 5, 6), ("W", 13, 19)))


def test_devices_that_are_there_give_no_warning(tmp_path: Path, no_devices: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (no_devices / "video0").touch()
    picamera2 = types.ModuleType("picamera2")
    picamera2.Picamera2 = object  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", picamera2)
    monkeypatch.setitem(sys.modules, "lgpio", types.ModuleType("lgpio"))
    for section, body in (("camera", 'source = "usb://0"\n'), ("camera", 'source = "picamera://"\n'),
                          ("panels", 'pin_factory = "lgpio"\n' + FOUR_SEATS), ("panels", 'pin_factory = "mock"\n')):
        warnings: list[str] = []
        load_checked(minimal(tmp_path, **{section: body}), warnings)
        assert warnings == [] and capsys.readouterr().err == "", body


def test_every_pin_factory_a_config_accepts_is_one_the_panels_can_be_built_on() -> None:
    from hardware.panels import make_pin_factory
    from table_daemon.config import PIN_FACTORIES

    for name in PIN_FACTORIES:
        try:
            make_pin_factory(name)
        except Exception as exc:  # a real driver not installed here, or no Pi: the factory is known all the same
            assert "unknown pin factory" not in str(exc), name
    with pytest.raises(ConfigError, match="unknown pin factory 'pigpio'"):
        parse_config('[panels]\npin_factory = "pigpio"\n', "table.toml")


def test_a_table_where_people_play_needs_each_seats_buttons(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A real pin factory with seats left out of [panels.seats.*] (nor played by software) was "ok"."""
    only_s = '[panels]\npin_factory = "native"\n\n[panels.seats.S]\npass_button = 5\nconfirm_button = 6\n'
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[table]\nid = "T1"\nevent = "e1"\nsoftware_seats = ["W"]\n\n[journal]\npath = ":memory:"\n\n'
                   f'{only_s}')
    warnings: list[str] = []
    load_checked(cfg, warnings)
    assert [w for w in warnings if "seat E, N: no pass or confirm button" in w]
    capsys.readouterr()


def test_a_journal_cut_short_is_one_line_in_check_config_and_run(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A power cut mid-write on a card that lies about its writes: the journal file is cut short. `run` died
    with a traceback (after replaying half the match), `check-config` said ok."""
    from table_daemon.adapters.journal import Journal, JournalError

    table_toml = example_here(tmp_path)
    path = tmp_path / "var/journal.sqlite"
    journal = Journal(path)
    for i in range(400):
        journal.record(float(i), "tick", {"pad": "x" * 200}, [], [])
    journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    journal.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert main(["check-config", str(table_toml)]) == 2
    err = capsys.readouterr().err.strip()
    assert "journal.path: the journal" in err and "damaged" in err and err.count("\n") == 0, err
    with pytest.raises(JournalError, match="damaged"):
        Journal(path)
    assert main(["run", "--config", str(table_toml)]) == 2  # run checks the same, before it opens anything
    assert "damaged" in capsys.readouterr().err


def test_a_journal_mirror_is_checked_and_a_sound_one_stands_for_a_damaged_journal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``[journal] mirror``: named as the journal itself, or on a stick not mounted, it is refused naming the key;
    with a sound mirror a damaged journal is no error (the table takes up the mirror at its start)."""
    from table_daemon.adapters.journal import Journal

    table_toml = example_here(tmp_path)
    text = table_toml.read_text()
    journal = str(tmp_path / "var/journal.sqlite")
    for mirror, said in ((journal, "journal.mirror: must name a file on other storage"),
                         (str(tmp_path / "usb/mirror.sqlite"), "journal.mirror: " + str(tmp_path / "usb") +
                          " is not a directory: is the USB stick mounted?")):
        table_toml.write_text(text.replace('mirror = ""', f'mirror = "{mirror}"'))
        assert main(["check-config", str(table_toml)]) == 2
        assert said in capsys.readouterr().err
    (tmp_path / "usb").mkdir()
    j = Journal(journal)
    j.set_meta("runs", "2")
    j.copy_to(tmp_path / "usb/mirror.sqlite")
    j.close()
    Path(journal).write_bytes(b"damaged" * 500)
    for suffix in ("-wal", "-shm"):
        Path(journal + suffix).unlink(missing_ok=True)
    assert main(["check-config", str(table_toml)]) == 0, capsys.readouterr().err
    (tmp_path / "usb/mirror.sqlite").write_bytes(b"damaged too" * 500)
    assert main(["check-config", str(table_toml)]) == 2
    assert "journal.path: the journal" in capsys.readouterr().err


def test_a_full_disk_at_start_is_one_line_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from table_daemon.adapters.journal import Journal

    def full(self: Journal, key: str, value: str) -> None:  # the fault: SQLite's own error for a full card
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Journal, "set_meta", full)
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[table]\nid = "T1"\nevent = "e1"\n\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    assert main(["run", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("guandan-table: journal") and "full" in err and "SD card" in err, err
    assert err.count("\n") == 0


def test_a_config_saved_by_notepad_is_read_and_one_in_gbk_is_said_as_such(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Windows Notepad puts a byte-order mark first (tomllib then said "Invalid statement at line 1, column 1");
    older Chinese Notepads save ANSI (GBK), which is not UTF-8 and is said so."""
    good = example_here(tmp_path).read_text(encoding="utf-8")
    marked = tmp_path / "marked.toml"
    marked.write_text("\ufeff" + good, encoding="utf-8")
    assert main(["check-config", str(marked)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    gbk = tmp_path / "gbk.toml"
    gbk.write_bytes(("# 淮安公开赛 第7桌\n" + good).encode("gbk", errors="replace"))
    assert main(["check-config", str(gbk)]) == 2
    err = capsys.readouterr().err.strip()
    assert "不是 UTF-8 文本" in err and "saved as GBK" in err and err.count("\n") == 0
