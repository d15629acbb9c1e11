"""tests/checklib.py: what the Python ctest drivers (check_tables.py,
check_tables_labs.py, check_tables_newop.py, check_diff.py) share: the
failure they raise, running a tool, reading a file and a README block, and a
scratch directory they may safely recreate."""

import os
import shutil
import subprocess
import sys


class CheckFailed(Exception):
    """A check that did not hold: the message says which."""


def run(script, *args):
    """(exit status, stdout, stderr) of `python script args...`."""
    result = subprocess.run([sys.executable, script] + list(args),
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout, result.stderr


def run_ok(script, *args):
    """stdout of a tool run that must exit 0."""
    rc, out, err = run(script, *args)
    if rc != 0:
        raise CheckFailed(f"{os.path.basename(script)} {' '.join(args)}: exit {rc}\n{err}")
    return out


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def block(text, name):
    """The text between a README's tables:NAME begin and end markers."""
    begin = text.index(f"<!-- tables:{name}:begin")
    begin = text.index("\n", begin) + 1
    return text[begin:text.index(f"<!-- tables:{name}:end -->")]


def readme_fixture(work, csv_path, csv_name, text):
    """work/README.md holding `text`, beside a copy of csv_path as
    work/results/csv_name (what its markers' csv= name); returns the README's path."""
    os.makedirs(os.path.join(work, "results"), exist_ok=True)
    shutil.copy(csv_path, os.path.join(work, "results", csv_name))
    readme = os.path.join(work, "README.md")
    with open(readme, "w", encoding="utf-8") as f:
        f.write(text)
    return readme


def fresh_work_dir(path, sentinel):
    """Recreate `path`; only a directory a driver made (it holds the file
    `sentinel`, named after that driver) is deleted."""
    if os.path.exists(path):
        if os.listdir(path) and not os.path.exists(os.path.join(path, sentinel)):
            raise CheckFailed(f"{path}: not empty and not made by this test: "
                              "refusing to delete it")
        shutil.rmtree(path)
    os.makedirs(path)
    open(os.path.join(path, sentinel), "w").close()
