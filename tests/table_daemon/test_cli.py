"""The console script's own parser (cli.md "Every command": a bad argument gives a one-line error on stderr naming
what is wrong, and exits 2), for mistakes argparse catches before any command runs."""

from __future__ import annotations

import pytest

from table_daemon.cli import main


@pytest.mark.parametrize(("argv", "named"), [
    (["--bogus"], "'--bogus'"),
    (["nosuch"], "'nosuch'"),
    (["simulate", "--speed", "abc"], "--speed"),
    (["rules", "classify", "S2"], "--level"),
    (["desk", "init", "--db", "x.sqlite"], "--event"),
    (["vision", "classify"], "IMAGE"),
    (["dealer", "--port", "sim://", "shuffle"], "'shuffle'"),
])
def test_a_bad_argument_is_one_line_naming_it(argv: list[str], named: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1 and named in err and "error" in err, err


@pytest.mark.parametrize("argv", [
    ["dealer", "--port", "sim://", "--timeout", "nan", "identify"],
    ["dealer", "--port", "sim://", "deal", "--deal-timeout", "inf"],
    ["simulate", "--broker-timeout", "nan"],
    ["referee", "--broker", "mqtt://127.0.0.1:1", "--table", "T01", "--timeout", "nan", "resync"],
    ["vision", "markers", "--out", "/tmp/markers", "--mm", "nan"],
])
def test_a_number_that_is_not_finite_is_refused_in_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """``float`` takes nan and inf: a NaN timeout made ``dealer identify`` report no answer, then an identity."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert done.value.code == 2 and "must be a finite number" in err and err.count("\n") == 0, err
