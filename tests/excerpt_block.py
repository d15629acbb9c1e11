#!/usr/bin/env python3
"""tests/excerpt_block.py: the README's excerpts of a whole run's table,
copied from the run's saved output, never typed.

  python3 tests/excerpt_block.py FILE [--check]

Rewrites each block

    <!-- excerpt:begin src=results/h200/compare_n2048.txt case="sgemm m=n=k=2^11" rows=cublas_fp32,tuned -->
    ...
    <!-- excerpt:end -->

in FILE (paths relative to FILE's repository root, the folder above tests/)
with a fenced code block: the line of `src` that starts with `case` (the
case's title), the column header under it, and the lines of the named rows
of that case, in the file's order. With --check, writes nothing and exits 1
when a block differs from what its source gives (ctest test_excerpt_block:
re-measure the run and the example follows, or the test says it is stale)."""
import os
import re
import sys

BEGIN = re.compile(r'^<!--\s*excerpt:begin\s+src=(\S+)\s+case="([^"]+)"\s+rows=(\S+)\s*-->\s*$')
END = "<!-- excerpt:end -->"


def excerpt(root, src, case, rows):
    """The fenced block of `rows` of the case whose title starts with `case`."""
    with open(os.path.join(root, src), encoding="utf-8") as f:
        lines = f.read().splitlines()
    want = rows.split(",")
    for i, line in enumerate(lines):
        if not line.startswith(case + " ") and line != case:
            continue
        out = [line, lines[i + 1]]
        found = {}
        for row in lines[i + 2:]:
            if not row.strip() or row.startswith(" "):
                break
            name = row.split()[0]
            if name in want:
                found[name] = row
        missing = [w for w in want if w not in found]
        if missing:
            raise SystemExit(f"{src}: case '{case}' has no row {', '.join(missing)}")
        out += [found[w] for w in want]
        return ["```"] + out + ["```"]
    raise SystemExit(f"{src}: no case line starts with '{case}'")


def rewrite(path):
    """FILE's text with every block regenerated."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        try:
            j = lines.index(END, i)
        except ValueError:
            raise SystemExit(f"{path}:{i}: excerpt block without '{END}'")
        out += excerpt(root, m.group(1), m.group(2), m.group(3))
        i = j
    return "\n".join(out)


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--check"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path = argv[1]
    new = rewrite(path)
    with open(path, encoding="utf-8") as f:
        old = f.read()
    if len(argv) == 3:
        if new != old:
            print(f"{path}: an excerpt block is stale: run python3 tests/excerpt_block.py {path}")
            return 1
        return 0
    if new != old:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
