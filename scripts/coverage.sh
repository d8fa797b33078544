#!/usr/bin/env bash
# Line coverage of the compiler and the simulators reached by a fuzz run.
#
#   scripts/coverage.sh [MINUTES] [-- extra gpufuzz fuzz flags]
#
# Builds gpufuzz with `-C instrument-coverage` (in target/coverage, apart from the normal
# build), fuzzes for MINUTES (default 10) on every default pipeline, then prints llvm-cov's
# per-file line coverage of compiler/ and sim/, the total, and the backend functions
# (compiler/src/gen, compiler/src/a6xx, sim/src) that no program reached. Lines show what
# ran, not which choices or shapes did: `gpufuzz fuzz` reports those (spill+fill ran, knobs).
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
shift || true
[ "${1:-}" = "--" ] && shift

rustup component add llvm-tools >/dev/null 2>&1 || true
sysroot=$(rustc --print sysroot)
bin=$(find "$sysroot" -name llvm-profdata -path '*/bin/*' | head -n 1)
[ -n "$bin" ] || { echo "llvm-tools missing: rustup component add llvm-tools" >&2; exit 2; }
tools=$(dirname "$bin")

out=target/coverage
rm -rf "$out/profiles"
mkdir -p "$out/profiles"
echo "== building gpufuzz with -C instrument-coverage (in $out)"
RUSTFLAGS="-C instrument-coverage" cargo build --release --bin gpufuzz --target-dir "$out"
exe="$out/release/gpufuzz"

echo "== fuzzing for $minutes minute(s)"
# %m: one profile per binary signature, %p: per process. In one process (`--no-fork`): runs
# over five minutes otherwise judge in worker processes, which are killed, not exited, when
# the run ends, so they never write their profiles (a 10-minute run measured 0.16%).
LLVM_PROFILE_FILE="$PWD/$out/profiles/%p-%m.profraw" \
    "$exe" fuzz --time $((minutes * 60)) --jobs 2 --no-fork --out "$out/fuzz-out" --force "$@"

"$tools/llvm-profdata" merge -sparse "$out"/profiles/*.profraw -o "$out/fuzz.profdata"

echo "== line coverage (compiler/, sim/)"
report() {
    "$tools/llvm-cov" report "$exe" -instr-profile="$out/fuzz.profdata" \
        -ignore-filename-regex='(/\.cargo/|/rustc/|/tests?/|_tests?\.rs$|/triage/|/fuzz/|/spirv/|/vulkan/)' "$@"
}
# llvm-cov's columns end with lines, missed lines, line cover, branches, missed, cover.
printf '%-60s %8s %8s %8s\n' file lines missed covered
report | awk '/compiler\/src|sim\/src|^TOTAL/ { printf "%-60s %8s %8s %8s\n", $1, $(NF-5), $(NF-4), $(NF-3) }'

echo "== backend functions never reached"
"$tools/llvm-cov" export "$exe" -instr-profile="$out/fuzz.profdata" -format=text \
        -ignore-filename-regex='(/\.cargo/|/rustc/)' |
    python3 -c "$(cat <<'PY'
import json, re, sys
data = json.load(sys.stdin)["data"][0]
seen = set()
for f in data["functions"]:
    files = [x for x in f["filenames"] if re.search(r"(compiler/src/(gen|a6xx)|sim/src)/", x)]
    if not files or f["count"] != 0 or re.search(r"/tests?/|tests?[.]rs$", files[0]):
        continue
    path, line = files[0], f["regions"][0][0]
    if (path, line) in seen:
        continue
    seen.add((path, line))
    with open(path) as src:
        text = src.read().split("\n")[line - 1].strip()
    short = re.sub(r".*?/(compiler|sim)/src/", r"\1/src/", path)
    print(f"{short}:{line}: {text}")
print(f"{len(seen)} function(s) never reached", file=sys.stderr)
PY
)"
