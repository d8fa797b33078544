#!/bin/bash -eu
# Builds gpufuzz's libFuzzer targets for ClusterFuzzLite and copies them, with their seed
# corpora, where the runner looks for them.
cd "$SRC/gpufuzz"
cargo fuzz build -O --debug-assertions
for target in diff diff_mutate text parse; do
    cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/" 2>/dev/null \
        || cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
    seeds="corpus/${target%_mutate}"
    if [ -d "$seeds" ]; then
        (cd "$seeds" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
done
# Programs of the in-process loop's size from the start (docs/overnight.md); a case file
# written by the structure-aware mutator is some 20 times its raw input.
printf '[libfuzzer]\nmax_len = 2048\nlen_control = 0\n' > "$OUT/diff.options"
printf '[libfuzzer]\nmax_len = 65536\nlen_control = 0\n' > "$OUT/diff_mutate.options"
