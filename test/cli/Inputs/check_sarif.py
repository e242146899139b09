"""Structural assertions on tether's SARIF 2.1.0 output.

usage: check_sarif.py FILE EXPECTED_RESULTS [EXPECTED_RELATED_PER_RESULT]

Checks what code-scanning consumers rely on: the version and schema, one run
with a tool driver whose rules carry id, short and full descriptions and a
help URI to docs/checks/<check>.md, results that reference their rule by id
and index, with a physical location, related locations for the notes, and
fingerprints that are distinct.
"""
import json
import sys

with open(sys.argv[1]) as f:
    log = json.load(f)
expected = int(sys.argv[2])
related = int(sys.argv[3]) if len(sys.argv) > 3 else None

assert log["version"] == "2.1.0"
assert log["$schema"].endswith("sarif-2.1.0.json")
assert len(log["runs"]) == 1
run = log["runs"][0]
driver = run["tool"]["driver"]
assert driver["name"] == "tether"
assert driver["version"]
rules = driver["rules"]
ids = [r["id"] for r in rules]
assert ids == sorted(set(ids)), "rule ids not unique and sorted"
for r in rules:
    assert r["shortDescription"]["text"]
    assert r["fullDescription"]["text"]
    if r["id"].startswith("tether-"):
        assert r["helpUri"].endswith("/docs/checks/%s.md" % r["id"]), r["helpUri"]
        assert r["shortDescription"]["text"] != r["id"], "no real description"
    assert r["defaultConfiguration"]["level"] in ("note", "warning", "error")
assert "SRCROOT" in run["originalUriBaseIds"]
assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file:///")
assert run["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/")

results = run["results"]
assert len(results) == expected, f"{len(results)} results, expected {expected}"
prints = set()
for res in results:
    rule = rules[res["ruleIndex"]]
    assert rule["id"] == res["ruleId"]
    assert res["level"] in ("warning", "error")
    assert res["message"]["text"]
    (loc,) = res["locations"]
    phys = loc["physicalLocation"]
    assert phys["artifactLocation"]["uri"]
    if not phys["artifactLocation"]["uri"].startswith("file://"):
        assert phys["artifactLocation"]["uriBaseId"] == "SRCROOT"
    assert phys["region"]["startLine"] >= 1
    assert phys["region"]["startColumn"] >= 1
    rel = res.get("relatedLocations", [])
    if related is not None:
        assert len(rel) == related, f"{len(rel)} related locations"
    for i, r in enumerate(rel, 1):
        assert r["id"] == i
        assert r["message"]["text"]
        assert r["physicalLocation"]["region"]["startLine"] >= 1
    fp = res["partialFingerprints"]["tetherFingerprint/v1"]
    assert len(fp) == 32 and int(fp, 16) >= 0
    prints.add(fp)
assert len(prints) == len(results), "fingerprints are not distinct"
print("sarif ok:", len(results))
