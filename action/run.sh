#!/usr/bin/env bash
# The shell side of the taintlint GitHub Action (action.yml). Each step of the action calls one
# subcommand; tests/action.rs runs them in a simulated runner environment.
#
#   run.sh probe    is a taintlint of this action's version already on PATH?
#                   outputs: version, lock-hash, source-hash (of everything the build
#                   reads: the cache key), install (true|false)
#   run.sh install  cargo install --locked --path "$GITHUB_ACTION_PATH"
#   run.sh check    one taintlint run: annotations on stdout, SARIF to the file, Markdown to
#                   $GITHUB_STEP_SUMMARY; outputs: findings, errors, sarif-file; exits with
#                   taintlint's exit code (0 clean, 1 findings at/above fail-on, 2 tool error)
#
# Inputs arrive as environment variables, as action.yml passes them:
#   INPUT_PATHS       paths to lint, split like shell words (default `.`)
#   INPUT_ARGS        extra arguments for `taintlint check`, split like shell words
#   INPUT_CONFIG      a config file (`--config`); empty: discover `.taintlint.yaml`
#   INPUT_FAIL_ON     error|warning|info|never (default warning)
#   INPUT_SARIF_FILE  where to write SARIF (default taintlint.sarif)
#   INPUT_SUMMARY     true|false: append the Markdown summary to $GITHUB_STEP_SUMMARY
# and the runner's GITHUB_ACTION_PATH, GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# GITHUB_PATH, RUNNER_TEMP. Shell words are split by python3's shlex (quotes work, nothing is
# expanded or executed); python3 also reads the JSON report. GitHub's runners have it.
set -euo pipefail

ACTION_PATH=${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
CARGO_BIN=${CARGO_HOME:-$HOME/.cargo}/bin
# Where `cargo install` builds, so actions/cache can keep it between runs (see action.yml).
TARGET_DIR=${TAINTLINT_TARGET_DIR:-$HOME/.cache/taintlint-action/target}

# Workflow commands are read from stdout; never call this inside $(…).
die() {
    echo "::error title=taintlint action::$*"
    exit 2
}

# Appends name=value to $GITHUB_OUTPUT (or prints it when run outside a runner).
set_output() {
    if [[ -n ${GITHUB_OUTPUT:-} ]]; then
        printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
    else
        printf '%s=%s\n' "$1" "$2"
    fi
}

# Sets PY to a Python 3.
find_python() {
    for PY in python3 python; do
        if command -v "$PY" >/dev/null 2>&1 && "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 6))' 2>/dev/null; then
            return
        fi
    done
    die "python3 is needed to read taintlint's report; install it before this action (actions/setup-python)"
}

# The `version = "…"` of the [package] table of the action's Cargo.toml.
action_version() {
    awk -F'"' '/^\[package\]/ { p = 1; next } /^\[/ { p = 0 } p && /^version *=/ { print $2; exit }' \
        "$ACTION_PATH/Cargo.toml"
}

# The version a taintlint binary reports (`taintlint 0.1.0`), or nothing.
version_of() {
    "$1" --version 2>/dev/null | awk '{ print $2; exit }' || true
}

# Sets BIN to a taintlint of the action's version: the one on PATH, else the one
# `cargo install` just put in CARGO_BIN (which may come after an older one on PATH).
find_taintlint() {
    local want candidate
    want=$(action_version)
    for candidate in "$(command -v taintlint || true)" "$CARGO_BIN/taintlint"; do
        if [[ -n $candidate && -x $candidate && $(version_of "$candidate") == "$want" ]]; then
            BIN=$candidate
            return
        fi
    done
    die "no taintlint $want is installed (did the install step run?)"
}

probe() {
    local want have="" path
    want=$(action_version)
    [[ -n $want ]] || die "no package version in $ACTION_PATH/Cargo.toml"
    find_python
    set_output version "$want"
    set_output lock-hash "$("$PY" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()[:32])' "$ACTION_PATH/Cargo.lock")"
    # The action's own source: an upgrade with the same Cargo.lock gets a new cache entry
    # instead of restoring (and rebuilding over) the old version's build on every run.
    set_output source-hash "$("$PY" -c '
import hashlib, os, sys
root = sys.argv[1]
h = hashlib.sha256()
paths = ["Cargo.toml", "Cargo.lock"]
for top in ("src", "rules"):
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        paths += sorted(os.path.relpath(os.path.join(d, f), root) for f in files)
for p in paths:
    full = os.path.join(root, p)
    if os.path.isfile(full):
        h.update(p.replace(os.sep, "/").encode() + b"\0")
        h.update(open(full, "rb").read() + b"\0")
print(h.hexdigest()[:32])
' "$ACTION_PATH")"
    path=$(command -v taintlint || true)
    if [[ -n $path ]]; then
        have=$(version_of "$path")
    fi
    if [[ -n $have && $have == "$want" ]]; then
        echo "taintlint $have is already installed: $path"
        set_output install false
    else
        echo "taintlint $want will be built from $ACTION_PATH${have:+ (found $have at $path)}"
        set_output install true
    fi
}

install() {
    command -v cargo >/dev/null 2>&1 ||
        die "cargo is not installed; add a Rust toolchain before this action (e.g. dtolnay/rust-toolchain@stable)"
    cargo install --locked --force --path "$ACTION_PATH" --target-dir "$TARGET_DIR"
    if [[ -n ${GITHUB_PATH:-} ]]; then
        echo "$CARGO_BIN" >>"$GITHUB_PATH"
    fi
}

# Splits $1 like shell words into the array WORDS (NUL-separated through a file, so any
# character survives and an unbalanced quote is an error, not a silent truncation).
split_words() {
    local file word
    file=$(mktemp "$TMP/words.XXXXXX")
    "$PY" -c 'import shlex, sys; sys.stdout.write("".join(w + "\0" for w in shlex.split(sys.argv[1])))' \
        "$1" >"$file" || die "cannot split '$1' into words (an unbalanced quote?)"
    WORDS=()
    while IFS= read -r -d '' word; do
        WORDS+=("$word")
    done <"$file"
}

# Sets SUMMARY to true or false.
parse_summary() {
    case $(printf '%s' "$1" | tr '[:upper:]' '[:lower:]') in
    true | yes | 1 | on) SUMMARY=true ;;
    false | no | 0 | off) SUMMARY=false ;;
    *) die "the summary input must be true or false, not '$1'" ;;
    esac
}

# Appends the Markdown summary $1 to $GITHUB_STEP_SUMMARY within GitHub's limit of 1 MiB per
# step: past it, the last findings' rows give way to a line saying how many are not shown.
append_summary() {
    "$PY" - "$1" "$GITHUB_STEP_SUMMARY" "$2" <<'PY' || die "cannot write the job summary"
import os, sys
src, dest, sarif = sys.argv[1:]
limit = 1024 * 1024
text = open(src, "rb").read()
used = os.path.getsize(dest) if os.path.exists(dest) else 0
if used + len(text) > limit:
    lines = text.splitlines(keepends=True)
    # A findings row: a table row after the findings table's header.
    header = next((i for i, l in enumerate(lines) if l.startswith(b"| | rule |")), len(lines))
    def note(n):
        return ("\n… and %d more finding%s, not shown: a job summary holds 1 MiB at most "
                "(every finding is in the annotations and in `%s`)\n"
                % (n, "" if n == 1 else "s", sarif)).encode()
    # rows_from[i]: the findings rows from line i on.
    rows_from = [0] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        row = i >= header + 2 and lines[i].startswith(b"|")
        rows_from[i] = rows_from[i + 1] + row
    kept, size = [], used
    for i, line in enumerate(lines):
        if size + len(line) + len(note(rows_from[0])) > limit:
            kept.append(note(rows_from[i]))
            break
        kept.append(line)
        size += len(line)
    text = b"".join(kept)
with open(dest, "ab") as f:
    f.write(text)
PY
}

check() {
    local sarif fail_on key value status=0
    local -a paths=() extra=() cmd=()
    find_taintlint
    find_python
    parse_summary "${INPUT_SUMMARY:-true}"
    TMP=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/taintlint.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT

    if [[ -n ${GITHUB_WORKSPACE:-} ]]; then
        cd "$GITHUB_WORKSPACE"
    fi
    sarif=${INPUT_SARIF_FILE:-taintlint.sarif}
    fail_on=${INPUT_FAIL_ON:-warning}
    split_words "${INPUT_PATHS:-.}"
    paths=(${WORDS[@]+"${WORDS[@]}"})
    [[ ${#paths[@]} -gt 0 ]] || paths=(.)
    split_words "${INPUT_ARGS:-}"
    extra=(${WORDS[@]+"${WORDS[@]}"})
    # `--fail-on` in args wins over the fail-on input (passing both is a taintlint error).
    local fail_on_arg=false i
    for ((i = 0; i < ${#extra[@]}; i++)); do
        case ${extra[i]} in
        --) break ;;
        --fail-on) fail_on_arg=true fail_on=${extra[i + 1]:-} ;;
        --fail-on=*) fail_on_arg=true fail_on=${extra[i]#--fail-on=} ;;
        esac
    done
    mkdir -p "$(dirname "$sarif")"
    rm -f "$sarif"

    cmd=("$BIN" check)
    if ! $fail_on_arg; then
        cmd+=(--fail-on "$fail_on")
    fi
    if [[ -n ${INPUT_CONFIG:-} ]]; then
        cmd+=(--config "$INPUT_CONFIG")
    fi
    cmd+=(--format github)
    cmd+=(--format sarif --output-file "$sarif")
    cmd+=(--format json --output-file "$TMP/report.json")
    if [[ $SUMMARY == true ]]; then
        cmd+=(--format markdown --output-file "$TMP/summary.md")
    fi
    cmd+=(${extra[@]+"${extra[@]}"} -- "${paths[@]}")

    echo "::debug::${cmd[*]}"
    "${cmd[@]}" || status=$?

    if [[ -f $TMP/report.json ]]; then
        "$PY" -c '
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
print("findings=%d" % len(report["findings"]))
print("errors=%d" % report["summary"]["errors"])
' "$TMP/report.json" >"$TMP/counts" || die "cannot read taintlint's JSON report"
        while IFS='=' read -r key value; do
            set_output "$key" "$value"
        done <"$TMP/counts"
    fi
    if [[ -f $sarif ]]; then
        set_output sarif-file "$sarif"
    fi
    if [[ -f $TMP/summary.md && -n ${GITHUB_STEP_SUMMARY:-} ]]; then
        append_summary "$TMP/summary.md" "$sarif"
    fi

    case $status in
    0) ;;
    1) echo "::error title=taintlint::findings at or above '$fail_on' (see the annotations and $sarif)" ;;
    *) echo "::error title=taintlint::taintlint failed with exit code $status (a bad input, flag or config)" ;;
    esac
    exit "$status"
}

case ${1:-check} in
probe) probe ;;
install) install ;;
check) check ;;
*)
    echo "usage: $0 probe|install|check" >&2
    exit 2
    ;;
esac
