"""Who may open the referees' pages, and who they are.

Either one shared referee password (any user name; the name a referee types on the page is taken at its
word), or each referee's own account in a file of ``name:pbkdf2_sha256$iterations$salt$hash`` lines
(``desk referee --accounts FILE --name NAME`` adds one). With accounts the referee is the account that logged in:
the page cannot claim another name, so "a second referee approves a correction" means a second account.

Passwords in the file are PBKDF2-SHA256 hashes (the standard library's, salted, 600,000 rounds), never the
passwords. A right login is remembered in memory (as a digest of what was given) so that a page polling every
few seconds does not pay the hash each time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

ROUNDS = 600_000
SCHEME = "pbkdf2_sha256"
MIN_PASSWORD = 8
#: a referee's account name: letters (Chinese too), digits, spaces, _ . -; no ":" (the file's separator)
NAME = re.compile(r"^[\w .\-]{1,40}$")


class AccountsError(ValueError):
    """An accounts file or an account that cannot be used (the line and what is wrong)."""


def hash_password(password: str, *, salt: bytes | None = None, rounds: int = ROUNDS) -> str:
    """``pbkdf2_sha256$rounds$salt$hash`` (base64) of ``password``."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, rounds)
    return f"{SCHEME}${rounds}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def verify(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` (a :func:`hash_password` string) was made from."""
    try:
        scheme, rounds, salt, digest = stored.split("$")
        if scheme != SCHEME:
            return False
        expected = base64.b64decode(digest, validate=True)
        got = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), base64.b64decode(salt, validate=True),
                                  int(rounds))
    except ValueError:
        return False
    return hmac.compare_digest(got, expected)


def _stamp(path: Path) -> tuple[int, int] | None:
    """When and how big the file is, to see that it changed (None: it cannot be read)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def read_accounts(path: str | Path) -> dict[str, str]:
    """name -> stored hash, from an accounts file; a bad line raises :class:`AccountsError` naming it."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AccountsError(f"{path}: cannot read: {exc}") from None
    accounts: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, stored = line.rpartition(":")
        name = name.strip()
        if not sep or not NAME.match(name) or not stored.startswith(SCHEME + "$") or stored.count("$") != 3:
            raise AccountsError(f"{path}:{number}: not an account line (NAME:{SCHEME}$...; made by desk referee)")
        if name in accounts:
            raise AccountsError(f"{path}:{number}: {name!r} has two accounts")
        accounts[name] = stored.strip()
    if not accounts:
        raise AccountsError(f"{path}: no referee accounts in it (add one: desk referee --accounts {path} --name NAME)")
    return accounts


def add_account(path: str | Path, name: str, password: str, *, rounds: int = ROUNDS) -> bool:
    """Add ``name`` to the accounts file, or give it a new password; True when it is new. The file is made
    readable by its owner only."""
    name = name.strip()
    if not NAME.match(name):
        raise AccountsError(f"referee name {name!r}: 1 to 40 letters, digits, spaces, _ . - (no ':')")
    if len(password) < MIN_PASSWORD:
        raise AccountsError(f"the password must have at least {MIN_PASSWORD} characters")
    path = Path(path)
    accounts = read_accounts(path) if path.exists() and path.read_text("utf-8").strip() else {}
    new = name not in accounts
    accounts[name] = hash_password(password, rounds=rounds)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("".join(f"{n}:{h}\n" for n, h in accounts.items()))
    os.chmod(path, 0o600)
    return new


_UNKNOWN = hash_password(secrets.token_hex(16), rounds=ROUNDS)


@dataclass
class Referees:
    """The check behind the referees' pages: ``login(user, password)`` is the referee it lets in ("" for the
    shared password, which names nobody), or None.

    An accounts file is read again when it changes, so a referee added, or a password changed or taken away,
    counts at once without restarting the desk. A file that turns unreadable or bad lets nobody in (said once in
    the log) until it is mended: a revoked password must never keep working because of a typo elsewhere."""

    shared: bytes = b""
    accounts: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    _stamp: tuple[int, int] | None = None
    _broken: str = ""
    _known: dict[bytes, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def with_password(cls, password: str) -> Referees:
        return cls(shared=password.encode("utf-8"))

    @classmethod
    def with_accounts(cls, path: str | Path) -> Referees:
        path = Path(path)
        stamp = _stamp(path)
        return cls(accounts=read_accounts(path), path=path, _stamp=stamp)

    def _reread(self) -> None:
        """Read the accounts file again if it changed since it was read (under the lock)."""
        if self.path is None:
            return
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self._known.clear()
        try:
            self.accounts, self._broken = read_accounts(self.path), ""
        except AccountsError as exc:
            if str(exc) != self._broken:
                log.error("referee accounts: %s; nobody can log in until it is mended (裁判账号文件有误)", exc)
            self.accounts, self._broken = {}, str(exc)

    @property
    def named(self) -> bool:
        """Whether each referee logs in as themself (accounts), so the page's name is the login's."""
        return self.path is not None or bool(self.accounts)

    def known(self, user: str, password: str) -> bool:
        """Whether these credentials were let in before (and still would be): a referee already at work, whom a
        flood of wrong passwords from elsewhere in the hall must not lock out. Nothing is checked or counted."""
        key = hashlib.sha256(f"{user}\0{password}".encode()).digest()
        with self._lock:
            self._reread()
            return key in self._known

    def login(self, user: str, password: str) -> str | None:
        key = hashlib.sha256(f"{user}\0{password}".encode()).digest()
        if not self.named:
            ok = bool(self.shared) and hmac.compare_digest(password.encode("utf-8"), self.shared)
            if ok:
                with self._lock:
                    self._known[key] = ""
            return "" if ok else None
        with self._lock:
            self._reread()
            if key in self._known:
                return self._known[key]
            stored = self.accounts.get(user)
        if not verify(password, stored or _UNKNOWN):  # an unknown name costs the same: it says nothing
            return None
        with self._lock:
            if self.accounts.get(user) == stored:  # not changed while the hash was being checked
                self._known[key] = user
        return user
