"""The simulated table (``guandan-table simulate``): whole tables on one machine, published over MQTT exactly
as real tables publish.

Each table is the real daemon (:class:`~table_daemon.app.TableApp`: controller, journal, MQTT link) with
simulated devices: the dealer (the simulated dealer over a pty when ``firmware_bridge``'s client is
installed, else a seeded dealer in process), the play zones (the simulated camera through the real card reader
when ``vision`` provides them, else read directly), seat panels on gpiozero's ``MockFactory`` pins, and four
bots (:class:`~guandan.bot.Bot`) that act through those devices: they lay cards in their zone and
press their panel's buttons, like players.

The parts live in their own modules, by responsibility; this one keeps the names the command line, benches
and tests import:

- ``sim_seats``: the simulated players (:class:`SimSeats`);
- ``sim_table``: one simulated table composed (:class:`SimTable`, :func:`make_sim_dealer`);
- ``sim_progress``: the progress lines printed while tables play (:func:`progress_printer`);
- ``sim_run``: the run itself (:func:`run_simulation`: broker, play, flush, journals).
"""

from __future__ import annotations

from .sim_progress import progress_printer
from .sim_run import run_simulation
from .sim_seats import MAX_RELAYS, RELAY_CODES, SimSeats
from .sim_table import SimTable, make_sim_dealer

__all__ = ["MAX_RELAYS", "RELAY_CODES", "SimSeats", "SimTable", "make_sim_dealer", "progress_printer",
           "run_simulation"]
