#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layering of kernel/ (issue 15), checked against kernel/LAYERS.

  layering.py [--kernel DIR] [--layers FILE] [--objdir DIR] [--list | --dot]

kernel/LAYERS names the layers, top first, one a line: the layer's name,
then one or more path prefixes relative to kernel/ (a folder ending in '/'
or a file name); a file belongs to the layer of its longest matching
prefix.  The layer "shared" (listed last) holds headers of object types
only: every layer may include them.  An optional line

  shared-may-include  wire probe hw

names the layers whose headers a shared header may include (besides
other shared headers).  '#' starts a comment.

The rules (every .c and .h under kernel/ but tests/ and the generated
*.mod.c):
  unmapped  every file is in a layer;
  include   each #include "X" (X resolved relative to the including
            file's folder, then to kernel/) is of the includer's layer,
            a lower one, or shared;
  call      with --objdir (Kbuild's objects, a tree that mirrors kernel/):
            a global symbol defined by one object (nm: T D B R W V) and
            undefined in another is an edge from the second's source file
            to the first's; an edge to a higher layer is a violation;
  cycle     every strongly connected component of more than one file in
            the graph of those edges, whatever their layers.

One line per violation (a cycle's edges follow it, indented), then a
summary; the exit status is 1 if there is any violation, 2 on a usage or
LAYERS syntax error.  --list prints the file-level call graph with layers,
--dot the same as a Graphviz digraph (one cluster per layer), and check
nothing.
"""

import argparse
import os
import re
import subprocess
import sys

SHARED = "shared"
GLOBAL_TYPES = set("TDBRWV")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


class LayersError(Exception):
    pass


def parse_layers(path):
    """[(name, [prefix...])] top first, and the shared-may-include set."""
    layers, may = [], None
    seen = set()
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            where = f"{path}:{n}"
            if line[0] == "shared-may-include":
                if may is not None:
                    raise LayersError(f"{where}: a second shared-may-include line")
                may = set(line[1:])
                continue
            if len(line) < 2:
                raise LayersError(f"{where}: a layer needs a name and a path prefix")
            name = line[0]
            if name in seen:
                raise LayersError(f"{where}: layer {name} listed twice")
            if layers and layers[-1][0] == SHARED:
                raise LayersError(f"{where}: {SHARED} must be the last layer")
            seen.add(name)
            for p in line[1:]:
                if p.startswith("/") or ".." in p.split("/"):
                    raise LayersError(f"{where}: {p}: a prefix is relative to kernel/")
            layers.append((name, line[1:]))
    if not layers:
        raise LayersError(f"{path}: no layers")
    for name in sorted(may or ()):
        if name not in seen or name == SHARED:
            raise LayersError(f"{path}: shared-may-include: {name} is not a layer")
    return layers, may or set()


class Map:
    def __init__(self, layers, may):
        self.rank = {name: i for i, (name, _) in enumerate(layers)}
        self.may = may
        # Longest prefix first.
        self.prefixes = sorted(((p, name) for name, ps in layers for p in ps),
                               key=lambda t: -len(t[0]))

    def layer(self, rel):
        for p, name in self.prefixes:
            if p.endswith("/") and rel.startswith(p) or rel == p:
                return name
        return None

    def may_include(self, src, dst):
        if dst == SHARED:
            return True
        if src == SHARED:
            return dst in self.may
        return self.rank[dst] >= self.rank[src]

    def may_call(self, src, dst):
        # shared holds no code; if it did, anyone may use it, and it may
        # use what a shared header may include.
        return self.may_include(src, dst)


def source_files(kdir):
    """Every .c and .h under kdir, relative, but tests/ and *.mod.c."""
    out = []
    for root, dirs, files in os.walk(kdir):
        rel_root = os.path.relpath(root, kdir)
        if rel_root == ".":
            rel_root = ""
        dirs[:] = sorted(d for d in dirs
                         if not (rel_root == "" and d == "tests") and not d.startswith("."))
        for fn in sorted(files):
            if fn.endswith(".mod.c") or not fn.endswith((".c", ".h")):
                continue
            out.append(os.path.join(rel_root, fn))
    return out


def includes(kdir, rel):
    """The quoted includes of kdir/rel that resolve inside kdir."""
    found = []
    with open(os.path.join(kdir, rel), encoding="utf-8", errors="replace") as f:
        for line in f:
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            name = m.group(1)
            for base in (os.path.dirname(rel), ""):
                cand = os.path.normpath(os.path.join(base, name))
                if cand.startswith("../") or cand == "..":
                    continue
                if os.path.isfile(os.path.join(kdir, cand)):
                    found.append(cand)
                    break
    return found


def objects(objdir, kdir):
    """Objects of the module (relative to objdir) with their sources
    (relative to kdir): the <module>.mod lists when there are any (Kbuild
    writes them), else every .o but the combined and *.mod.o ones; tests/
    left out, and objects whose source is gone (left by a move) skipped."""
    mods = sorted(fn for fn in os.listdir(objdir) if fn.endswith(".mod"))
    top = os.path.realpath(objdir)
    rels = []
    if mods:
        for m in mods:
            with open(os.path.join(objdir, m), encoding="utf-8") as f:
                for p in f.read().split():
                    parts = [x for x in p.split("/") if x]
                    if p.startswith(top + "/"):
                        rels.append(p[len(top) + 1:])
                        continue
                    # The longest tail of the recorded path that is in
                    # objdir (the tree was copied since Kbuild wrote it).
                    for k in range(len(parts)):
                        cand = "/".join(parts[k:])
                        if os.path.isfile(os.path.join(objdir, cand)):
                            rels.append(cand)
                            break
                    else:
                        print(f"layering: {p} (listed in {m}) is not in {objdir}",
                              file=sys.stderr)
    else:
        combined = {fn[:-4] + ".o" for fn in os.listdir(objdir) if fn.endswith(".mod")}
        for root, dirs, files in os.walk(objdir):
            dirs.sort()
            for fn in sorted(files):
                rel = os.path.relpath(os.path.join(root, fn), objdir)
                if not fn.endswith(".o") or fn.endswith(".mod.o") or rel in combined:
                    continue
                rels.append(rel)
        rels = [r for r in rels if r != "rdma_vrnic.o"]
    out = []
    for rel in sorted(set(rels)):
        if rel.startswith("tests/"):
            continue
        src = None
        for ext in (".c", ".S"):
            if os.path.isfile(os.path.join(kdir, rel[:-2] + ext)):
                src = rel[:-2] + ext
                break
        if src is None:
            print(f"layering: {rel}: no source in {kdir}, skipped", file=sys.stderr)
            continue
        out.append((rel, src))
    return out


def nm_symbols(objdir, rels):
    """{object: (defined globals, undefined)}, one nm for them all."""
    nm = os.environ.get("NM", "nm")
    res = subprocess.run([nm, "--"] + rels, cwd=objdir, capture_output=True,
                         text=True, check=True)
    out = {r: (set(), set()) for r in rels}
    cur = rels[0] if len(rels) == 1 else None
    for line in res.stdout.splitlines():
        if line.endswith(":") and line[:-1] in out:
            cur = line[:-1]
            continue
        f = line.split()
        if cur is None:
            continue
        if len(f) == 2 and f[0] == "U":
            out[cur][1].add(f[1])
        elif len(f) == 3 and f[1] in GLOBAL_TYPES:
            out[cur][0].add(f[2])
    return out


def call_edges(objdir, kdir):
    """{(caller source, callee source): {symbol}} and the object count."""
    objs = objects(objdir, kdir)
    owner, uses = {}, {}
    syms = nm_symbols(objdir, [rel for rel, _ in objs]) if objs else {}
    for rel, src in objs:
        d, u = syms[rel]
        for s in d:
            owner.setdefault(s, set()).add(src)
        uses[src] = uses.get(src, set()) | u
    edges = {}
    for src, u in uses.items():
        for s in u:
            for dst in owner.get(s, ()):
                if dst != src:
                    edges.setdefault((src, dst), set()).add(s)
    return edges, len(objs)


def sccs(nodes, succ):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="kernel", help="the module's source (default kernel)")
    ap.add_argument("--layers", help="the layer map (default KERNEL/LAYERS)")
    ap.add_argument("--objdir", help="Kbuild's objects, mirroring KERNEL (calls and cycles)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--list", action="store_true", help="print the call graph, check nothing")
    g.add_argument("--dot", action="store_true", help="the call graph for Graphviz")
    a = ap.parse_args()

    kdir = a.kernel.rstrip("/") or "."
    kname = os.path.basename(os.path.abspath(kdir))
    layers_path = a.layers or os.path.join(kdir, "LAYERS")
    lname = f"{kname}/LAYERS" if a.layers is None else a.layers

    def show(rel):
        return f"{kname}/{rel}"

    if not os.path.isfile(layers_path):
        print(f"layering: {lname} missing (the layer map: see the head of {sys.argv[0]})")
        return 1
    try:
        lmap = Map(*parse_layers(layers_path))
    except LayersError as e:
        print(f"layering: {e}", file=sys.stderr)
        return 2
    if not os.path.isdir(kdir):
        print(f"layering: {kdir}: no such folder", file=sys.stderr)
        return 2

    files = source_files(kdir)
    layer = {f: lmap.layer(f) for f in files}
    edges, nobj = {}, 0
    if a.objdir:
        if not os.path.isdir(a.objdir):
            print(f"layering: {a.objdir}: no such folder", file=sys.stderr)
            return 2
        try:
            edges, nobj = call_edges(a.objdir, kdir)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"layering: nm: {e}", file=sys.stderr)
            return 2
        for (s, d) in edges:
            for f in (s, d):
                if f not in layer:
                    layer[f] = lmap.layer(f)

    def lay(f):
        return layer.get(f) or "?"

    if a.list or a.dot:
        if a.dot:
            print("digraph vrnic {\n\trankdir=TB;\n\tnode [shape=box, fontsize=10];")
            names = [n for n in lmap.rank] + ["?"]
            for n in names:
                members = sorted(f for f in set(f for e in edges for f in e) if lay(f) == n)
                if members:
                    print(f'\tsubgraph "cluster_{n}" {{ label="{n}";')
                    for f in members:
                        print(f'\t\t"{f}";')
                    print("\t}")
        for (s, d), syms in sorted(edges.items()):
            up = lay(s) != "?" and lay(d) != "?" and not lmap.may_call(lay(s), lay(d))
            if a.dot:
                attr = ', color=red' if up else ''
                print(f'\t"{s}" -> "{d}" [label="{len(syms)}"{attr}];')
            else:
                print(f"{show(s)} ({lay(s)}) -> {show(d)} ({lay(d)}){' UP' if up else ''}: "
                      + " ".join(sorted(syms)))
        if a.dot:
            print("}")
        return 0

    v = {"unmapped": 0, "include": 0, "call": 0, "cycle": 0}
    nincl = 0
    for f in sorted(layer):
        if layer[f] is None:
            print(f"{show(f)} is in no layer of {lname}: add it")
            v["unmapped"] += 1
    for f in files:
        for inc in includes(kdir, f):
            nincl += 1
            if inc.startswith("tests/"):
                continue
            src, dst = layer[f], layer.get(inc, lmap.layer(inc))
            if src is None or dst is None:
                continue
            if not lmap.may_include(src, dst):
                why = ("a shared header may include only shared headers and those of "
                       + (", ".join(sorted(lmap.may)) or "no layer")) if src == SHARED \
                    else "a lower layer may not include an upper one"
                print(f"{show(f)} ({src}) includes {show(inc)} ({dst}): {why}")
                v["include"] += 1
    for (s, d), syms in sorted(edges.items()):
        if layer.get(s) is None or layer.get(d) is None:
            continue
        if not lmap.may_call(layer[s], layer[d]):
            print(f"{show(s)} ({layer[s]}) calls {show(d)} ({layer[d]}): "
                  f"{', '.join(sorted(syms))}: a lower layer may not use an upper one")
            v["call"] += 1
    succ = {}
    for (s, d) in edges:
        succ.setdefault(s, []).append(d)
    for k in succ:
        succ[k].sort()
    nodes = sorted(set(f for e in edges for f in e))
    for comp in sccs(nodes, succ):
        if len(comp) < 2:
            continue
        v["cycle"] += 1
        print(f"cycle of {len(comp)} files: "
              + ", ".join(f"{show(f)} ({lay(f)})" for f in comp))
        cs = set(comp)
        pairs = [f"{show(s)} <-> {show(d)}" for (s, d) in sorted(edges)
                 if s in cs and d in cs and s < d and (d, s) in edges]
        if pairs:
            print(f"    two-file cycles in it: {'; '.join(pairs)}")
        for (s, d), syms in sorted(edges.items()):
            if s in cs and d in cs:
                print(f"    {show(s)} -> {show(d)}: {', '.join(sorted(syms))}")
    total = sum(v.values())
    calls = (f", {len(edges)} file-to-file call edges from {nobj} objects" if a.objdir
             else ", calls not checked (no --objdir)")
    print(f"layering: {len(files)} files in {len(lmap.rank)} layers, {nincl} includes{calls}: "
          f"{total} violations ({v['unmapped']} unmapped, {v['include']} include, "
          f"{v['call']} call, {v['cycle']} cycle)")
    return 1 if total else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # --list | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
