"""Who imports whom inside one package, from the source (``ast``), and the cycles among them.

Lists, per module, its lines and the package modules it imports at module level (``TYPE_CHECKING`` blocks
marked ``[typing]``) and inside functions (``[in function]``), then every import cycle (module-level and
function-level imports together; typing-only imports excluded, since they never run). Exit status 1 when
there is a cycle or an import inside a function.

    python scripts/import_graph.py table_daemon/controller
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def _package_of(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root.parent).with_suffix("").parts)


def _target(node: ast.ImportFrom | ast.Import, module: str, is_pkg: bool) -> list[str]:
    """Fully qualified names a node imports (``from . import a, b`` gives the package's a and b)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        prefix = ".".join(base)
        mod = f"{prefix}.{node.module}" if node.module else prefix
    else:
        mod = node.module or ""
    return [mod] + [f"{mod}.{a.name}" for a in node.names]


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_pkg: bool, modules: set[str]) -> None:
        self.module, self.is_pkg, self.modules = module, is_pkg, modules
        self.found: list[tuple[str, str, int]] = []  # (target, where, line)
        self._depth = 0
        self._typing = False

    def _where(self) -> str:
        return "function" if self._depth else "typing" if self._typing else "module"

    def visit_If(self, node: ast.If) -> None:
        test = ast.unparse(node.test)
        if test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            was, self._typing = self._typing, True
            for child in node.body:
                self.visit(child)
            self._typing = was
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def _function(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        for t in _target(node, self.module, self.is_pkg):
            self.found.append((t, self._where(), node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod, *names = _target(node, self.module, self.is_pkg)
        subs = [t for t in names if t in self.modules]
        # ``from pkg import name``: the package (its __init__); ``from pkg import sub``: the submodule, and the
        # package too, whose __init__ runs first (an __init__ that imports the importer closes a cycle)
        for t in subs + ([mod] if mod in self.modules or len(subs) < len(names) else []):
            self.found.append((t, self._where(), node.lineno))


def graph(root: Path) -> tuple[dict[str, int], dict[str, dict[str, set[str]]]]:
    """(lines per module, module -> {imported module -> {where}}) for the package at ``root``."""
    files = sorted(root.rglob("*.py"))
    names = {_package_of(f, root) if f.name != "__init__.py" else _package_of(f.parent, root): f for f in files}
    lines: dict[str, int] = {}
    edges: dict[str, dict[str, set[str]]] = {}
    for name, path in names.items():
        text = path.read_text()
        lines[name] = len(text.splitlines())
        v = _Imports(name, path.name == "__init__.py", set(names))
        v.visit(ast.parse(text))
        out: dict[str, set[str]] = {}
        for target, where, _ in v.found:
            if target in names and target != name:
                out.setdefault(target, set()).add(where)
        edges[name] = out
    return lines, edges


def cycles(edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), over the imports that run."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w, where in edges.get(v, {}).items():
            if where == {"typing"}:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "table_daemon/controller").resolve()
    lines, edges = graph(root)
    short = root.name + "."
    in_function = 0
    print(f"{len(lines)} modules, {sum(lines.values())} lines")
    for name in sorted(lines):
        deps = []
        for target, where in sorted(edges[name].items()):
            shown = where - {"module"} - ({"typing"} if "module" in where else set())
            tag = "".join(f" [{w if w != 'function' else 'in function'}]" for w in sorted(shown))
            in_function += "function" in where
            deps.append(target.removeprefix(root.parent.name + ".").removeprefix(short) + tag)
        print(f"  {name.removeprefix(root.parent.name + '.'):<28} {lines[name]:>5}  -> {', '.join(deps) or '-'}")
    found = cycles(edges)
    for group in found:
        print("cycle:", " <-> ".join(g.removeprefix(root.parent.name + ".").removeprefix(short) for g in group))
    print(f"{len(found)} cycles, {in_function} imports inside functions")
    return 1 if found or in_function else 0


if __name__ == "__main__":
    raise SystemExit(main())
