#!/usr/bin/env python3
"""libFuzzer against the in-process loop, measured (docs/overnight.md).

Two measurements:

  cost    the same N inputs (the bytes `gpufuzz fuzz --seed S` draws) judged once by
          `gpufuzz fuzz --runs N --no-fork` and once by each libFuzzer build (`-runs=0` over a
          folder holding them): seconds per program, same programs, same load.

  hunt    time to bug: each planted bug (`gpufuzz plant --list`), each seed, each mode, the
          same budget: found or not, seconds to the first finding, executions. Modes:
          `inprocess` (`gpufuzz selftest`, one core), `none` (the `diff` target built with
          `-s none`), `none+mutator` (`diff_mutate`, the structure-aware mutator), `asan`
          (`diff`, address sanitizer). Runs interleave modes, so they share the load.
          libFuzzer starts from corpus/diff, as a user would, or from nothing
          (`--empty-corpus`); the in-process loop always draws random bytes.

Build first (from the repository root):

    cargo build --release --bin gpufuzz
    cargo +nightly fuzz build -s none diff && cargo +nightly fuzz build -s none diff_mutate
    cargo +nightly fuzz build diff        # only for the asan mode; cargo-fuzz's target
                                          # folder keeps one build per sanitizer (see --asan-dir)

Then e.g.

    scripts/libfuzzer-bench.py cost --runs 2000
    scripts/libfuzzer-bench.py hunt --budget 60 --seeds 3 --modes inprocess,none,none+mutator

Prints a Markdown table (and `uptime` before and after); `--json F` keeps every run.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUFUZZ = os.path.join(ROOT, "target/release/gpufuzz")
# `fuzz` is a workspace member, so cargo-fuzz builds into the workspace's target folder.
FUZZ_BIN = os.path.join(ROOT, "target/x86_64-unknown-linux-gnu/release")
MASK = (1 << 64) - 1

# libFuzzer flags every mode uses: programs of the in-process loop's size from the start
# (`gpufuzz fuzz` draws 64..2048 bytes), no slow growth of the length limit.
LIBFUZZER_FLAGS = ["-max_len=2048", "-len_control=0", "-print_final_stats=1"]
# A case file (what the mutator writes) is ~10x its raw input.
MUTATOR_FLAGS = ["-max_len=65536", "-len_control=0", "-print_final_stats=1"]


class SplitMix64:
    """fuzz/src/rng.rs, bit for bit."""

    def __init__(self, state):
        self.state = state & MASK

    @staticmethod
    def for_input(seed, index):
        g = SplitMix64(seed ^ 0x6A09E667F3BCC909)
        return SplitMix64(g.next() ^ ((index * 0x9E3779B97F4A7C15) & MASK))

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def input_bytes(seed, index, min_len=64, max_len=2048):
    g = SplitMix64.for_input(seed, index)
    n = min_len + g.next() % (max_len - min_len + 1)
    out = bytearray()
    while len(out) < n:
        out += g.next().to_bytes(8, "little")
    return bytes(out[:n])


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def plants():
    """(name, targets) of every planted bug but the test-only ones, from `gpufuzz plant`."""
    out = subprocess.run([GPUFUZZ, "plant", "--list"], capture_output=True, text=True,
                         check=True).stdout
    rows = []
    for line in out.splitlines()[1:]:
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) < 3 or "TEST ONLY" in line:
            continue
        # Middle-end plants hunt on the `middle` pipeline, as `gpufuzz selftest` does.
        targets = "middle" if cols[2] == "all" else ",".join(cols[2].split())
        rows.append((cols[0], targets))
    return rows


def libfuzzer_binary(mode, args):
    if mode == "asan":
        return os.path.join(args.asan_dir, "diff")
    return os.path.join(args.bin_dir, "diff_mutate" if mode == "none+mutator" else "diff")


def cost(args):
    with tempfile.TemporaryDirectory() as d:
        inputs = os.path.join(d, "inputs")
        os.mkdir(inputs)
        for i in range(args.runs):
            with open(os.path.join(inputs, f"{i:06}"), "wb") as f:
                f.write(input_bytes(args.seed, i))
        rows = []
        for rep in range(args.repeat):
            for mode in args.modes.split(","):
                load = uptime()
                t = time.time()
                if mode == "inprocess":
                    subprocess.run([GPUFUZZ, "fuzz", "--seed", str(args.seed), "--runs",
                                    str(args.runs), "--no-fork", "--status", "0", "--out",
                                    os.path.join(d, "out")], check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                else:
                    subprocess.run([libfuzzer_binary(mode, args), inputs, "-runs=0",
                                    "-max_len=2048"], check=True, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
                secs = time.time() - t
                rows.append({"mode": mode, "repeat": rep, "programs": args.runs,
                             "seconds": secs, "ms_per_program": 1000 * secs / args.runs,
                             "load": load})
                print(f"{mode:14} {1000 * secs / args.runs:7.3f} ms/program  ({load})",
                      file=sys.stderr)
    print("| mode | programs | seconds | ms/program | load before |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['programs']} | {r['seconds']:.1f} | "
              f"{r['ms_per_program']:.3f} | {r['load'].split('load average: ')[-1]} |")
    return rows


def hunt_inprocess(plant, seed, budget, d):
    out = os.path.join(d, f"selftest-{plant}-{seed}.json")
    subprocess.run([GPUFUZZ, "selftest", "--plant", plant, "--first-seed", str(seed),
                    "--seeds", "1", "--budget-secs", str(budget), "--no-baseline",
                    "--reduce-secs", "1", "--json", out],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        report = json.load(f)
    run = find_seed_run(report)
    return {"found": run["found"], "seconds": run["seconds"], "executions": run["programs"]}


def find_seed_run(report):
    """The one hunt in a selftest report, wherever its JSON keeps it."""
    if isinstance(report, dict):
        if "found" in report and "seed" in report:
            return report
        for v in report.values():
            r = find_seed_run(v)
            if r:
                return r
    if isinstance(report, list):
        for v in report:
            r = find_seed_run(v)
            if r:
                return r
    return None


def hunt_libfuzzer(mode, plant, targets, seed, budget, d, args):
    work = os.path.join(d, f"{mode}-{plant}-{seed}")
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus)
    env = dict(os.environ, GPUFUZZ_PLANT=plant, GPUFUZZ_TARGET=targets)
    flags = MUTATOR_FLAGS if mode == "none+mutator" else LIBFUZZER_FLAGS
    seeds = [] if args.empty_corpus else [os.path.join(ROOT, "corpus/diff")]
    cmd = [libfuzzer_binary(mode, args), corpus] + seeds + [
           f"-seed={seed}", f"-max_total_time={budget}", f"-artifact_prefix={work}/"] + flags
    t = time.time()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    secs = time.time() - t
    log = p.stderr
    found = any(n.startswith("crash-") for n in os.listdir(work))
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log)
    if not execs:
        execs = re.findall(r"^#(\d+)", log, re.M)
    panic = re.search(r"panicked at [^\n]*\n([^\n]*)", log)
    return {"found": found, "seconds": secs if found else budget,
            "executions": int(execs[-1]) if execs else None,
            "finding": panic.group(1)[:100] if (found and panic) else None}


def hunt(args):
    modes = args.modes.split(",")
    catalog = plants()
    if args.plants:
        wanted = args.plants.split(",")
        catalog = [p for p in catalog if p[0] in wanted]
    runs = []
    print(f"# {uptime()}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as d:
        for plant, targets in catalog:
            for seed in range(1, args.seeds + 1):
                for mode in modes:  # interleaved: every mode under the same load
                    load = uptime().split("load average: ")[-1]
                    if mode == "inprocess":
                        r = hunt_inprocess(plant, seed, args.budget, d)
                    else:
                        r = hunt_libfuzzer(mode, plant, targets, seed, args.budget, d, args)
                    r.update(plant=plant, targets=targets, seed=seed, mode=mode, load=load)
                    runs.append(r)
                    print(f"{plant:28} seed {seed} {mode:13} found={r['found']!s:5} "
                          f"{r['seconds']:6.1f}s execs={r['executions']} load {load}",
                          file=sys.stderr)
    print(f"# {uptime()}", file=sys.stderr)
    print(table(runs, modes, args.budget))
    return runs


def median(xs):
    xs = sorted(xs)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def table(runs, modes, budget):
    head = "| plant | targets | " + " | ".join(
        f"{m}: found, median s, median execs" for m in modes) + " |"
    lines = [head, "|" + "---|" * (2 + len(modes))]
    for plant in dict.fromkeys(r["plant"] for r in runs):
        rs = [r for r in runs if r["plant"] == plant]
        cells = []
        for m in modes:
            mr = [r for r in rs if r["mode"] == m]
            found = [r for r in mr if r["found"]]
            secs = median([r["seconds"] for r in found])
            execs = median([r["executions"] for r in found if r["executions"] is not None])
            cells.append(f"{len(found)}/{len(mr)}, "
                         + (f"{secs:.1f}" if secs is not None else f">{budget}") + ", "
                         + (f"{execs:.0f}" if execs is not None else "-"))
        lines.append(f"| {plant} | {rs[0]['targets']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("cost", help="seconds per program, same inputs, each mode")
    c.add_argument("--runs", type=int, default=2000)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--repeat", type=int, default=2)
    c.add_argument("--modes", default="inprocess,none")
    h = sub.add_parser("hunt", help="time to bug per planted bug, seed and mode")
    h.add_argument("--budget", type=int, default=60)
    h.add_argument("--seeds", type=int, default=3)
    h.add_argument("--plants", default="", help="comma-separated; default the catalog")
    h.add_argument("--modes", default="inprocess,none,none+mutator")
    h.add_argument("--empty-corpus", action="store_true",
                   help="start libFuzzer from nothing rather than corpus/diff (whose seeds "
                        "already show some plants): the mutations' power alone")
    for p in (c, h):
        p.add_argument("--bin-dir", default=FUZZ_BIN,
                       help="folder of the -s none builds of `diff` and `diff_mutate`")
        p.add_argument("--asan-dir", default=FUZZ_BIN,
                       help="folder of an address-sanitizer build of `diff`")
        p.add_argument("--json", help="write every run here")
    args = ap.parse_args()
    for binary in [GPUFUZZ]:
        if not os.path.exists(binary):
            sys.exit(f"error: {binary} missing; build it first (see --help)")
    rows = cost(args) if args.what == "cost" else hunt(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
