"""Damage the one record in a tether cache folder, as a crash, a disk or
another tool might.

usage: damage_record.py truncate|flip-line|scramble CACHE_DIR
       damage_record.py foreign CACHE_DIR OTHER_CACHE_DIR

truncate   cut the file in half
flip-line  change one digit of a finding's line number, leaving valid JSON
scramble   overwrite a run of bytes in the middle
foreign    replace it by the one record of OTHER_CACHE_DIR, written for
           another key (its own digest correct)
"""
import glob
import os
import re
import sys

mode, folder = sys.argv[1], sys.argv[2]
records = glob.glob(os.path.join(folder, "python-scans", "*.json"))
if len(records) != 1:
    sys.exit("damage_record.py: expected one record, found %d" % len(records))
path = records[0]
data = open(path, "rb").read()
if mode == "truncate":
    data = data[: len(data) // 2]
elif mode == "flip-line":
    m = re.search(rb'"line":(\d)', data)
    if not m:
        sys.exit("damage_record.py: no line number to change")
    digit = b"9" if m.group(1) != b"9" else b"8"
    data = data[: m.start(1)] + digit + data[m.end(1):]
elif mode == "scramble":
    mid = len(data) // 2
    data = data[:mid] + bytes((b * 7 + 13) % 256 for b in data[mid: mid + 64]) + data[mid + 64:]
elif mode == "foreign":
    # Another key's record, whole and with its own digest right: only the
    # key inside tells it is not this file's.
    others = glob.glob(os.path.join(sys.argv[3], "python-scans", "*.json"))
    if len(others) != 1:
        sys.exit("damage_record.py: expected one other record")
    data = open(others[0], "rb").read()
else:
    sys.exit("damage_record.py: unknown mode " + mode)
open(path, "wb").write(data)
