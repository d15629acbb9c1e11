"""tests/checklib.py: what the Python ctest drivers (check_tables.py,
check_diff.py) share: the failure they raise, running a tool, and a scratch
directory they may safely recreate."""

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
