#!/usr/bin/env bash
# Writes what a taintlint binary prints for a fixed matrix of inputs, commands, formats,
# thread counts and spill budgets into OUT, one file per case (stdout, then the exit code).
# Two builds behave the same when `diff -r` of their two folders is empty:
#
# Usage:
#   bench/outputs.sh target/release/taintlint /tmp/after  [BENCH_DIR [DIR...]]
#   diff -r /tmp/before /tmp/after
#
# Used to show that a restructuring changes no byte of output. BENCH_DIR (optional; `""`
# for none) holds the benchmark corpora `corpus-1x` (bench/gen_corpus.py) and `xref`
# (bench/gen_xref.py), as `bench/run.py` leaves them in target/bench. Every DIR after it (a
# larger corpus of real manifests, say) is linted as testdata/corpus is, and each of its
# subfolders too. Needs nothing outside the repository.
set -uo pipefail
usage() { sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
case ${1:-} in
-h | --help)
    usage
    exit 0
    ;;
esac
if [ $# -lt 2 ]; then
    usage >&2
    exit 2
fi
case $2 in
-*)
    echo "outputs.sh: '$2' is not an output folder (it starts with '-'; write ./$2 if you mean it)" >&2
    exit 2
    ;;
esac
BIN=$(realpath "$1")
OUT=$(realpath -m "$2")
BENCH=${3:-}
shift $(($# < 3 ? $# : 3))
EXTRA=()
for d in "$@"; do EXTRA+=("$(realpath "$d")"); done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
mkdir -p "$OUT"
export NO_COLOR=1
unset TAINTLINT_FORMAT TAINTLINT_TIMING

n=0
case_() { # name, then the command's arguments
    local name=$1
    shift
    n=$((n + 1))
    "$BIN" "$@" >"$OUT/$name" 2>"$OUT/$name.stderr"
    echo "exit $?" >>"$OUT/$name"
    # Timing-free stderr only (warnings, summaries of --fix and baselines).
    sed -i "s|$OUT|<out>|g" "$OUT/$name.stderr"
}

dirs=(testdata/examples testdata/input testdata/rules testdata/kustomize testdata)
for d in testdata/scenarios/*/; do dirs+=("${d%/}"); done
dirs+=(testdata/corpus)
for p in testdata/corpus/*/; do [ -d "$p" ] && dirs+=("${p%/}"); done
for d in "${EXTRA[@]}"; do
    dirs+=("$d")
    for p in "$d"/*/; do [ -d "$p" ] && dirs+=("${p%/}"); done
done

for d in "${dirs[@]}"; do
    tag=$(echo "$d" | tr '/.' '__')
    for fmt in json sarif human concise github markdown; do
        case_ "$tag.$fmt" check "$d" --format "$fmt" --color never --isolated
    done
    case_ "$tag.json-t1" check "$d" --format json --isolated --threads 1
    TAINTLINT_SPILL_BUDGET=0 case_ "$tag.json-budget0" check "$d" --format json --isolated
    case_ "$tag.full-parse" check "$d" --format json --isolated --full-parse
    case_ "$tag.matrix" matrix "$d" --isolated
    case_ "$tag.matrix-md" matrix "$d" --isolated --format markdown
    case_ "$tag.diff" check "$d" --diff --isolated --unsafe-fixes
    case_ "$tag.fail-never" check "$d" --format concise --isolated --fail-on never \
        --select toleration-exists-with-value,unschedulable-workload,tolerates-all-taints,dedicated-toleration-without-affinity \
        --ignore tolerates-all-taints
    bl="$OUT/$tag.baseline.json"
    case_ "$tag.write-baseline" check "$d" --isolated --write-baseline "$bl"
    case_ "$tag.with-baseline" check "$d" --format json --isolated --baseline "$bl"
    sed -i 's/"version": *"[^"]*"//' "$bl"
done

# Scenarios as their tests run them (with args.txt and their configs).
for d in testdata/scenarios/*/; do
    tag=scenario_$(basename "$d")
    if [ -f "$d/args.txt" ]; then
        mapfile -t args < <(grep -v '^\s*$' "$d/args.txt")
    else
        args=("${d%/}")
    fi
    case_ "$tag.json" check --format json "${args[@]}"
    case_ "$tag.human" check --color never "${args[@]}"
    case_ "$tag.matrix" matrix "${args[@]}"
done

# explain on every workload the examples and scenarios declare.
for f in testdata/examples/*.yaml testdata/scenarios/*/*.yaml; do
    for line in $(grep -n '^kind:' "$f" | cut -d: -f1); do
        case_ "explain_$(echo "$f" | tr '/.' '__')_$line" explain "$(dirname "$f")" \
            --isolated --at "$f:$line"
    done
done

# Standard input, plain and as Helm output.
for f in testdata/examples/deployment-web.yaml testdata/input/helm-template.yaml; do
    n=$((n + 1))
    "$BIN" check - --format json --isolated <"$f" >"$OUT/stdin_$(basename "$f")" 2>&1
    echo "exit $?" >>"$OUT/stdin_$(basename "$f")"
done

if [ -n "$BENCH" ]; then
    for c in corpus-1x xref; do
        [ -d "$BENCH/$c" ] || continue
        case_ "bench_$c.json" check "$BENCH/$c" --format json --isolated --threads 2
        case_ "bench_$c.sarif" check "$BENCH/$c" --format sarif --isolated --threads 2
        case_ "bench_$c.human" check "$BENCH/$c" --color never --isolated --threads 2
        TAINTLINT_SPILL_BUDGET=0 case_ "bench_$c.json-budget0" check "$BENCH/$c" \
            --format json --isolated --threads 2
    done
fi
echo "$n cases in $OUT" >&2
