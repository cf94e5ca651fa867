#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The library's includes go only downward through its layers, and never in a cycle.

usage: include_layers.py SOURCE_DIR [LAYERS_FILE]
       include_layers.py --self-test

Reads the layer order and the modules of each layer from LAYERS_FILE
(default: tests/architecture/layers.txt, whose header explains the rules); a
module in a folder src/<layer>/ is in that layer. Looks at every
`#include "..."` of the library's sources (src/, tests excluded) and public
headers (include/safesubst/), and prints each module of no layer (or of two),
each include that goes up the layer order, and each include cycle with the
includes that close it. Exits 1 when there is any of them. --self-test runs
it on a small tree that has each problem and checks that it reports them.
"""

import contextlib
import io
import os
import re
import sys
import tempfile
from collections import defaultdict

INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
NOT_LIBRARY = re.compile(r"_(test|perftest|fuzz)\.cc$")


def read_layers(path):
    """The layers in order, the sibling pairs and the module -> layer table."""
    order, siblings, table, problems = [], set(), {}, []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("layer "):
                order.append(line[len("layer "):].split(":", 1)[0].strip())
            elif line.startswith("sibling "):
                siblings.add(frozenset(line.split()[1:]))
            else:
                layer, _, modules = line.partition(":")
                layer = layer.strip()
                if layer not in order:
                    problems.append(f"{path}:{number}: '{layer}' is not a layer declared above it")
                for module in modules.split():
                    if module in table:
                        problems.append(f"{path}:{number}: module {module} is listed twice")
                    table[module] = layer
    return order, siblings, table, problems


def library_files(root):
    """(path relative to root, node name, module name) of every library source."""
    files = []
    for directory, _, names in os.walk(os.path.join(root, "src")):
        for name in sorted(names):
            if name.endswith((".h", ".cc")) and not NOT_LIBRARY.search(name):
                path = os.path.relpath(os.path.join(directory, name), root)
                module = name.rsplit(".", 1)[0]
                files.append((path, module, module))
    public = os.path.join(root, "include", "safesubst")
    for name in sorted(os.listdir(public)):
        if name.endswith(".h"):
            files.append((os.path.join("include", "safesubst", name), "safesubst/" + name, name[:-2]))
    return files


def find_cycles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return cycles


def check(root, layers_file):
    order, siblings, table, problems = read_layers(layers_file)
    rank = {layer: i for i, layer in enumerate(order)}
    files = library_files(root)

    # The layer of each module: its folder src/<layer>/, else the table; a
    # public header is in the layer of its module in src/, else the table's.
    layer_of, placed = {}, set()
    for path, node, module in files:  # src/ first, then include/
        parts = path.split(os.sep)
        folder = parts[1] if parts[0] == "src" and len(parts) > 2 else None
        if folder is not None and folder not in rank:
            problems.append(f"{path}: src/{folder}/ is not a layer of {layers_file}")
            continue
        layer = folder or table.get(module)
        if folder and module in table and table[module] != folder:
            problems.append(f"{path}: in src/{folder}/ but listed in layer {table[module]}")
        if node != module and layer is None:
            layer = layer_of.get(module)
        if layer is None:
            problems.append(f"{path}: module {module} is in no layer: add it to {layers_file}")
            continue
        if layer_of.setdefault(module, layer) != layer:
            problems.append(f"{path}: module {module} is in two layers, {layer_of[module]} and {layer}")
        placed.add(module)
    for module in sorted(set(table) - placed):
        problems.append(f"{layers_file}: module {module} has no file in src/ or include/safesubst/")

    nodes = {node: module for _, node, module in files}
    edges, where = defaultdict(set), {}
    upward = []
    for path, node, module in files:
        edges[node]  # every node is in the graph
        with open(os.path.join(root, path), encoding="utf-8") as source:
            for number, line in enumerate(source, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1)
                target = target if target.startswith("safesubst/") else os.path.basename(target)[:-2]
                if target not in nodes or target == node:
                    continue
                edges[node].add(target)
                where.setdefault((node, target), f"{path}:{number}")
                source_layer, target_layer = layer_of.get(module), layer_of.get(nodes[target])
                if source_layer is None or target_layer is None or source_layer == target_layer:
                    continue
                if rank[target_layer] > rank[source_layer] or frozenset((source_layer, target_layer)) in siblings:
                    upward.append(f"{path}:{number}: {source_layer} includes {target_layer}: {line.strip()}")

    cycles = find_cycles(edges)
    by_layer = defaultdict(list)
    for module, layer in layer_of.items():
        by_layer[layer].append(module)
    for layer in order:
        print(f"{layer}: {len(by_layer[layer])} modules")
    for problem in problems:
        print(problem)
    print(f"{len(upward)} includes going up the layer order")
    for include in upward:
        print("  " + include)
    print(f"{len(cycles)} include cycles")
    for cycle in cycles:
        print("  [" + ", ".join(cycle) + "]")
        for node in cycle:
            for target in sorted(edges[node] & set(cycle)):
                print(f"    {node} -> {target} ({where[(node, target)]})")
    return 1 if problems or upward or cycles else 0


def self_test():
    """Runs check() on a tree with an upward include, a cycle and an unplaced module."""
    sources = {
        "tests/layers.txt": "layer low: x\nlayer high: y\nlow: a b\nhigh: c\n",
        "src/a.h": '#include "safesubst/c.h"\n',  # low includes high
        "src/b.h": '#include "a.h"\n',
        "src/a.cc": '#include "b.h"\n',  # a -> b -> a
        "src/high/c.cc": '#include "a.h"\n',  # placed by its folder: fine
        "src/d.cc": "",  # in no layer
        "include/safesubst/c.h": "",
    }
    with tempfile.TemporaryDirectory() as root:
        for name, text in sources.items():
            os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as out:
                out.write(text)
        report = io.StringIO()
        with contextlib.redirect_stdout(report):
            status = check(root, os.path.join(root, "tests", "layers.txt"))
    expected = [
        "src/d.cc: module d is in no layer",
        "1 includes going up the layer order",
        'src/a.h:1: low includes high: #include "safesubst/c.h"',
        "1 include cycles",
        "[a, b]",
    ]
    missing = [line for line in expected if line not in report.getvalue()]
    if status != 1 or missing:
        print(report.getvalue() + f"status {status}; missing from the report: {missing}")
        return 1
    print("the checker reports an upward include, a cycle and a module of no layer")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    source_dir = sys.argv[1]
    sys.exit(check(source_dir, sys.argv[2] if len(sys.argv) > 2 else
                   os.path.join(source_dir, "tests", "architecture", "layers.txt")))
