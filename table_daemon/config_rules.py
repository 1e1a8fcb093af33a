"""The naming and pin rules a table config obeys, shared with the tools that name tables and events.

Event and table ids, the topic prefix and the broker's host are checked the same way by the config and by the
referee desk and command line (``id_error``, ``prefix_error``, ``host_error``); the pin factories and the
header pins reserved for a bus are the panels' rules. Kept apart from the config's dataclasses and parser so
each rule lives once and imports nothing of the table.
"""

from __future__ import annotations

import re

#: the gpiozero pin factories the panels can be built on (hardware.panels.make_pin_factory); pigpio is not one: it
#: does not run on a Raspberry Pi 5
PIN_FACTORIES = ("", "mock", "lgpio", "rpigpio", "native")


#: Header pins (BCM) with a bus function: a button or lamp there blocks the bus, and I²C's pull-ups on
#: GPIO 2 and 3 switch a buzzer or lamp on at boot, before the daemon runs.
RESERVED_PINS: dict[int, str] = {
    0: "HAT EEPROM ID_SD", 1: "HAT EEPROM ID_SC", 2: "I²C SDA", 3: "I²C SCL",
    7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK",
    14: "UART TXD", 15: "UART RXD",
}

_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
#: what an event or table id may be: it is a level of every MQTT topic (no "/", "+" or "#") and a file name
ID_RULE = "1 to 40 letters, digits, _ . -"


def prefix_error(prefix: str) -> str | None:
    """Why ``prefix`` cannot begin every topic of an event (``guandan/v1``), or None."""
    if (not prefix.strip("/") or any(ch in prefix for ch in "+#\0") or prefix.startswith("$")
            or "//" in prefix.strip("/")):
        return f"bad topic prefix {prefix!r} (topic levels without +, #, $ or empty levels)"
    return None


_LABEL_RE = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")


def host_error(host: str) -> str | None:
    """Why ``host`` cannot be a broker's host (a host name or an IP address), or None.

    ``urlparse`` takes anything between ``//`` and the port as the host: ``mqtt://broker hall`` would only fail
    at the first connect, as an unknown host, retried all evening. A name is dot-separated labels of letters,
    digits, ``-`` (not at either end) and ``_`` (container names), at most 253 characters; a non-ASCII name
    counts as its IDNA (punycode) form, as the resolver would look it up.
    """
    import ipaddress

    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    try:
        name = host.encode("idna").decode("ascii")
    except UnicodeError:
        name = host
    labels = name.removesuffix(".").split(".")
    if len(name) > 253 or not all(_LABEL_RE.fullmatch(label) for label in labels) or name.replace(".", "").isdigit():
        return f"主机名无效 | {host!r} is not a host name or IP address (letters, digits, - and . only, no spaces)"
    return None


def id_error(what: str, value: str) -> str | None:
    """Why ``value`` cannot be an event or table id (``what`` names which, e.g. "table id"), or None."""
    return None if _ID_RE.fullmatch(value) else f"bad {what} {value!r} ({ID_RULE})"
