"""TLS files the MQTT connection cannot load are said by setting and file, in one line, not as paho's bare
``ssl.SSLError`` (``[X509: NO_CERTIFICATE_OR_CRL_FOUND]``, naming no file) from ``tls_set``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from table_daemon.adapters.mqtt_connection import (
    MqttConnection,
    TlsFilesError,
    parse_broker_url,
    tls_files_problem,
)
from tests.tls import self_signed


def test_a_ca_file_without_a_certificate_names_the_setting_and_the_file(tmp_path: Path) -> None:
    ca = tmp_path / "x.pem"
    ca.write_text("plain text\n")
    with pytest.raises(TlsFilesError) as err:
        MqttConnection(parse_broker_url("mqtts://127.0.0.1:1883"), ca_file=str(ca))
    assert err.value.setting == "ca_file" and str(ca) in str(err.value) and "\n" not in str(err.value)
    assert "no CA certificate" in str(err.value) and "NO_CERTIFICATE_OR_CRL_FOUND" in str(err.value)
    assert tls_files_problem(str(tmp_path / "none.pem"))[1].endswith(  # type: ignore[index]
        "cannot read it: No such file or directory")


def test_good_tls_files_pass_and_a_key_of_another_certificate_is_named(tmp_path: Path) -> None:
    ca, _ = self_signed(tmp_path, "ca")
    cert, key = self_signed(tmp_path, "client")
    _, other = self_signed(tmp_path, "other")
    assert tls_files_problem(str(ca)) is None
    assert tls_files_problem(str(ca), str(cert), str(key)) is None
    conn = MqttConnection(parse_broker_url("mqtts://127.0.0.1:1883"), ca_file=str(ca), cert_file=str(cert),
                          key_file=str(key))
    assert conn.client._ssl_context is not None
    with pytest.raises(TlsFilesError) as err:
        MqttConnection(parse_broker_url("mqtts://127.0.0.1:1883"), ca_file=str(ca), cert_file=str(cert),
                       key_file=str(other))
    assert err.value.setting == "key_file" and str(other) in str(err.value)
    assert "does not belong to the certificate" in str(err.value)


def test_a_key_under_a_passphrase_is_refused_rather_than_asked_for(tmp_path: Path) -> None:
    """The table runs unattended: OpenSSL would prompt on a terminal, or fail without one."""
    cert, key = self_signed(tmp_path, "client")
    locked = tmp_path / "locked.key"
    subprocess.run(["openssl", "pkey", "-in", str(key), "-out", str(locked), "-aes256", "-passout", "pass:secret"],
                   check=True, capture_output=True)
    problem = tls_files_problem(None, str(cert), str(locked))
    assert problem is not None and problem[0] == "key_file" and "passphrase" in problem[1]
