#!/bin/bash -eu
# Builds gpufuzz's libFuzzer targets for ClusterFuzzLite and copies them, with their seed
# corpora, where the runner looks for them.
cd "$SRC/gpufuzz"
cargo fuzz build -O --debug-assertions
for target in diff text parse; do
    cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/" 2>/dev/null \
        || cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
    if [ -d "corpus/$target" ]; then
        (cd "corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
done
