#!/usr/bin/env python3
"""The benchmark corpus: real manifests replicated into a large tree, every copy's objects
renamed so they stay distinct. Only the Python standard library is needed.

usage: gen_corpus.py OUT [N_SINGLE=9000] [N_BUNDLE=1000] [--source DIR]

--source is a folder of real manifests laid out as <owner>__<repo>/<path> (default: the
repository's testdata/corpus, 300 manifests from 15 public repositories; its `templated`
folder, Helm templates, is left out). The text of each copy is the source's, byte for byte,
but for the value of each top-level `metadata:` block's `name:` line, which gets a suffix
(`-c00042`), so comments, quoting, flow style and odd separators are what real files have.

Layout (the same as the corpus the README's figures were measured on):
  OUT/s<NN>/<owner>__<repo>/c<NNNNN>/<path>              single-file copies, N_SINGLE of them
  OUT/s<NN>/bundles/<owner>__<repo>/bundle-<NNNNN>.yaml  3 to 8 files of one repository joined
                                                         with `---` (as `kustomize build`
                                                         writes), N_BUNDLE of them
  OUT/large/<owner>__<repo>/c<N>/<path>                  sources over 500 KB, twice each
  OUT/INDEX.tsv                                          path, bytes, source(s)
The files are spread over 16 folders s00..s15; the choice is seeded, so a run is repeatable.
"""
import argparse
import os
import random
import re
import shutil
import sys

from measure import output_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 20260822
BIG = 500_000
NAME = re.compile(r"^(  name:[ \t]+)(\"[^\"]*\"|'[^']*'|[^\s#]+)(.*)$")


def load_sources(src):
    sources = []
    for dirpath, dirnames, files in os.walk(src):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, src)
        if rel_dir.split(os.sep)[0] in ("templated", "_tools"):
            dirnames.clear()
            continue
        if rel_dir == ".":
            continue
        for f in sorted(files):
            if not re.search(r"\.ya?ml$", f):
                continue
            path = os.path.join(dirpath, f)
            with open(path, "rb") as fh:
                data = fh.read()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            sources.append({"rel": os.path.relpath(path, src).replace(os.sep, "/"),
                            "text": text, "bytes": len(data)})
    return sources


def renamed(text, suffix):
    """`text` with `suffix` added to each top-level object's `metadata.name` (block style:
    a `metadata:` line at column 0 and its `  name:` line), quotes kept."""
    lines = text.split("\n")
    in_metadata = False
    for i, line in enumerate(lines):
        if line.rstrip() == "metadata:":
            in_metadata = True
            continue
        if in_metadata and line and not line.startswith((" ", "\t", "#")):
            in_metadata = False
        if not in_metadata:
            continue
        m = NAME.match(line)
        if m:
            value = m.group(2)
            if value[:1] in "\"'":
                value = value[:-1] + suffix + value[-1]
            else:
                value += suffix
            lines[i] = m.group(1) + value + m.group(3)
            in_metadata = False
    return "\n".join(lines)


def first_significant(text):
    return next((l for l in text.split("\n") if l.strip() and not l.lstrip().startswith("#")), "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=output_dir, metavar="OUT",
                    help="the folder to write (an earlier corpus there is replaced)")
    ap.add_argument("n_single", type=int, nargs="?", default=9000, metavar="N_SINGLE")
    ap.add_argument("n_bundle", type=int, nargs="?", default=1000, metavar="N_BUNDLE")
    ap.add_argument("--source", default=os.path.join(ROOT, "testdata", "corpus"), metavar="DIR",
                    help="real manifests laid out as <owner>__<repo>/<path> (default: testdata/corpus)")
    a = ap.parse_args()
    out, n_single, n_bundle, src = a.out, a.n_single, a.n_bundle, a.source
    if n_single < 0 or n_bundle < 0:
        ap.error("the counts cannot be negative")
    rng = random.Random(SEED)
    sources = load_sources(src)
    small = [s for s in sources if s["bytes"] <= BIG]
    large = [s for s in sources if s["bytes"] > BIG]
    if not small:
        sys.exit(f"no manifests under {src}")
    if os.path.exists(out):
        # Replaced only when it is empty or a corpus this script wrote (never `~` or `.`).
        if os.listdir(out) and not os.path.isfile(os.path.join(out, "INDEX.tsv")):
            sys.exit(f"{out} is not empty and holds no INDEX.tsv: not a corpus of gen_corpus.py; "
                     "give a new folder")
        shutil.rmtree(out)
    os.makedirs(out)
    index = []

    def write(path, text, origin):
        full = os.path.join(out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        data = text.encode("utf-8")
        with open(full, "wb") as fh:
            fh.write(data)
        index.append(f"{path}\t{len(data)}\t{origin}")

    # Single-file copies: every source in turn, then random ones for the remainder.
    whole = len(small) * (n_single // len(small))
    for i in range(n_single):
        s = small[i % len(small)] if i < whole else rng.choice(small)
        repo, rest = s["rel"].split("/", 1)
        write(f"s{i % 16:02d}/{repo}/c{i:05d}/{rest}", renamed(s["text"], f"-c{i:05d}"), s["rel"])
    # Bundles: 3 to 8 files of one repository, joined with `---`.
    by_repo = {}
    for s in small:
        by_repo.setdefault(s["rel"].split("/", 1)[0], []).append(s)
    repos = sorted(by_repo)
    for b in range(n_bundle):
        repo = repos[b % len(repos)]
        parts, origin = [], []
        for j in range(rng.randint(3, 8)):
            s = rng.choice(by_repo[repo])
            t = renamed(s["text"], f"-b{b:05d}-{j}")
            if not t.endswith("\n"):
                t += "\n"
            if parts and not first_significant(t).startswith("---"):
                parts.append("---\n")
            parts.append(t)
            origin.append(s["rel"])
        write(f"s{b % 16:02d}/bundles/{repo}/bundle-{b:05d}.yaml", "".join(parts), ",".join(origin))
    for li, s in enumerate(large):
        repo, rest = s["rel"].split("/", 1)
        for c in range(2):
            write(f"large/{repo}/c{c}/{rest}", renamed(s["text"], f"-l{li:02d}{c}"), s["rel"])
    with open(os.path.join(out, "INDEX.tsv"), "w", encoding="utf-8") as fh:
        fh.write("path\tbytes\tsource\n" + "\n".join(index) + "\n")
    total = sum(int(line.split("\t")[1]) for line in index)
    print(f"{len(index)} files, {total / 1e6:.1f} MB from {len(sources)} sources in {src}")


if __name__ == "__main__":
    main()
