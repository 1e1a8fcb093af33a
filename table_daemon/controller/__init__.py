"""The pure table controller: :class:`TableController` (events in, new state and effects out)."""

from .model import (
    Beep,
    CameraNotice,
    CardsSeen,
    Command,
    DealerCard,
    DealerDo,
    DealerDone,
    DealerFault,
    DealerFaultKind,
    DealerStarted,
    Effect,
    HealthNotice,
    Input,
    Light,
    Press,
    Publish,
    Reply,
    StatusLight,
    Tick,
    TurnChanged,
    ZoneCleared,
    input_from_dict,
)
from .state import Phase, Timing
from .table import TableController

__all__ = [
    "Beep", "CameraNotice", "CardsSeen", "Command", "DealerCard", "DealerDo", "DealerDone", "DealerFault", "DealerFaultKind", "DealerStarted",
    "Effect", "HealthNotice", "Input", "Light", "Phase", "Press", "Publish", "Reply", "StatusLight", "TableController", "Tick", "Timing",
    "TurnChanged", "ZoneCleared", "input_from_dict",
]
