"""The simulated dealer's pseudo-terminal folder goes with it, however the dealer ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hardware.sim_dealer.runner import SimDealer


def test_a_closed_dealer_leaves_no_folder() -> None:
    dealer = SimDealer()
    folder = Path(dealer.path).parent
    assert folder.is_dir()
    dealer.close()
    assert not folder.exists()


def test_a_dealer_never_closed_leaves_no_folder_when_its_process_ends(tmp_path: Path) -> None:
    """A table or a test that exits without closing its dealer left a sim-dealer-* folder in the temporary folder
    each time (26 on this machine)."""
    code = "from hardware.sim_dealer.runner import SimDealer; d = SimDealer(); print(d.path)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(tmp_path))
    assert list(tmp_path.iterdir()) == []
