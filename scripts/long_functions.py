#!/usr/bin/env python3
"""Lists Rust functions longer than a limit (default 150 lines), longest first.

    python3 scripts/long_functions.py [LIMIT] [PATH...]      (default: crates python/src)

A function runs from its `fn` line to its closing brace, found by counting braces outside
strings, chars and comments. Exits 1 when any function is over the limit.
"""

from __future__ import annotations

import pathlib
import re
import sys

FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"C\"\s+)?fn\s+(\w+)")


def braces(line: str, in_block_comment: bool) -> tuple[int, bool]:
    """Net braces on a line (outside strings, chars and comments) and the block-comment state."""
    depth, i, n = 0, 0, len(line)
    while i < n:
        c = line[i]
        if in_block_comment:
            if line.startswith("*/", i):
                in_block_comment, i = False, i + 2
                continue
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block_comment, i = True, i + 2
            continue
        if c == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
        elif c == "'" and i + 2 < n and (line[i + 2] == "'" or (line[i + 1] == "\\" and "'" in line[i + 2:i + 5])):
            i = line.index("'", i + 2) if line[i + 1] == "\\" else i + 2
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return depth, in_block_comment


def functions(path: pathlib.Path) -> list[tuple[int, str, int]]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    out = []
    for start, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        depth, opened, comment = 0, False, False
        for end in range(start, len(lines)):
            d, comment = braces(lines[end], comment)
            if d or "{" in lines[end]:
                opened = opened or "{" in lines[end]
            depth += d
            if opened and depth <= 0:
                out.append((end - start + 1, m.group(1), start + 1))
                break
            if not opened and lines[end].rstrip().endswith(";"):
                break
    return out


def main() -> int:
    args = sys.argv[1:]
    limit = int(args.pop(0)) if args and args[0].isdigit() else 150
    roots = [pathlib.Path(a) for a in args] or [pathlib.Path("crates"), pathlib.Path("python/src")]
    long = []
    for root in roots:
        for path in sorted(root.rglob("*.rs")):
            if "/target/" in str(path):
                continue
            long += [(n, f"{path}:{line}", name) for n, name, line in functions(path) if n > limit]
    for n, where, name in sorted(long, reverse=True):
        print(f"{n:5} lines  {name}  {where}")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
