"""Report the module graph of a Rust crate and fail when its top-level modules form a cycle.

A top-level module is `src/NAME.rs` or `src/NAME/`. An edge `a -> b` is any path
`crate::b` written in a file of `a` (in `use` items, grouped `use crate::{b, c}` and
inline paths alike). The strongly connected components of that graph with more than one
module are cycles: the layering (docs/ARCHITECTURE.md, "The map") lets dependencies
point down only, so any such component fails the check.

Usage: python .ci/module_cycles.py [CRATE_SRC ...] [--allow MOD,MOD,...]
With no crate given, checks rust/ferroflow-core/src.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

_LINE_COMMENT = re.compile(r"//[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CRATE_PATH = re.compile(r"\bcrate::(\{|\w+)")


def _strip_comments(text: str) -> str:
    return _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", text))


def _grouped_heads(text: str, start: int) -> list[str]:
    """The first segment of each path in the `{...}` group opening at `text[start]`."""
    depth, i, heads, item_start = 0, start, [], start + 1
    while i < len(text):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                heads.append(text[item_start:i])
                break
        elif ch == "," and depth == 1:
            heads.append(text[item_start:i])
            item_start = i + 1
        i += 1
    names = []
    for item in heads:
        m = re.match(r"\s*(\w+)", item)
        if m:
            names.append(m.group(1))
    return names


def _root_reexports(src: Path, modules: set[str]) -> dict[str, str]:
    """Submodules the crate root re-exports, mapped to the module that holds them.

    With `pub use tensor::{dtype, shape};` in the root, `crate::dtype` counts as `tensor`.
    """
    root = next((src / n for n in ("lib.rs", "main.rs") if (src / n).exists()), None)
    if root is None:
        return {}
    aliases = {}
    for m in re.finditer(r"pub use (\w+)::(\{[^}]*\}|\w+);", _strip_comments(root.read_text())):
        parent = m.group(1)
        if parent not in modules:
            continue
        for name in re.findall(r"\w+", m.group(2)):
            if (src / parent / f"{name}.rs").exists() or (src / parent / name).is_dir():
                aliases[name] = parent
    return aliases


def module_graph(src: Path) -> dict[str, set[str]]:
    """Edges between the crate's top-level modules (self-edges dropped)."""
    modules = {p.stem for p in src.glob("*.rs") if p.stem not in ("lib", "main")}
    modules |= {p.name for p in src.iterdir() if p.is_dir()}
    aliases = _root_reexports(src, modules)
    edges: dict[str, set[str]] = defaultdict(set)
    for path in src.rglob("*.rs"):
        rel = path.relative_to(src)
        owner = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        if owner not in modules:
            continue
        text = _strip_comments(path.read_text())
        for m in _CRATE_PATH.finditer(text):
            names = _grouped_heads(text, m.start(1)) if m.group(1) == "{" else [m.group(1)]
            for name in names:
                name = aliases.get(name, name)
                if name in modules and name != owner:
                    edges[owner].add(name)
    for name in modules:
        edges.setdefault(name, set())
    return dict(edges)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative); components in reverse topological order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                out.append(sorted(comp))
    return out


def main() -> int:
    """Print each crate's layers and cycles; non-zero when a cycle is found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crates", nargs="*", default=["rust/ferroflow-core/src"])
    args = parser.parse_args()
    failed = False
    for crate in args.crates:
        graph = module_graph(Path(crate))
        comps = strongly_connected(graph)
        cycles = [c for c in comps if len(c) > 1]
        print(f"{crate}: {len(graph)} top-level modules, {len(cycles)} cycle(s)")
        # Components come out dependencies first: print them as layers, bottom up.
        for comp in comps:
            deps = sorted({d for m in comp for d in graph[m]} - set(comp))
            tag = "CYCLE " if len(comp) > 1 else ""
            print(f"  {tag}{', '.join(comp)}" + (f"  -> {', '.join(deps)}" if deps else ""))
        for comp in cycles:
            failed = True
            print(f"error: module cycle in {crate}: {', '.join(comp)}")
            members = set(comp)
            for m in comp:
                inside = sorted(graph[m] & members)
                print(f"    {m} -> {', '.join(inside)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
