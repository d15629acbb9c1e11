#!/usr/bin/env python3
"""tests/list_block.py: the variant tables of the docs, generated from
`compare --list` (the catalog itself), never typed.

  python3 tests/list_block.py COMPARE_BIN FILE [--check]

Rewrites the block between <!-- list:begin --> and <!-- list:end --> in FILE
with one Markdown table of the ops and one of the variants, as `compare --list`
prints them (test-only rows hidden). With --check, writes nothing and exits 1
when the block differs (ctest test_list_block: a kernel added without
regenerating the docs fails it)."""
import subprocess
import sys

BEGIN, END = "<!-- list:begin -->", "<!-- list:end -->"


def table(compare):
    out = subprocess.run([compare, "--list"], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}).stdout
    ops, variants, part = [], [], 0
    for line in out.splitlines():
        if not line.strip():
            part = 1
            continue
        cols = line.split(None, 5 if part == 0 else 5)
        if cols[0] == "op":
            continue
        (ops if part == 0 else variants).append(cols)
    md = ["_Generated from `compare --list` by `tests/list_block.py`; `ctest` checks it._", "",
          "| op | axes | unit | % of (reference) | % of (fastest) | what |", "|---|---|---|---|---|---|"]
    for c in ops:
        md.append("| %s | %s | %s | `%s` | `%s` | %s |" % (c[0], c[1], c[2], c[3], c[4], c[5] if len(c) > 5 else ""))
    md += ["", "| op | variant | kind | math | source | what |", "|---|---|---|---|---|---|"]
    for c in variants:
        md.append("| %s | `%s` | %s | %s | %s | %s |" % (c[0], c[1], c[2], c[3], c[4], c[5] if len(c) > 5 else ""))
    return "\n".join(md)


def main(argv):
    if len(argv) < 3 or (len(argv) == 4 and argv[3] != "--check") or len(argv) > 4:
        print(__doc__)
        return 2
    compare, path, check = argv[1], argv[2], len(argv) == 4
    text = open(path, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        print(f"{path}: no {BEGIN} ... {END} block")
        return 2
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + table(compare) + "\n" + END + tail
    if check:
        if new != text:
            print(f"{path}: the variant block is stale: run python3 tests/list_block.py {compare} {path}")
            return 1
        print(f"{path}: the variant block matches compare --list")
        return 0
    open(path, "w", encoding="utf-8").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
