"""Host side of the link to the table's automatic shuffler/dealer (``docs/dealer-protocol.md``).

Layers: :mod:`.framing` (COBS, CRC, header) and :mod:`.messages` (payloads) are pure codecs; :mod:`.link`
is the pure host state machine; :mod:`.runner` the serial I/O thread; :mod:`.client` the blocking API;
:mod:`.deal` and :mod:`.verify` the pure deal plan, commitment and judgement.
"""

from .client import DealerClient
from .connect import DealerUrlError, open_serial_dealer, serial_opener
from .deal import DealFileError, DealPlan, check_deal_file, load_deal_file, new_deal, plan_from_line
from .dealer_types import CommandRefused, DealerError, DeviceInfo
from .runner import LinkError, Notice
from .verify import CardRecord, DealOutcome

__all__ = [
    "CardRecord", "CommandRefused", "DealFileError", "DealOutcome", "DealPlan", "DealerClient", "DealerError",
    "DealerUrlError", "DeviceInfo", "LinkError", "Notice", "check_deal_file", "load_deal_file", "new_deal", "open_serial_dealer",
    "plan_from_line", "serial_opener",
]
