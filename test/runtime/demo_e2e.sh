#!/bin/sh
# End-to-end check of tether-replay-demo, one case per ctest entry:
#   demo_e2e.sh [update_]{buggy,fixed}_{verified,plain} DEMO LIBTETHER_ACL
# buggy/fixed: the weak-ref road (tether-weak-ref-before-capture-end);
# update_buggy/update_fixed: the task-update road
# (tether-graph-memory-dies-before-replay).
set -u
case_=$1 demo=$2 preload=$3
layers=4
variant=$(echo "${case_%_*}" | tr _ -)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
report=$tmp/report.jsonl

fail() { echo "FAIL ($case_): $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }

case $case_ in
  *_verified) env LD_PRELOAD="$preload" TETHER_REPORT="$report" \
                "$demo" --variant="$variant" --layers=$layers >"$tmp/out" 2>"$tmp/err" ;;
  *_plain) env TETHER_REPORT="$report" \
                "$demo" --variant="$variant" --layers=$layers >"$tmp/out" 2>"$tmp/err" ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
rc=$?
err=$(sed -n 's/^replay max abs error: //p' "$tmp/out")
[ -n "$err" ] || fail "no 'replay max abs error' line"

case $case_ in
  buggy_*|update_buggy_*)
    [ "$rc" -eq 3 ] || fail "exit $rc, want 3"
    [ "$err" != 0 ] || fail "the bug did not corrupt the replay"
    ;;
  fixed_*|update_fixed_*)
    [ "$rc" -eq 0 ] || fail "exit $rc, want 0"
    [ "$err" = 0 ] || fail "error $err, want 0"
    ;;
esac

case $case_ in
  buggy_verified)
    grep -q '"violation": "tether-weak-ref-before-capture-end", "kind": "reused"' "$report" \
      || fail "no tether-weak-ref-before-capture-end reuse report"
    [ "$(wc -l <"$report")" -eq 2 ] || fail "want one report per captured graph"
    grep -q 'handed to a new allocation of the same capture' "$report" || fail "report does not name the reuse"
    grep -q '^tether: tether-weak-ref-before-capture-end' "$tmp/err" || fail "no stderr line"
    grep -q '^tether: 2 violation(s)' "$tmp/err" || fail "no exit summary"
    ;;
  update_buggy_verified)
    # One per updated task: every layer's task in both graphs, nothing else.
    want=$((layers * 2))
    [ -f "$report" ] && [ "$(wc -l <"$report")" -eq "$want" ] || fail "want $want reports (one per updated task)"
    [ "$(grep -c '"violation": "tether-graph-memory-dies-before-replay", "kind": "update-buffer-freed"' "$report")" -eq "$want" ] \
      || fail "not every report is tether-graph-memory-dies-before-replay/update-buffer-freed"
    # Both sites: where the update bound it, where it was freed; and the taker.
    grep -q 'bound by a task update of layer 0 (event [0-9]*)' "$report" || fail "report does not name the binding"
    grep -q 'freed before the replay (event [0-9]*, layer 0)' "$report" || fail "report does not name the free"
    grep -q 'handed to a later allocation (event [0-9]*, [0-9]* B, layer 1)' "$report" || fail "report does not name the reuse"
    grep -q '"event": "task_uses"' "$report" && grep -q '"event": "free"' "$report" || fail "story lacks the sites"
    grep -q "^tether: $want violation(s)" "$tmp/err" || fail "no exit summary"
    ;;
  fixed_verified|update_fixed_verified)
    [ ! -s "$report" ] || fail "unexpected report: $(cat "$report")"
    grep -q '^tether: no violations in [0-9]* events' "$tmp/err" || fail "no exit summary"
    ;;
  *_plain)
    [ ! -e "$report" ] || fail "a report without the verifier"
    ! grep -q '^tether:' "$tmp/err" || fail "verifier output without the verifier"
    ;;
esac
echo "ok ($case_): exit $rc, replay max abs error $err"
