"""The table config's sections as dataclasses, with their defaults and the simulated table's pin map.

What each key of a table's TOML file means and holds when the file leaves it out; parsing and checking a file
into these is table_daemon/config_parse.py, so code that only reads a config need not know the TOML rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class TableSection:
    id: str = "T01"
    event: str = "demo"
    profile: str = "national"
    #: start the next deal on its own when one ends (a real table waits for ``start_deal`` or a button).
    auto_deal: bool = False
    #: the ``role`` a referee command must carry for this table to obey it (the broker's ACL is the gate).
    referee_role: str = "referee"
    #: a file holding the referees' signing key: referee commands must then carry their signature
    #: (table_daemon/controller/auth.py); empty: the role and the broker's ACL are the only checks
    referee_key_file: str = ""
    #: seats played by software (bots, screens): they take 001's automatic action on a time-out.
    software_seats: list[str] = field(default_factory=list)


@dataclass
class MqttSection:
    url: str = "mqtt://127.0.0.1:1883"
    prefix: str = "guandan/v1"
    username: str = ""
    password: str = ""
    password_file: str = ""
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    insecure: bool = False
    keepalive: int = 10
    client_id: str = ""
    protocol: int = 5



@dataclass
class JournalSection:
    path: str = "journal.sqlite"
    #: a second copy on other storage (a USB stick), taken up when the journal is lost or damaged; "" for none
    mirror: str = ""


@dataclass
class DealerSection:
    port: str = "sim://?speed=0"
    baud: int = 115200
    deal_file: str = ""


@dataclass
class CameraSection:
    source: str = "sim://"
    fps: float = 15.0
    deck: str = ""
    #: the card reader: "net" (the learned one), "glyphs" (the glyph rules), "": the one ``deck`` was enrolled
    #: for, else the learned one
    reader: str = ""
    #: what runs the learned reader's network: "opencv" (cv2.dnn, always installed) or "onnxruntime" (the
    #: ``onnxruntime`` extra: faster, and more memory)
    runtime: str = "opencv"
    width: int = 1280
    height: int = 720
    #: frames a laid-out set must stay unchanged before it counts as played
    stable_frames: int = 2
    #: frames an unsure set (low confidence, a card not read) waits for a sure reading before the referee is called
    unsure_wait_frames: int = 8
    #: a card read less sure than this is unsure: chosen among the reader's candidates by what the seat holds,
    #: or laid again, never a foul (0: the reader's own threshold, chosen on held-out real photos: 0.998 for the
    #: learned reader, 0.6 for the glyph rules)
    min_confidence: float = 0.0
    #: a saved calibration (``vision calibrate`` JSON); empty: calibrate from the table markers when they show
    calibration: str = ""
    #: markers further than this (pixels) from where the calibration expects them: the camera or table moved
    move_px: float = 6.0
    #: Pi camera (``picamera://``) settings, applied as picamera2 controls (hardware/cameras/picamera.py):
    #: which camera (``rpicam-hello --list-cameras``; a Pi 5 has CAM0 = 0 and CAM1 = 1)
    camera_num: int = 0
    #: manual focus in dioptres (1 / distance in metres; Camera Module 3); negative: the camera's own focus
    lens_position: float = -1.0
    #: fixed exposure time in microseconds (0: automatic) and analogue gain (0: automatic)
    exposure_us: int = 0
    analogue_gain: float = 0.0
    #: fixed white balance as [red, blue] gains (empty: automatic); ``vision calibrate`` prints the current ones
    colour_gains: list[float] = field(default_factory=list)
    #: mains frequency of the hall lighting (50 in China, 60, 0: none): exposure kept to its flicker period
    flicker_hz: int = 50


@dataclass
class SeatPins:
    pass_button: int = 0
    confirm_button: int = 0
    referee_button: int = 0
    turn_light: int = 0
    report_light: int = 0


@dataclass
class PanelsSection:
    #: "lgpio" (Raspberry Pi 5), "rpigpio", "native", "mock" (simulation, tests), "" (gpiozero's default)
    pin_factory: str = "mock"
    debounce_ms: int = 40
    status_light: int = 0
    buzzer: int = 0
    seats: dict[str, SeatPins] = field(default_factory=dict)
    #: reserved header pins (I²C, SPI, UART, HAT EEPROM) this table uses anyway, e.g. ``[7, 8]`` with no SPI device
    allow_pins: list[int] = field(default_factory=list)


@dataclass
class TimingSection:
    """Turn limits for profiles whose limits the event sets (national); 0: no limit."""

    play_seconds: float = 0.0
    first_lead_seconds: float = 0.0
    return_seconds: float = 0.0
    declare_seconds: float = 10.0
    tick_seconds: float = 0.5


@dataclass
class HealthSection:
    interval_seconds: float = 10.0
    watchdog: bool = True
    #: alert limits: CPU temperature (the Pi 5 throttles at 85 °C) and free space where the journal lives
    max_cpu_temp_c: float = 80.0
    min_free_mb: float = 500.0


@dataclass
class TableConfig:
    table: TableSection = field(default_factory=TableSection)
    mqtt: MqttSection = field(default_factory=MqttSection)
    journal: JournalSection = field(default_factory=JournalSection)
    dealer: DealerSection = field(default_factory=DealerSection)
    camera: CameraSection = field(default_factory=CameraSection)
    panels: PanelsSection = field(default_factory=PanelsSection)
    timing: TimingSection = field(default_factory=TimingSection)
    health: HealthSection = field(default_factory=HealthSection)
    source: str = "<defaults>"

    @property
    def root(self) -> str:
        """The topic root ``{prefix}/{event}/{table}/``."""
        return f"{self.mqtt.prefix.rstrip('/')}/{self.table.event}/{self.table.id}/"

    def referee_key(self) -> bytes | None:
        """The referees' signing key (the first line of ``table.referee_key_file``), or None."""
        if not self.table.referee_key_file:
            return None
        return Path(self.table.referee_key_file).read_text("utf-8").strip().encode("utf-8") or None

    def mqtt_password(self) -> str:
        if self.mqtt.password_file:
            return Path(self.mqtt.password_file).read_text().strip()
        return self.mqtt.password


#: The simulated table's pin map (MockFactory pins: every lamp fitted; a real table's map is
#: config/table.example.toml, which keeps the I²C, SPI and UART pins free).
DEFAULT_PINS: dict[str, SeatPins] = {
    "S": SeatPins(5, 6, 13, 19, 26),
    "E": SeatPins(12, 16, 20, 21, 25),
    "N": SeatPins(17, 27, 22, 23, 24),
    "W": SeatPins(4, 14, 15, 18, 7),
}
