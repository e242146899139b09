"""Assert the tether JSON contract (DESIGN.md) on a file.

usage: check_json.py FILE EXPECTED_COUNT
"""
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
expected = int(sys.argv[2])

assert set(doc) == {"version", "tool", "diagnostics"}, sorted(doc)
assert doc["version"] == 1
assert set(doc["tool"]) == {"name", "version"}, sorted(doc["tool"])
assert doc["tool"]["name"] == "tether"
assert doc["tool"]["version"].count(".") == 2, doc["tool"]["version"]
diags = doc["diagnostics"]
assert len(diags) == expected, f"{len(diags)} diagnostics, expected {expected}"
keys = {"check", "severity", "file", "line", "column", "message", "notes"}
for d in diags:
    assert set(d) == keys, sorted(d)
    assert d["check"].startswith("tether-"), d["check"]
    assert d["severity"] in ("warning", "error")
    assert isinstance(d["line"], int) and d["line"] >= 1
    assert isinstance(d["column"], int) and d["column"] >= 1
    assert d["message"]
    for n in d["notes"]:
        assert set(n) == {"file", "line", "column", "message"}, sorted(n)
        assert n["line"] >= 1 and n["column"] >= 1
order = [(d["file"], d["line"], d["column"], d["check"], d["message"])
         for d in diags]
assert order == sorted(order), "diagnostics are not in the stable order"
print("json ok:", len(diags))
