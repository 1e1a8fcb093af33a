"""TLS files for tests, made by openssl (skipped where it is not installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def self_signed(folder: Path, name: str = "hall") -> tuple[Path, Path]:
    """A self-signed certificate (a CA certificate, and a client certificate too) and its key in ``folder``."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={name}"],
                   check=True, capture_output=True)
    return cert, key
