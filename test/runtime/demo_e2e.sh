#!/bin/sh
# End-to-end check of tether-replay-demo, one case per ctest entry:
#   demo_e2e.sh buggy_verified|fixed_verified|buggy_plain|fixed_plain DEMO LIBTETHER_ACL
set -u
case_=$1 demo=$2 preload=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
report=$tmp/report.jsonl

fail() { echo "FAIL ($case_): $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }

case $case_ in
  *_verified) env LD_PRELOAD="$preload" TETHER_REPORT="$report" \
                "$demo" --variant="${case_%_*}" --layers=4 >"$tmp/out" 2>"$tmp/err" ;;
  *_plain) env TETHER_REPORT="$report" \
                "$demo" --variant="${case_%_*}" --layers=4 >"$tmp/out" 2>"$tmp/err" ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
rc=$?
err=$(sed -n 's/^replay max abs error: //p' "$tmp/out")
[ -n "$err" ] || fail "no 'replay max abs error' line"

case $case_ in
  buggy_*)
    [ "$rc" -eq 3 ] || fail "exit $rc, want 3"
    [ "$err" != 0 ] || fail "the bug did not corrupt the replay"
    ;;
  fixed_*)
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
  fixed_verified)
    [ ! -s "$report" ] || fail "unexpected report: $(cat "$report")"
    grep -q '^tether: no violations in [0-9]* events' "$tmp/err" || fail "no exit summary"
    ;;
  *_plain)
    [ ! -e "$report" ] || fail "a report without the verifier"
    ! grep -q '^tether:' "$tmp/err" || fail "verifier output without the verifier"
    ;;
esac
echo "ok ($case_): exit $rc, replay max abs error $err"
