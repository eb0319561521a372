#!/usr/bin/env python3
"""Checks that every target of Package.swift declares exactly the modules its files import.

For each Swift target (library, executable, test), the modules named by `import` lines in its
folder (Sources/<name> or Tests/<name>) are compared with its `dependencies:` in Package.swift
(target names and products by name). Prints each target that imports a module it does not
declare, or declares one it does not import, and exits 1 when there is one. The platform's own
modules (Foundation, Glibc, Synchronization, Testing, …) need no declaration; a system library
target (CSndFile, …) counts as any other module.

Usage: scripts/module-dependencies.py [--root DIR]
"""

import argparse
import glob
import os
import re
import sys

PLATFORM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin",
    "Dispatch", "Synchronization", "Testing", "XCTest", "Observation", "RegexBuilder", "_Concurrency", "os",
}
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |package |private |fileprivate )?"
    r"import\s+(?:struct |class |enum |func |protocol |typealias |var |let )?([A-Z_]\w*)")


def call_body(text, start):
    """The text of the call whose `(` precedes `start`, up to its matching `)`."""
    depth, i = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def declared(call):
    m = re.search(r"dependencies:\s*\[", call)
    if not m:
        return set()
    depth, i = 1, m.end()
    while depth:
        depth += {"[": 1, "]": -1}.get(call[i], 0)
        i += 1
    body = call[m.end():i - 1]
    products = set(re.findall(r'\.product\(\s*name:\s*"([^"]+)"', body))
    names = set(re.findall(r'"([^"]+)"', re.sub(r"\.product\([^)]*\)", "", body)))
    return products | names


def imported(folder):
    modules = set()
    for path in glob.glob(os.path.join(folder, "**", "*.swift"), recursive=True):
        with open(path, encoding="utf-8") as f:
            in_string = False
            for line in f:
                if line.count('"""') % 2 == 1:
                    in_string = not in_string
                    continue
                m = None if in_string else IMPORT.match(line)
                if m:
                    modules.add(m.group(1))
    return modules


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    root = os.path.normpath(parser.parse_args().root)
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as f:
        manifest = re.sub(r"//[^\n]*", "", f.read())
    targets = manifest[manifest.index("targets:"):]
    problems = 0
    for m in re.finditer(r'\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"', targets):
        kind, name = m.groups()
        call = call_body(targets, m.end())
        explicit = re.search(r'path:\s*"([^"]+)"', call)
        folder = explicit.group(1) if explicit else os.path.join("Tests" if kind == "testTarget" else "Sources", name)
        imports = imported(os.path.join(root, folder)) - PLATFORM - {name}
        deps = declared(call)
        missing, unused = sorted(imports - deps), sorted(deps - imports)
        if missing:
            print(f"{name}: imports {', '.join(missing)} without declaring it in Package.swift")
        if unused:
            print(f"{name}: declares {', '.join(unused)} in Package.swift but imports it nowhere")
        problems += bool(missing) + bool(unused)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
