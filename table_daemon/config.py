"""The table's TOML config: every device real or simulated, strictly checked.

One file describes one table: its id and event, the rule profile, the MQTT broker (URL with TLS and
credentials), the journal, the dealer link, the camera, the seat panels' pin map and the timers. Any device
may be simulated (``port = "sim://"``, ``source = "sim://"``, ``pin_factory = "mock"``). Unknown keys and
wrong types are rejected with an error that names the key, the file and the line (:class:`ConfigError`), so
a typo on a Pi is found by ``guandan-table check-config`` before the event, not at the first deal.

The parts live in their own modules, re-exported here so callers import from ``table_daemon.config`` only:
the sections and defaults (config_sections), the id, host and pin rules (config_rules), error messages
(config_report), parsing (config_parse) and value checks (config_validate).
"""

from __future__ import annotations

from guandan import SEATS

from .config_parse import load_config, parse_config, read_config_text
from .config_report import ASCII_KEYS, ASCII_SEATS, ConfigError, error_reporter, message_reporter, toml_error
from .config_rules import ID_RULE, PIN_FACTORIES, RESERVED_PINS, host_error, id_error, prefix_error
from .config_sections import (
    DEFAULT_PINS,
    CameraSection,
    DealerSection,
    HealthSection,
    JournalSection,
    MqttSection,
    PanelsSection,
    SeatPins,
    TableConfig,
    TableSection,
    TimingSection,
)

__all__ = [
    "ASCII_KEYS", "ASCII_SEATS", "DEFAULT_PINS", "ID_RULE", "PIN_FACTORIES", "RESERVED_PINS",
    "CameraSection", "ConfigError", "DealerSection", "HealthSection", "JournalSection", "MqttSection",
    "PanelsSection", "SeatPins", "TableConfig", "TableSection", "TimingSection",
    "error_reporter", "host_error", "id_error", "load_config", "message_reporter", "parse_config",
    "prefix_error", "read_config_text", "simulated_config", "toml_error",
]


def simulated_config(table: str = "T01", event: str = "demo", profile: str = "national",
                     broker: str = "mqtt://127.0.0.1:1883", journal: str = ":memory:") -> TableConfig:
    """A config with every device simulated (``simulate`` and the tests)."""
    cfg = TableConfig()
    cfg.table = TableSection(id=table, event=event, profile=profile, auto_deal=True,
                             software_seats=list(SEATS))
    cfg.mqtt = MqttSection(url=broker)
    cfg.journal = JournalSection(path=journal)
    cfg.panels = PanelsSection(pin_factory="mock", seats=dict(DEFAULT_PINS), status_light=2, buzzer=3)
    cfg.source = "<simulated>"
    return cfg
