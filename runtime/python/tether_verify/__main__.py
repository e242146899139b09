"""python3 -m tether_verify run [--mode=report|abort] [--report=FILE] -- PROGRAM"""
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
