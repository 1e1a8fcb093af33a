"""The daemon's version: in its MQTT status, and in the format name of its journal snapshots."""

VERSION = "0.1.0"
