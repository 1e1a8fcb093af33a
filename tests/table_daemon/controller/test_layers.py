"""The controller's modules import only downward: no import cycle, no import hidden inside a function
(checked from the source with ``scripts/import_graph.py``)."""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _import_graph() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_controller_layers_have_no_cycle_and_no_import_in_a_function() -> None:
    ig = _import_graph()
    lines, edges = ig.graph(ROOT / "table_daemon" / "controller")
    assert ig.cycles(edges) == []
    inside = {m: sorted(t for t, where in deps.items() if "function" in where) for m, deps in edges.items()}
    assert {m: t for m, t in inside.items() if t} == {}
    state = edges["controller.state"]
    assert set(state) == {"controller.model"}  # the state is data: it knows no flow


def test_the_script_finds_a_cycle(tmp_path: Path) -> None:
    ig = _import_graph()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    _, edges = ig.graph(pkg)
    assert ig.cycles(edges) == [["pkg.a", "pkg.b"]]
    assert edges["pkg.b"] == {"pkg.a": {"function"}}


def test_from_the_package_import_a_module_counts_the_package_s_init(tmp_path: Path) -> None:
    """``from . import b`` runs the package's __init__ first: an __init__ that imports the importer is a cycle."""
    ig = _import_graph()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .top import Top\n")
    (pkg / "top.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("x = 1\n")
    _, edges = ig.graph(pkg)
    assert ig.cycles(edges) == [["pkg", "pkg.a", "pkg.top"]]
