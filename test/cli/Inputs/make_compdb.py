"""Write BUILD/compile_commands.json for the given sources.

usage: make_compdb.py BUILD_DIR WORK_DIR [EXTRA_FLAG...] -- SOURCE...
"""
import json
import os
import sys

args = sys.argv[1:]
sep = args.index("--")
build, workdir, flags, sources = args[0], args[1], args[2:sep], args[sep + 1:]
entries = [{
    "directory": os.path.abspath(workdir),
    "file": os.path.abspath(src),
    "arguments": ["clang++", "-std=c++17", *flags, "-c",
                  os.path.abspath(src)],
} for src in sources]
os.makedirs(build, exist_ok=True)
with open(os.path.join(build, "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
