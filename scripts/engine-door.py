#!/usr/bin/env python3
"""Checks that the engine is the one door to storage (docs/ARCHITECTURE.md, "Modules"):

1. the `hearclear` commands and HearClearCLI import no HearClearStore (as the server, the admin and
   the pages import none), nor do the tests of the server, the admin, the pages and the commands
   (Tests/HearClearServerTests, Tests/HearClearCommandTests): they reach storage through the engine
   (`Engine.testing` of HearClearServerTestSupport), as the server does; only the Store's and the
   engine's own tests, and the test support that builds fixtures below the engine, import it;
2. no public symbol of HearClearEngine names a type of HearClearStore: its public declarations, read
   from the symbol graph of `swift package dump-symbol-graph --minimum-access-level public`, hold
   no type identifier of that module (`package` declarations, which tests and the simulator within
   the package may use, are not public and not read);
3. every public type, function and initializer of HearClearEngine (its extensions of other
   modules' types too) has a doc comment saying what it is for (what the compiler makes, such as
   `hash(into:)` of a `Hashable`, aside).

Prints each offence and exits 1 when there is one. Part of `make test` (after the build; the
symbol graph takes about 30 s more); alone: `make engine-door`.

Usage: scripts/engine-door.py [--root DIR] [--symbol-graphs DIR (already dumped)]
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

COMMANDS = ["Sources/hearclear", "Sources/HearClearCLI", "Tests/HearClearServerTests", "Tests/HearClearCommandTests"]
# Files above the engine that may import the Store, each with its reason.
ALLOWED = {
    "Tests/HearClearServerTests/Operations/CrashTests.swift":
        "starts and SIGKILLs a PostgreSQL cluster of its own (EmbeddedPostgres): the process, not storage",
}
IMPORT_STORE = re.compile(r"^\s*(?:@\w+\s+)*import\s+HearClearStore\b", re.M)
# A Swift USR names its module by length and name: `s:14HearClearStore17CheckinRepositoryV`.
STORE_TYPE = "s:14HearClearStore"


def store_imports(root):
    for folder in COMMANDS:
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.swift"), recursive=True)):
            with open(path, encoding="utf-8") as f:
                relative = os.path.relpath(path, root)
                if IMPORT_STORE.search(f.read()) and relative not in ALLOWED:
                    yield relative


DOCUMENTED = {"swift.struct", "swift.enum", "swift.class", "swift.protocol", "swift.typealias", "swift.func",
              "swift.method", "swift.type.method", "swift.init"}


def public_symbols(graphs):
    """The public symbols of HearClearEngine's graphs (its own, and its extensions of others')."""
    for path in sorted(glob.glob(os.path.join(graphs, "HearClearEngine*.symbols.json"))):
        with open(path, encoding="utf-8") as f:
            for symbol in json.load(f)["symbols"]:
                if symbol.get("accessLevel") in ("public", "open"):
                    yield symbol


def public_store_names(symbols):
    for symbol in symbols:
        named = sorted({fragment["spelling"] for fragment in symbol.get("declarationFragments", [])
                        if fragment.get("preciseIdentifier", "").startswith(STORE_TYPE)})
        if named:
            yield ".".join(symbol["pathComponents"]), named


def undocumented(symbols):
    for symbol in symbols:
        if (symbol["kind"]["identifier"] in DOCUMENTED and "docComment" not in symbol
                and "::SYNTHESIZED::" not in symbol["identifier"]["precise"]):
            yield ".".join(symbol["pathComponents"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--symbol-graphs", help="a folder of symbol graphs already dumped")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    problems = [f"{path} imports HearClearStore: give the engine the operation it needs"
                for path in store_imports(root)]
    graphs = args.symbol_graphs
    if not graphs:
        swift = os.environ.get("SWIFT", "swift")
        out = subprocess.run([swift, "package", "dump-symbol-graph", "--minimum-access-level", "public"],
                             cwd=root, capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stdout + out.stderr, file=sys.stderr)
            print("engine door: swift package dump-symbol-graph failed", file=sys.stderr)
            return 1
        found = re.search(r"Files written to (\S+)", out.stdout + out.stderr)
        graphs = found.group(1) if found else os.path.join(root, ".build", "symbolgraph")
    symbols = list(public_symbols(graphs))
    if not symbols:
        problems.append(f"no public symbol of HearClearEngine in {graphs}")
    problems += [f"HearClearEngine's public {name} names the Store's {', '.join(types)}"
                 for name, types in public_store_names(symbols)]
    problems += [f"HearClearEngine's public {name} has no doc comment saying what it is for"
                 for name in undocumented(symbols)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"engine door: {len(problems)} offence(s) (docs/ARCHITECTURE.md, \"Modules\")", file=sys.stderr)
        return 1
    print(f"engine door: the commands and the tests above the engine import no Store; the engine's {len(symbols)} public symbols name none of "
          f"its types, and each of its types and functions says what it is for")
    return 0


if __name__ == "__main__":
    sys.exit(main())
