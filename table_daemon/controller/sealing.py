"""What a duplicate board keeps off the public topics (rules §12): its hands and its results stay with the desk
until the desk releases the board, after every table has played it (layer 2, over the state; pure).

A match that plays boards is *sealed*. Its deal records and its match result go out in full only on
``results/sealed`` (read by the desk and referees; never by displays, never bridged to them), each with a
*sealed twin* on the public ``results``: the same ``id``, match, deal and board, ``"sealed": true``, nothing of the
hands, the plays or the outcome. A display still learns that a deal ended. The public state and events of a
sealed match likewise carry no deal result, no levels after a deal and no match result; the live play (whose
turn, the cards of the trick, how many cards each seat holds) stays public, as it is to anyone at the table.
The desk publishes each board in full once it is released (``desk/boards/{round}/{board}``).
"""

from __future__ import annotations

from typing import Any

from .state import TableState

#: where a sealed match's full deal records and match result go (desk and referees only)
SEALED_TOPIC = "results/sealed"
#: a sealed twin keeps only these fields of a deal record or match result
TWIN_FIELDS = ("id", "format", "event", "table", "match", "deal", "board", "start", "profile", "teams", "deals")
#: said on public topics in place of what a sealed match withholds
SEALED_WORDS = "复式牌封存至全部牌桌打完 | duplicate board sealed until every table has played it"


def match_sealed(c: TableState) -> bool:
    """Whether the match in play (or just over) plays duplicate boards: its results are the desk's until
    released. Decided by the match's boards, or a deal started on a board by command."""
    return bool(c.boards) or (c.deal is not None and c.deal.board is not None)


def sealed_twin(message: dict[str, Any]) -> dict[str, Any]:
    """The public stand-in of a sealed deal record or match result: who, which deal and board, no outcome."""
    twin = {k: message[k] for k in TWIN_FIELDS if k in message}
    twin["sealed"] = True
    twin["note"] = SEALED_WORDS
    return twin


def sealed_copy(message: dict[str, Any]) -> dict[str, Any]:
    """The full message for ``results/sealed``, marked so that a journal's resend knows its topic."""
    return {**message, "sealed_copy": True}
