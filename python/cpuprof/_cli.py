"""The ``cpuprof-tui`` console script: the command itself, run in this process."""

import sys

from . import _cpuprof


def main():
    sys.exit(_cpuprof.main(["cpuprof-tui"] + sys.argv[1:]))
