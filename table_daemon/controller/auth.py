"""Who may command a table, and where the table may answer (mqtt-api.md "Commands"; issue 14).

Two gates stand before a referee command (``correct``, ``penalty``): the broker's ACL lets only the referee
account write ``cmd/correct`` and ``cmd/penalty`` (deploy/mosquitto/guandan.acl), and the table checks a
signature that only the referees' tool can make: ``auth = {"nonce": N, "sig": HMAC-SHA256(key, table, command,
nonce, payload)}`` with the referee key the table was configured with. The signature names the table and the
command, so one signed for T01 is worthless at T02 or as another command, and a nonce the table has obeyed
once is refused afterwards (a copied command cannot be played again). A signed payload works the same with
MQTT 3.1.1 and 5 clients, where user properties would be whatever the sender wrote.

Replies go to the topic the command names (mqtt-api.md: the MQTT 5 response topic, or a 3.1.1 client's
``reply_to``), except into the product's own tree outside its reply topics (``{prefix}/...`` other than
``{prefix}/replies/...``): no command can make a table write its own ``results`` or another table's root.
The tools of this repository use ``{prefix}/replies/{requester}/{event}/{table}``, the topic the deployed ACL
lets only that table write and only that requester read; at an event under that ACL a reply elsewhere is
dropped by the broker. Pure functions: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any

#: the fields outside the signed text: the signature itself
UNSIGNED = ("auth",)
_NONCE = re.compile(r"^[A-Za-z0-9_.:-]{8,80}$")
#: the longest reply topic answered (MQTT allows 65,535 bytes; a reply topic is a short name)
MAX_REPLY_TOPIC = 512


def signed_text(table: str, name: str, nonce: str, payload: dict[str, Any]) -> bytes:
    """The bytes a referee signature covers: table, command, nonce and the payload in canonical JSON."""
    body = {k: v for k, v in payload.items() if k not in UNSIGNED}
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "\n".join(("guandan-referee/1", table, name, nonce, canon)).encode("utf-8")


def sign_command(key: bytes, table: str, name: str, payload: dict[str, Any], nonce: str) -> dict[str, Any]:
    """``payload`` with its ``auth`` field: what a referee tool sends to ``{root}cmd/{name}``."""
    sig = hmac.new(key, signed_text(table, name, nonce, payload), hashlib.sha256).hexdigest()
    return {**{k: v for k, v in payload.items() if k not in UNSIGNED}, "auth": {"nonce": nonce, "sig": sig}}


def check_signature(key: bytes, table: str, name: str, payload: dict[str, Any],
                    used: set[str]) -> tuple[str | None, str | None]:
    """(error, nonce): error None when ``payload`` carries a valid referee signature whose nonce is not in
    ``used``; the caller adds the nonce to ``used`` once it obeyed the command."""
    auth = payload.get("auth")
    if not isinstance(auth, dict):
        return f"{name} must be signed by the referee (裁判签名缺失)", None
    nonce, sig = auth.get("nonce"), auth.get("sig")
    if not isinstance(nonce, str) or not _NONCE.match(nonce) or not isinstance(sig, str):
        return f"{name}: bad referee signature (裁判签名无效)", None
    want = hmac.new(key, signed_text(table, name, nonce, payload), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, sig):
        return f"{name}: bad referee signature (裁判签名无效)", None
    if nonce in used:
        return f"{name}: this signed command was already obeyed (重复的裁判指令)", None
    return None, nonce


def reply_topic_error(topic: str, prefix: str, event: str, table: str) -> str | None:
    """None when the table may answer on ``topic``, else why not: a topic no one can publish to (empty,
    wildcards, ``$``, too long), or one in the product's own tree outside ``{prefix}/replies/`` (a reply there
    would pass for the table's own messages). ``event`` and ``table`` name the table in the refusal."""
    root = prefix.rstrip("/")
    if (not topic or len(topic) > MAX_REPLY_TOPIC or topic.startswith("$") or "\0" in topic
            or "+" in topic or "#" in topic):
        return (f"reply topic {topic[:120]!r} refused: not a topic a reply can be published to "
                f"(回复主题无效)")
    if (topic == root or topic.startswith(root + "/")) and not topic.startswith(f"{root}/replies/"):
        return (f"reply topic {topic[:120]!r} refused: it lies among the tables' own topics; answers to "
                f"{event}/{table} go under {root}/replies/ (e.g. {root}/replies/{{requester}}/{event}/{table}) "
                f"or outside {root}/ (回复主题不允许)")
    return None
