"""The engine's public API: everything in ``guandan.__all__`` exists, and the rest of the project imports the engine
only through it (never a submodule, never a private name), so the engine's layout can change behind it."""

from __future__ import annotations

import ast
from pathlib import Path

import guandan

ROOT = Path(__file__).resolve().parents[2]
USERS = ("table_daemon", "firmware_bridge", "hardware", "vision", "bench", "scripts")


def test_every_public_name_exists() -> None:
    missing = [name for name in guandan.__all__ if not hasattr(guandan, name)]
    assert not missing
    assert all(not name.startswith("_") for name in guandan.__all__)


def test_the_project_uses_the_engine_only_through_its_public_names() -> None:
    wrong: list[str] = []
    for folder in USERS:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    if node.module.startswith("guandan."):
                        wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module}")
                    elif node.module == "guandan":
                        wrong += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names
                                  if a.name not in guandan.__all__]
                if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                    base = node.value
                    if isinstance(base, ast.Name) and base.id in ("engine", "guandan"):
                        wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} {base.id}.{node.attr}")
    assert not wrong, wrong
