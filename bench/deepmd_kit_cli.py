#!/usr/bin/env python3
"""DeePMD-kit's `dp` command from the PyPI wheel on the GPU machine (see deepmd_kit_bench.load_deepmd_pt):
python3 bench/deepmd_kit_cli.py --pt train input.json"""
import sys

from deepmd_kit_bench import load_deepmd_pt

if __name__ == "__main__":
    load_deepmd_pt()
    from deepmd.main import main

    main(sys.argv[1:])
