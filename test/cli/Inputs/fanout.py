"""Copy SRC to DIR/tuI.cpp for I in FIRST..LAST (lit has no shell loops).

usage: fanout.py SRC DIR FIRST LAST
"""
import os
import shutil
import sys

src, out, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out, exist_ok=True)
for i in range(first, last + 1):
    shutil.copyfile(src, os.path.join(out, f"tu{i}.cpp"))
