"""Prints what a program sees of how it was started, exits 7."""
import sys

MARK = "show_program"

print("argv", sys.argv)
print("name", __name__, "main-module-is-me",
      sys.modules["__main__"].__dict__.get("MARK") == "show_program")
print("path0", sys.path[0])
sys.exit(7)
