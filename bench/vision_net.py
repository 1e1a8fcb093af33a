"""The learned reader's figures alone: ``bench/vision.py --reader net`` (kept under its earlier name).

Run: ``.venv/bin/python bench/vision_net.py [--frames N] [--limit N] [--no-table]``.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.argv[1:1] = ["--reader", "net"]
    runpy.run_path(str(Path(__file__).resolve().parent / "vision.py"), run_name="__main__")
