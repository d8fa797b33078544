#!/usr/bin/env bash
# A newcomer's first hour, replayed: the README's commands in order, in fresh folders, with
# their exit codes and the key lines the README shows (each checked against both the README
# and what the command printed, so neither can drift). Run by .ci/run; takes under a minute.
#
#   scripts/first-hour.sh [GPUFUZZ]     # default: target/release/gpufuzz
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
gpufuzz="$(realpath "${1:-$root/target/release/gpufuzz}")"
readme="$root/README.md"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "first hour: FAILED: $*" >&2; exit 1; }

# Runs a command, saving stdout and stderr, and checks its exit status.
expect_status() {
    local want="$1"; shift
    local got=0
    "$@" >out.txt 2>err.txt || got=$?
    [ "$got" = "$want" ] || { cat out.txt err.txt >&2; fail "exit $got, expected $want: $*"; }
}

# A line the README shows that the last command must have printed, verbatim.
shown() {
    grep -qF -- "$1" "$readme" || fail "the README no longer shows: $1"
    grep -qF -- "$1" out.txt || { cat out.txt >&2; fail "the command no longer prints: $1"; }
}

echo "== gpufuzz fuzz (shortened to 3 s): a healthy build finds nothing"
expect_status 0 "$gpufuzz" fuzz --time 3
grep -q '^done: .* 0 findings; figures in fuzz-out/summary.json' out.txt || fail "no clean summary"
grep -q '^#[0-9]* ' err.txt || fail "no status line on stderr"
awk 'length > 100 { exit 1 }' err.txt || fail "a status line is wider than 100 columns"

echo "== a planted bug: what a finding looks like"
expect_status 0 "$gpufuzz" fuzz --plant dce-loop-live-out --target middle --runs 300 --out planted
shown "NEW [middle] mismatch: output slot 0 of invocation 0: expected 0x0000001c, got 0x0000001b"
shown "    reproduce: gpufuzz repro planted/findings/mismatch-middle-33aade647f59db42/input.bin --plant dce-loop-live-out --target middle"
shown "37 findings of 1 signature; figures in planted/summary.json"
shown "      37  mismatch:middle  (new)"
shown "next: gpufuzz triage planted"
for f in input.bin program.ir finding.json; do
    [ -f "planted/findings/mismatch-middle-33aade647f59db42/$f" ] || fail "no $f"
done
grep -q '"gpufuzz": "' planted/findings/mismatch-middle-33aade647f59db42/finding.json \
    || fail "finding.json does not name the gpufuzz that found it"

echo "== the same folder again is refused, naming the choices"
expect_status 2 "$gpufuzz" fuzz --plant dce-loop-live-out --target middle --runs 300 --out planted
grep -q -- "--resume planted" err.txt && grep -q -- "--force" err.txt || fail "refusal does not name --resume and --force"

echo "== triage"
expect_status 0 "$gpufuzz" triage planted
shown "triaged 3 finding(s) (0 did not reproduce); 1 bucket(s), 1 new"
shown "median reduced size 7 instructions"
shown "     3 hit(s)    7 insts  middle:opt_dce  planted/bugs/middle-opt_dce.md"
for f in md ir json; do [ -f "planted/bugs/middle-opt_dce.$f" ] || fail "no middle-opt_dce.$f"; done
grep -q '^- \*\*gpufuzz:\*\* ' planted/bugs/middle-opt_dce.md || fail "the report does not name gpufuzz's version"

echo "== repro"
expect_status 1 "$gpufuzz" repro planted/bugs/middle-opt_dce.ir --plant dce-loop-live-out
grep -q '^bug: middle:opt_dce$' out.txt || fail "repro does not name the bug"
expect_status 0 "$gpufuzz" repro planted/bugs/middle-opt_dce.ir
grep -q '^pass$' out.txt || fail "without the plant it does not pass"
expect_status 0 "$gpufuzz" repro planted/bugs/middle-opt_dce.ir --case help
grep -q 'gen_grfs=' out.txt || fail "--case help lists no knobs"

echo "== a program written by hand"
awk '/^    invocations 4$/ { on = 1 } on && /^$/ && seen_store { exit } on { print substr($0, 5); if (/store_output/) seen_store = 1 }' \
    "$readme" > sum.ir
[ -s sum.ir ] || fail "no program in the README"
expect_status 0 "$gpufuzz" run sum.ir
grep -qx 'invocation 3: 0x00000006' out.txt || fail "sum.ir: invocation 3 is not 6"
expect_status 0 "$gpufuzz" run sum.ir --target gen8 --emit asm
expect_status 0 "$gpufuzz" repro sum.ir
expect_status 0 "$gpufuzz" fmt --check sum.ir
expect_status 0 "$gpufuzz" run "$root/corpus/regressions/if_else_merge_phis.ir"
while read -r line; do shown "$line"; done < out.txt

echo "== nothing is created for a folder that is not a run's"
expect_status 2 "$gpufuzz" triage no-such-run
[ ! -e no-such-run ] || fail "triage created no-such-run"

echo "== a finished run extended"
expect_status 0 "$gpufuzz" fuzz --resume planted --runs 100 --status 0
grep -q '^done: 400 programs' out.txt || fail "the extended run does not count 400 programs"

echo "first hour: ok"
