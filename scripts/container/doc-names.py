#!/usr/bin/env python3
"""Every name the operator's documents give is real: run by scripts/container-check.sh.

In README.md, docs/OPERATIONS.md, docs/API.md and docs/PAGES.md:
  * each `make TARGET` is a target of the Makefile;
  * each relative link goes to a file of the repository;
  * each `hearclear …` command line (in code blocks and in `code`) names a subcommand of the
    shipped binary, and each of its --flags appears in that subcommand's --help.

--hearclear is how to run the binary, e.g. "docker run --rm --entrypoint /app/hearclear IMAGE"
or ".build/debug/hearclear". Prints what it checked; exits 1 with what is not real.
"""

import argparse
import functools
import pathlib
import re
import shlex
import subprocess
import sys

DOCUMENTS = ["README.md", "docs/OPERATIONS.md", "docs/API.md", "docs/PAGES.md"]
ROOT = pathlib.Path(__file__).resolve().parents[2]


def code_texts(text):
    """Code blocks' lines and inline code spans."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
    outside = re.sub(r"```[a-z]*\n.*?```", "", text, flags=re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    return lines + re.findall(r"`([^`\n]+)`", outside)


def make_targets():
    makefile = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][a-z0-9-]*):", makefile, re.M))


@functools.cache
def help_text(runner, words):
    command = shlex.split(runner) + list(words) + ["--help"]
    result = subprocess.run(command, capture_output=True, text=True)
    return result.stdout if result.returncode == 0 else None


def check_hearclear(runner, snippet, problems):
    """`snippet` from its `hearclear` on: the longest known subcommand, then its flags."""
    words = shlex.split(snippet.split("#")[0].replace("\\", " "), posix=True) if snippet else []
    words = words[1:]  # drop "hearclear"
    names = []
    for word in words[:2]:
        if not re.fullmatch(r"[a-z][a-z-]*", word):
            break
        if help_text(runner, tuple(names + [word])) is None:
            break
        if f"USAGE: hearclear {' '.join(names + [word])}" not in help_text(runner, tuple(names + [word])):
            break
        names.append(word)
    if not names:
        problems.append(f"`hearclear {' '.join(words[:2])}`: no such subcommand")
        return None
    text = help_text(runner, tuple(names))
    for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", " ".join(words[len(names):])):
        if flag not in text and flag != "--help":
            problems.append(f"`hearclear {' '.join(names)}` has no {flag}")
    return " ".join(names)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hearclear", required=True)
    args = parser.parse_args()
    problems = []
    targets = make_targets()
    counts = {"make targets": set(), "links": 0, "hearclear commands": set()}
    for name in DOCUMENTS:
        path = ROOT / name
        text = path.read_text()
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", link):
                continue
            counts["links"] += 1
            if not (path.parent / link).exists():
                problems.append(f"{name}: link to {link}, which is not there")
        for snippet in code_texts(text):
            for target in re.findall(r"(?<![\w-])make ([a-z][a-z0-9-]*)", snippet):
                counts["make targets"].add(target)
                if target not in targets:
                    problems.append(f"{name}: `make {target}` is not a Makefile target")
            for match in re.finditer(r"(?:^|(?<=[\s`(])|(?<=\.build/debug/)|(?<=\.build/release/)|(?<=/app/))hearclear(?= [a-z])", snippet):
                rest = snippet[match.start():]
                rest = re.split(r"[|;&)]|\s>", rest)[0]
                command = check_hearclear(args.hearclear, rest, problems)
                if command:
                    counts["hearclear commands"].add(command)
    print(
        f"doc names: {len(counts['make targets'])} make targets, {counts['links']} relative links, "
        f"{len(counts['hearclear commands'])} hearclear commands ({', '.join(sorted(counts['hearclear commands']))}) "
        f"in {', '.join(DOCUMENTS)}"
    )
    if problems:
        print("\n".join(f"FAIL: {p}" for p in sorted(set(problems))))
        sys.exit(1)


if __name__ == "__main__":
    main()
