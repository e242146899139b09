"""Damage every module entry of a tether cache folder, as a crash, a disk or
another tool might.

usage: damage_entry.py truncate|scramble CACHE_DIR

truncate   cut each entry in half
scramble   overwrite a run of bytes in the middle of each (its digest stale)
"""
import glob
import os
import sys

mode, folder = sys.argv[1], sys.argv[2]
entries = glob.glob(os.path.join(folder, "python-modules", "*.bin"))
if not entries:
    sys.exit("damage_entry.py: no module entries in %s" % folder)
for path in entries:
    data = open(path, "rb").read()
    if mode == "truncate":
        data = data[: len(data) // 2]
    elif mode == "scramble":
        mid = len(data) // 2
        data = data[:mid] + bytes((b ^ 0x5A) for b in data[mid : mid + 8]) + data[mid + 8 :]
    else:
        sys.exit("damage_entry.py: unknown mode " + mode)
    open(path, "wb").write(data)
