#!/usr/bin/env python3
"""Fill in the hall and central broker templates of this folder, and make an event's test certificates.

    render.py TEMPLATE NAME=VALUE ... [HALLS=H1,H2] [TABLES=T01,T02]   the rendered file on stdout
    render.py certs DIR [--central NAME,...] H1[=HOST,...] H2 ...   CA, central and per-hall certificates (openssl)

Every ``@NAME@`` of a template must be given (a missing one is an error, so a half-filled configuration never
reaches a broker). In ``central.acl.template`` the block between ``# ---- per hall`` and ``# ---- end per
hall ----`` is written once per hall named in ``HALLS``; in ``hall.conf.template`` the block between ``# ----
per table`` and ``# ---- end per table ----`` once per table of the hall named in ``TABLES``. Standard library only, so it runs on a broker host.

``certs`` writes ``ca.pem`` (the event's CA), ``central.crt``/``central.key`` (server certificate for the
names after ``--central``: the host names or addresses the halls' bridges and the desk connect to, always with
``localhost`` and 127.0.0.1) and ``H1.crt``/``H1.key`` ... (each hall's certificate, CN = the hall's name, for
the hall's own host names given as ``H1=hall-h1.lan,10.0.1.5`` and localhost; usable both as the hall
listener's server certificate and as its bridge's client certificate). A client checks the name it connects to
against these, so a rehearsal on separate machines needs their names here. The CA's key stays in DIR: for a
real event, keep it offline and never commit any key.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

BLOCK = re.compile(r"^# ---- per (hall|table)\b[^\n]*\n(.*?)^# ---- end per \1 ----\n", re.S | re.M)
PLACEHOLDER = re.compile(r"@([A-Z_]+)@")
EC_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")  # P-256: quick to make, TLS 1.2 and 1.3


class RenderError(ValueError):
    """A template value that is missing, or a name that cannot be a hall."""


def render(text: str, values: Mapping[str, str], halls: Iterable[str] = (), tables: Iterable[str] = ()) -> str:
    """The template with every ``@NAME@`` replaced; a per-hall block repeated with ``@HALL@`` for each of
    ``halls``, a per-table block with ``@TABLE@`` for each of ``tables``."""
    names = {"hall": list(halls), "table": list(tables)}
    for kind, items in names.items():
        for item in items:
            if not re.fullmatch(r"[A-Za-z0-9_-]+", item) or item in ("desk", "replies"):
                raise RenderError(f"{kind} name {item!r}: letters, digits, - and _ only (not desk or replies)")

    def repeat(match: re.Match[str]) -> str:
        kind, body = match.group(1), match.group(2)
        if not names[kind]:
            raise RenderError(f"this template has a per-{kind} block: give {kind.upper()}S=A,B,...")
        return "".join(body.replace(f"@{kind.upper()}@", item) for item in names[kind])

    text = BLOCK.sub(repeat, text)
    missing = sorted({name for name in PLACEHOLDER.findall(text) if name not in values})
    if missing:
        raise RenderError("missing values: " + ", ".join(missing))
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def _openssl(*args: str) -> None:
    done = subprocess.run(["openssl", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RenderError(f"openssl {' '.join(args[:2])} failed: {done.stderr.strip()[-300:]}")


LOCAL_NAMES = ("localhost", "127.0.0.1")


def _san(name: str) -> str:
    """A subjectAltName entry: an IP address or a DNS name."""
    if re.fullmatch(r"[0-9.]+|[0-9a-fA-F:]+:[0-9a-fA-F:]*", name):
        return f"IP:{name}"
    if not re.fullmatch(r"[A-Za-z0-9*]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*", name):
        raise RenderError(f"{name!r} is not a host name or an IP address")
    return f"DNS:{name}"


def make_certs(out: str | Path, halls: Iterable[str], central_names: Iterable[str] = LOCAL_NAMES,
               days: int = 30, hall_names: Mapping[str, Iterable[str]] | None = None) -> Path:
    """An event's CA, the central broker's certificate and one per hall, in ``out`` (see module docstring).
    ``hall_names`` gives a hall's own host names (beside its name and localhost)."""
    halls = list(halls)
    for hall in halls:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", hall):
            raise RenderError(f"hall name {hall!r}: letters, digits, - and _ only")
    central_sans = [_san(n) for n in dict.fromkeys([*central_names, *LOCAL_NAMES])]
    hall_sans = {hall: [_san(n) for n in dict.fromkeys([*(hall_names or {}).get(hall, ()), hall, *LOCAL_NAMES])]
                 for hall in halls}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ca_key, ca = out / "ca.key", out / "ca.pem"
    _openssl("req", "-x509", *EC_KEY, "-nodes", "-keyout", str(ca_key), "-out", str(ca),
             "-days", str(days), "-subj", "/CN=guandan event CA")

    def issue(name: str, sans: list[str]) -> None:
        key, csr, crt, ext = (out / f"{name}.key", out / f"{name}.csr", out / f"{name}.crt", out / f"{name}.ext")
        _openssl("req", *EC_KEY, "-nodes", "-keyout", str(key), "-out", str(csr),
                 "-subj", f"/CN={name}")
        ext.write_text("subjectAltName=" + ",".join(sans) + "\nextendedKeyUsage=serverAuth,clientAuth\n")
        _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
                 "-out", str(crt), "-days", str(days), "-extfile", str(ext))
        csr.unlink()
        ext.unlink()

    issue("central", central_sans)
    for hall in halls:
        issue(hall, hall_sans[hall])
    for key in out.glob("*.key"):
        key.chmod(0o600)
    return out


def _certs(argv: list[str]) -> int:
    """``certs DIR [--central NAME,...] HALL[=HOST,...] ...``"""
    out, rest = argv[0], argv[1:]
    central: list[str] = []
    hall_names: dict[str, list[str]] = {}
    while rest:
        arg = rest.pop(0)
        if arg == "--central":
            if not rest:
                print("render.py: --central needs host names (central.lan,10.0.0.2)", file=sys.stderr)
                return 2
            central += [n for n in rest.pop(0).split(",") if n]
        elif arg.startswith("-"):
            print(f"render.py: unknown option {arg!r}", file=sys.stderr)
            return 2
        else:
            hall, _, names = arg.partition("=")
            hall_names[hall] = [n for n in names.split(",") if n]
    try:
        make_certs(out, list(hall_names), [*central, *LOCAL_NAMES], hall_names=hall_names)
    except (OSError, RenderError) as exc:
        print(f"render.py: {exc}", file=sys.stderr)
        return 1
    print(f"certificates in {out}: central for {', '.join(dict.fromkeys([*central, *LOCAL_NAMES]))}; "
          + "; ".join(f"{h} for {', '.join(dict.fromkeys([*n, h, *LOCAL_NAMES]))}" for h, n in hall_names.items()),
          file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "certs":
        return _certs(argv[1:])
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    values: dict[str, str] = {}
    for arg in argv[1:]:
        name, sep, value = arg.partition("=")
        if not sep:
            print(f"render.py: {arg!r} is not NAME=VALUE", file=sys.stderr)
            return 2
        values[name] = value
    halls = [h for h in values.pop("HALLS", "").split(",") if h]
    tables = [t for t in values.pop("TABLES", "").split(",") if t]
    try:
        sys.stdout.write(render(Path(argv[0]).read_text(encoding="utf-8"), values, halls, tables))
    except (OSError, RenderError) as exc:
        print(f"render.py: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
