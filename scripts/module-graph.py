#!/usr/bin/env python3
"""The import graph between the modules of one Rust crate, and its cycles.

    scripts/module-graph.py [SRC_DIR] [--edges | --why] [--folders] [--tests] [--max-scc N]

SRC_DIR defaults to libcuda-shim/src. A module is one file (`foo.rs`, `foo/mod.rs`,
`foo/bar.rs`; `bin/` is another crate and is skipped). An edge A -> B means A names something of
B: a `use` of one of B's items, or a path through B in A's code (`crate::b::f()`, `b::f()` after
`use crate::b`, `super::f()`). A `pub use` re-export is followed to the module that defines the
item, so a folder's `mod.rs` that only declares and re-exports does not join its children into
one cycle. Unit-test modules (`#[cfg(test)]`) are left out unless `--tests` is given: what the
tests import is not part of the library's layering.

`--edges` lists each module's imports, `--why` also the paths that make each edge.
`--folders` also prints the graph between folders: the files directly in SRC_DIR count as one
group, `(root)`, except the crate root and the files named after `--top` (default `exports.rs`),
which sit above everything; a folder's files are its group.
It prints every strongly connected component of more than one module (modules that import each
other in a circle), then a summary line. With `--max-scc N` it exits 1 when a component has more
than N modules, so a check can keep the layering from regressing.

The parsing is lexical (comments and literals stripped, `use` trees expanded, paths matched by
pattern), which is exact for the way this crate writes paths; a macro that builds a path from
pieces would not be seen.
"""

import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(text):
    """Text without comments, string and char literals (replaced by spaces/empty literals)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            out.append('""')
            i = n if j < 0 else j + len(end)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}'), or a lifetime ('a) which stays.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def drop_test_modules(text):
    """Removes `#[cfg(test)]` items (inline test modules and test-only functions)."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]", text)
        if not m:
            return text
        # The item that follows ends at its closing brace, or at `;` when it has no body.
        j = m.end()
        brace = text.find("{", j)
        semi = text.find(";", j)
        if brace >= 0 and (semi < 0 or brace < semi):
            end = matching_brace(text, brace)
        else:
            end = semi
        text = text[: m.start()] + text[end + 1 :]


def inline_tests_as_self(text):
    """In an inline `mod tests { ... }`, `super` is the file's module: rewritten as `self`."""
    out, pos = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < pos:
            continue
        end = matching_brace(text, m.end() - 1)
        out.append(text[pos : m.end()])
        out.append(re.sub(r"\bsuper::", "self::", text[m.end() : end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def split_top(text, sep=","):
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def use_leaves(tree, prefix=()):
    """Expands a use tree into (path segments, local name or '*')."""
    tree = tree.strip()
    m = re.match(r"^(.*?)::\s*\{(.*)\}$", tree, re.S)
    if tree.startswith("{") and tree.endswith("}"):
        for part in split_top(tree[1:-1]):
            yield from use_leaves(part, prefix)
        return
    if m:
        head = [s.strip() for s in m.group(1).split("::") if s.strip()]
        for part in split_top(m.group(2)):
            yield from use_leaves(part, prefix + tuple(head))
        return
    alias = None
    am = re.match(r"^(.*)\s+as\s+(" + IDENT + r")$", tree, re.S)
    if am:
        tree, alias = am.group(1).strip(), am.group(2)
    segs = [s.strip() for s in tree.split("::") if s.strip()]
    if segs and segs[-1] == "self":
        segs = segs[:-1]
        name = alias or (segs[-1] if segs else None)
    elif segs and segs[-1] == "*":
        segs, name = segs[:-1], "*"
    else:
        name = alias or (segs[-1] if segs else None)
    yield prefix + tuple(segs), name


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # module path (tuple) -> file path
        self.group = {}  # module path -> folder group (see --folders)
        for root, dirs, names in os.walk(src):
            dirs[:] = sorted(d for d in dirs if not (root == src and d == "bin"))
            rel = os.path.relpath(root, src)
            base = () if rel == "." else tuple(rel.split(os.sep))
            for name in sorted(names):
                if not name.endswith(".rs"):
                    continue
                stem = name[:-3]
                if base == () and stem in ("lib", "main"):
                    path = ()
                elif stem == "mod":
                    path = base
                else:
                    path = base + (stem,)
                self.files[path] = os.path.join(root, name)
                self.group[path] = "(root)" if base == () else "/".join(base) + "/"
        self.text = {}
        self.uses = {}  # module -> [(segments, local name, is pub)]
        for mod, f in self.files.items():
            with open(f, encoding="utf-8") as fh:
                self.text[mod] = strip(fh.read())

    def prepare(self, tests):
        for mod in self.files:
            text = inline_tests_as_self(self.text[mod]) if tests else drop_test_modules(self.text[mod])
            self.text[mod] = text
            uses = []
            for m in re.finditer(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+([^;]+);", text):
                for segs, name in use_leaves(m.group(2)):
                    uses.append((segs, name, bool(m.group(1))))
            self.uses[mod] = uses

    def is_namespace(self, mod):
        """A file that only declares modules and re-exports (lib.rs, a folder's mod.rs)."""
        f = self.files[mod]
        return os.path.basename(f) in ("lib.rs", "mod.rs")

    def reexport(self, mod, name, seen):
        """Where `mod::name` is defined, when `mod` re-exports it: ('mod', path) or ('item', path)."""
        for segs, local, public in self.uses.get(mod, ()):
            if public and local == name:
                return self.resolve(list(segs), mod, {}, seen)
        return None

    def resolve(self, segs, cur, aliases, seen=frozenset()):
        """('mod', M) when the path names module M, ('item', M) for an item of M, else None."""
        if not segs:
            return None
        first = segs[0]
        i = 1
        if first == "crate":
            m = ()
        elif first == "super":
            m = cur[:-1]
            while i < len(segs) and segs[i] == "super":
                m, i = m[:-1], i + 1
        elif first == "self":
            m = cur
        elif first in aliases:
            kind, m = aliases[first]
            if kind == "item":
                return ("item", m)
        elif cur + (first,) in self.files:
            m = cur + (first,)
        else:
            return None  # another crate (std, abi, engine) or a local name
        while i < len(segs):
            s = segs[i]
            if m + (s,) in self.files:
                m, i = m + (s,), i + 1
                continue
            key = (m, s)
            if key in seen:
                return ("item", m)
            target = self.reexport(m, s, seen | {key})
            if target is None:
                return ("item", m)
            if target[0] == "item":
                return target
            m, i = target[1], i + 1
        return ("mod", m)

    def edges(self):
        graph = {mod: set() for mod in self.files}
        self.why = {mod: {} for mod in self.files}
        for mod in self.files:
            aliases = {}
            out = graph[mod]
            for segs, name, _public in self.uses[mod]:
                if segs and segs[0] not in ("crate", "super", "self") and mod + (segs[0],) not in self.files:
                    continue
                r = self.resolve(list(segs), mod, {})
                if r is None:
                    continue
                kind, target = r
                if name == "*":
                    if kind == "mod":
                        for child in self.files:
                            if child[:-1] == target and child:
                                aliases.setdefault(child[-1], ("mod", child))
                        for segs2, local, public in self.uses.get(target, ()):
                            if public and local and local != "*":
                                r2 = self.resolve(list(segs2), target, {})
                                if r2:
                                    aliases.setdefault(local, r2)
                        if not self.is_namespace(target):
                            out.add(target)
                            self.why[mod].setdefault(target, set()).add("use " + "::".join(segs) + "::*")
                    continue
                if kind == "mod":
                    aliases[name] = ("mod", target)
                else:
                    out.add(target)
                    self.why[mod].setdefault(target, set()).add("use " + "::".join(segs))
            if self.is_namespace(mod):
                # Declarations and re-exports are not imports; a namespace file's own code is.
                body = re.sub(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+[^;]+;", "", self.text[mod])
            else:
                body = re.sub(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+[^;]+;", "", self.text[mod])
            for m in re.finditer(r"(?<![\w:$])(" + IDENT + r"(?:\s*::\s*" + IDENT + r")+)", body):
                segs = [s.strip() for s in m.group(1).split("::")]
                if (
                    segs[0] not in ("crate", "super", "self")
                    and segs[0] not in aliases
                    and mod + (segs[0],) not in self.files
                ):
                    continue
                r = self.resolve(segs, mod, aliases)
                if r:
                    out.add(r[1])
                    self.why[mod].setdefault(r[1], set()).add("::".join(segs))
            out.discard(mod)
            # A namespace parent is reached by resolution only; its children are not its imports.
            graph[mod] = {t for t in out if t in self.files}
        return graph


def sccs(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def name(mod):
    return "::".join(mod) or "crate"


def main():
    args = sys.argv[1:]
    values = {args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--max-scc", "--top")}
    src = next((a for a in args if not a.startswith("--") and a not in values), "libcuda-shim/src")
    max_scc = None
    if "--max-scc" in args:
        max_scc = int(args[args.index("--max-scc") + 1])
    crate = Crate(src)
    crate.prepare(tests="--tests" in args)
    graph = crate.edges()
    if "--edges" in args or "--why" in args:
        for mod in sorted(graph):
            print(f"{name(mod)} -> {', '.join(name(t) for t in sorted(graph[mod]))}")
            if "--why" in args:
                for t in sorted(graph[mod]):
                    print(f"    {name(t)}: {', '.join(sorted(crate.why[mod][t]))}")
        print()
    if "--folders" in args:
        top = {"exports.rs"}
        if "--top" in args:
            top = set(args[args.index("--top") + 1].split(","))
        tops = {m for m, f in crate.files.items() if m == () or os.path.basename(f) in top and m[:-1] == ()}
        groups = {}
        for mod, outs in graph.items():
            if mod in tops:
                continue
            g = crate.group[mod]
            groups.setdefault(g, set())
            for t in outs:
                if t not in tops and crate.group[t] != g:
                    groups[g].add(crate.group[t])
                elif t in tops:
                    groups[g].add("(top)")
        for g in sorted(groups):
            print(f"{g} -> {', '.join(sorted(groups[g]))}")
        folder_graph = {g: {t for t in v if t in groups} for g, v in groups.items()}
        cyc = [c for c in sccs(folder_graph) if len(c) > 1]
        for c in cyc:
            print(f"folder cycle: {', '.join(c)}")
        print(f"{len(groups)} folder groups; {len(cyc)} folder cycles")
        print()
    comps = sorted((c for c in sccs(graph) if len(c) > 1), key=lambda c: (-len(c), c))
    for c in comps:
        inner = sum(len(graph[m] & set(c)) for m in c)
        print(f"cycle of {len(c)} modules ({inner} edges inside): {', '.join(name(m) for m in c)}")
    largest = max((len(c) for c in comps), default=1)
    in_cycles = sum(len(c) for c in comps)
    print(
        f"{len(graph)} modules, {sum(len(v) for v in graph.values())} edges; "
        f"{len(comps)} cycles holding {in_cycles} modules; largest {largest}"
    )
    if max_scc is not None and largest > max_scc:
        sys.exit(1)


if __name__ == "__main__":
    main()
