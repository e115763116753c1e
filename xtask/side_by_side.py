#!/usr/bin/env python3
"""Build against build, side by side in one run: every corpus shader by A then B, alternating, best of
ROUNDS each, so that both see the same machine (its noise, its fast and slow phases). What
`cargo xtask side-by-side` runs and records in results/side-by-side.md.

--kind throughput: Mpixels/s of `tgsic bench --engines ENGINE --threads 1 --cache-dir off` with the
  bindings of the shared bench (vs_llvmpipe.py); ratio B / A (above 1: B is faster).
--kind first-frame: `first_frame.py`'s time to the first image: each build's first start on an empty
  code cache of its own, then ROUNDS second starts; ratios A / B (above 1: B shows its image sooner).

A side is `PATH` or `VAR=value,VAR2=value:PATH` (environment variables for that side alone, such as
TGSIC_LLVM_FEATURES=-avx512f).

usage: side_by_side.py --a SIDE --b SIDE [--kind throughput|first-frame] [--engine llvm] [--math M]
                       [--shaders all|a,b] [--rounds 2] [--core 1] [--textured]
"""
import argparse, json, math, os, shutil, sys, tempfile

BENCH = os.path.join(os.environ.get("TGSIC_SHARED", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared")), "bench")
sys.path.insert(0, BENCH)
import vs_llvmpipe  # noqa: E402  (the corpus contract: constants and textures per shader)
import first_frame  # noqa: E402


def side(spec):
    """(binary, environment changes) of a side's spelling."""
    if ":" in spec and "=" in spec.split(":", 1)[0]:
        env, binary = spec.split(":", 1)
        return binary, dict(kv.split("=", 1) for kv in env.split(",") if kv)
    return spec, {}


def with_env(changes, run):
    old = dict(os.environ)
    os.environ.update(changes)
    try:
        return run()
    finally:
        os.environ.clear()
        os.environ.update(old)


def geomean(rs):
    return math.exp(sum(math.log(r) for r in rs) / len(rs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--kind", default="throughput", choices=["throughput", "first-frame"])
    ap.add_argument("--engine", default="llvm")
    ap.add_argument("--math", default="")
    ap.add_argument("--shaders", default="all")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--core", default="1")
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--textured", action="store_true", help="only the shaders that sample textures")
    a = ap.parse_args()
    A, B = side(a.a), side(a.b)
    index = json.load(open(os.path.join(vs_llvmpipe.CORPUS, "index.json")))["shaders"]
    names = sorted(index) if a.shaders == "all" else a.shaders.split(",")
    if a.textured:
        names = [n for n in names if (index[n].get("texture") or {}).get("used")]
    tmp = tempfile.mkdtemp()
    print("A: `%s`; B: `%s`; %s engine, %s math, %d rounds, core %s, %dx%d." % (
        a.a, a.b, a.engine, a.math or "default", a.rounds, a.core, a.size, a.size))
    print()
    ratios, firsts = [], []
    if a.kind == "throughput":
        print("| shader | A Mpix/s | B Mpix/s | B / A |")
        print("|---|---|---|---|")
        for name in names:
            s = index[name]
            best = {"A": 0.0, "B": 0.0}
            for _ in range(a.rounds):
                for tag, (binary, env) in (("A", A), ("B", B)):
                    mpix = with_env(env, lambda: vs_llvmpipe.tgsic(
                        binary, s, a.size, a.engine, a.math, a.core, ["--cache-dir", "off"], tmp))
                    best[tag] = max(best[tag], mpix)
            ratios.append(best["B"] / best["A"])
            print("| %s | %.1f | %.1f | %.3fx |" % (name, best["A"], best["B"], ratios[-1]), flush=True)
        print("\nthroughput B / A, geometric mean over %d shaders: %.3fx (lowest %.3fx, highest %.3fx)" % (
            len(ratios), geomean(ratios), min(ratios), max(ratios)))
        return
    extra = ["--math", a.math] if a.math else []
    print("| shader | A second start ms | B second start ms | A / B | A first start ms | B first start ms | A / B |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        s = index[name]
        first, second = {}, {}
        for tag, (binary, env) in (("A", A), ("B", B)):
            cache = os.path.join(tmp, "cache-" + tag)
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)
            first[tag] = with_env(env, lambda: first_frame.tgsic_first(
                binary, s, a.size, a.engine, a.core, extra, tmp, cache))
            second[tag] = math.inf
        for _ in range(a.rounds):
            for tag, (binary, env) in (("A", A), ("B", B)):
                cache = os.path.join(tmp, "cache-" + tag)
                second[tag] = min(second[tag], with_env(env, lambda: first_frame.tgsic_first(
                    binary, s, a.size, a.engine, a.core, extra, tmp, cache)))
        ratios.append(second["A"] / second["B"])
        firsts.append(first["A"] / first["B"])
        print("| %s | %.1f | %.1f | %.3fx | %.1f | %.1f | %.3fx |" % (
            name, second["A"], second["B"], ratios[-1], first["A"], first["B"], firsts[-1]), flush=True)
    print("\nfirst frame A / B, geometric mean over %d shaders: second start %.3fx (lowest %.3fx), "
          "first start (one run each) %.3fx (lowest %.3fx)" % (
              len(ratios), geomean(ratios), min(ratios), geomean(firsts), min(firsts)))


if __name__ == "__main__":
    main()
