"""The table daemon: rules engine (guandan/), table controller and adapters."""
