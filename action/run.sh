#!/usr/bin/env bash
# The shell side of the taintlint GitHub Action (action.yml). Each step of the action calls one
# subcommand; tests/action.rs runs them in a simulated runner environment.
#
# Usage: action/run.sh probe|download|build|install|check|exec ARGS|target|--help
#
#   run.sh probe    is a taintlint of this action's version already on PATH?
#                   outputs: version, lock-hash, source-hash (of everything the build
#                   reads: the cache key), install (true|false)
#   run.sh download the release archive of the action's version for this runner, verified
#                   against the release's SHA256SUMS, onto PATH; output: build=true when
#                   there is no such release (a branch or SHA ref), build=false when done;
#                   fails on a checksum mismatch (nothing is installed)
#   run.sh build    cargo install --locked --path "$GITHUB_ACTION_PATH" (the fallback)
#   run.sh install  download, else build (for use outside the action)
#   run.sh exec ARGS  run taintlint ARGS with the release binary of this checkout's version,
#                   downloaded and verified once into ~/.cache/taintlint (the pre-commit hook
#                   `taintlint-release`); no fallback
#   run.sh target   the release target of this machine (x86_64-unknown-linux-musl, ...)
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
# GITHUB_PATH, RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE. The releases are looked
# for at TAINTLINT_RELEASE_URL (tests), else under the action's repository on GitHub
# (GITHUB_ACTION_REPOSITORY, or the owner/repo in GITHUB_ACTION_PATH), else under the git
# origin of this checkout, else under `repository` in Cargo.toml: <base>/v<version>/SHA256SUMS
# and <base>/v<version>/taintlint-v<version>-<target>.tar.gz (.zip on Windows). Shell words are split by python3's shlex (quotes work, nothing is
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

# Sets BIN to a taintlint of the action's version: the one on PATH, else the one the download
# or `cargo install` just installed (which may come after an older one on PATH).
find_taintlint() {
    local want candidate
    want=$(action_version)
    for candidate in "$(command -v taintlint || true)" "$(install_dir "$want")/taintlint" "$CARGO_BIN/taintlint"; do
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
        # Said in the order it happens: the download comes next; a build only without a release.
        echo "taintlint $want is not on PATH${have:+ (found $have at $path)}: the next step downloads its release binary for this runner, or, when there is none, builds it from $ACTION_PATH"
        set_output install true
    fi
}

# The release target of this runner or machine, or nothing when there is no release binary
# for it.
release_target() {
    local os=${RUNNER_OS:-$(uname -s)} arch=${RUNNER_ARCH:-$(uname -m)}
    case $arch in
    X64 | x86_64 | amd64) arch=x86_64 ;;
    ARM64 | aarch64 | arm64) arch=aarch64 ;;
    *) return 0 ;;
    esac
    case $os in
    Linux) echo "$arch-unknown-linux-musl" ;;
    macOS | Darwin) echo "$arch-apple-darwin" ;;
    Windows | MINGW* | MSYS* | CYGWIN*) [[ $arch == x86_64 ]] && echo x86_64-pc-windows-msvc ;;
    esac
    return 0
}

# Where the releases of this action's repository are: <base>/v<version>/<asset>.
release_base() {
    local url repo
    if [[ -n ${TAINTLINT_RELEASE_URL:-} ]]; then
        echo "${TAINTLINT_RELEASE_URL%/}"
        return
    fi
    repo=${GITHUB_ACTION_REPOSITORY:-}
    # In composite actions GITHUB_ACTION_REPOSITORY can be empty; the path is
    # <runner>/_actions/<owner>/<repo>/<ref>.
    if [[ -z $repo && -n ${GITHUB_ACTION_PATH:-} && $GITHUB_ACTION_PATH == */_actions/*/*/* ]]; then
        repo=${GITHUB_ACTION_PATH#*/_actions/}
        repo=$(printf '%s' "$repo" | cut -d/ -f1-2)
    fi
    if [[ -n $repo ]]; then
        echo "${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download"
        return
    fi
    url=$(git -C "$ACTION_PATH" remote get-url origin 2>/dev/null || true)
    case $url in
    git@github.com:*) url=https://github.com/${url#git@github.com:} ;;
    https://*) ;;
    *) url=$(awk -F'"' '/^repository *=/ { print $2; exit }' "$ACTION_PATH/Cargo.toml") ;;
    esac
    url=${url%/}
    echo "${url%.git}/releases/download"
}

# Where a downloaded release binary of version $1 goes.
install_dir() {
    echo "${TAINTLINT_INSTALL_DIR:-${RUNNER_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}}/taintlint/v$1/$(release_target)}"
}

# Downloads base=$1 archive=$2 into dir=$3 and verifies it; exits 0 (installed), 3 (no such
# release or asset), 4 (checksum mismatch), 5 (network error), 6 (a broken archive).
FETCH='
import hashlib, io, os, sys, tarfile, urllib.error, urllib.request, zipfile
base, archive, dest = sys.argv[1:4]
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        print("%s: HTTP %d" % (url, e.code))
        sys.exit(3 if e.code == 404 else 5)
    except (urllib.error.URLError, OSError) as e:
        print("%s: %s" % (url, e))
        sys.exit(5)
sums = get(base + "/SHA256SUMS").decode("utf-8", "replace")
want = None
for line in sums.splitlines():
    parts = line.split()
    if len(parts) == 2 and parts[1].lstrip("*") == archive:
        want = parts[0].lower()
if want is None:
    print("%s/SHA256SUMS lists no %s" % (base, archive))
    sys.exit(3)
data = get(base + "/" + archive)
got = hashlib.sha256(data).hexdigest()
if got != want:
    print("checksum mismatch for %s: SHA256SUMS says %s, the download is %s; nothing was installed" % (archive, want, got))
    sys.exit(4)
exe = "taintlint.exe" if archive.endswith(".zip") else "taintlint"
blob = None
try:
    if archive.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == exe]
            blob = z.read(names[0]) if names else None
    else:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as t:
            found = [m for m in t.getmembers() if m.isfile() and m.name.rsplit("/", 1)[-1] == exe]
            blob = t.extractfile(found[0]).read() if found else None
except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as e:
    print("%s is not a readable archive: %s" % (archive, e))
    sys.exit(6)
if blob is None:
    print("%s holds no %s" % (archive, exe))
    sys.exit(6)
os.makedirs(dest, exist_ok=True)
tmp = os.path.join(dest, exe + ".part")
with open(tmp, "wb") as f:
    f.write(blob)
os.chmod(tmp, 0o755)
os.replace(tmp, os.path.join(dest, exe))
print("verified %s (sha256 %s)" % (archive, got))
'

# Sets FETCHED to the directory holding the verified release binary, or returns 3 (no
# release for this version and machine: build instead) or 5 (network); dies on a checksum
# mismatch or a broken archive.
fetch_release() {
    local version target archive base dest msg status=0
    version=$(action_version)
    [[ -n $version ]] || die "no package version in $ACTION_PATH/Cargo.toml"
    target=$(release_target)
    if [[ -z $target ]]; then
        echo "no release binary is built for $(uname -s) $(uname -m)"
        return 3
    fi
    archive=taintlint-v$version-$target.tar.gz
    [[ $target == *windows* ]] && archive=taintlint-v$version-$target.zip
    base=$(release_base)/v$version
    dest=$(install_dir "$version")
    echo "Downloading $base/$archive and its checksum (SHA256SUMS)"
    msg=$("$PY" -c "$FETCH" "$base" "$archive" "$dest" 2>&1) || status=$?
    echo "$msg"
    case $status in
    0) ;;
    3 | 5) return "$status" ;;
    *) die "${msg:-cannot install $archive}" ;;
    esac
    local have
    have=$(version_of "$dest/taintlint")
    [[ $have == "$version" ]] || die "the release binary $archive reports version '$have', not $version"
    FETCHED=$dest
}

# Puts directory $1 on PATH for the later steps.
add_path() {
    if [[ -n ${GITHUB_PATH:-} ]]; then
        echo "$1" >>"$GITHUB_PATH"
    fi
}

download() {
    local status=0
    find_python
    fetch_release || status=$?
    case $status in
    0)
        add_path "$FETCHED"
        echo "taintlint $(action_version) installed in $FETCHED (on PATH for the next steps)"
        set_output build false
        ;;
    3)
        echo "::notice title=taintlint action::no release of taintlint $(action_version) for this runner: the next steps build it from source"
        set_output build true
        ;;
    *)
        echo "::warning title=taintlint action::could not download the release (see above): the next steps build it from source"
        set_output build true
        ;;
    esac
}

build() {
    command -v cargo >/dev/null 2>&1 ||
        die "cargo is not installed; add a Rust toolchain before this action (e.g. dtolnay/rust-toolchain@stable)"
    echo "Building taintlint $(action_version) from $ACTION_PATH (cargo install --locked; a cached build is reused)"
    cargo install --locked --force --path "$ACTION_PATH" --target-dir "$TARGET_DIR"
    add_path "$CARGO_BIN"
    echo "taintlint $(action_version) installed in $CARGO_BIN (on PATH for the next steps)"
}

install() {
    local status=0
    find_python
    fetch_release || status=$?
    if [[ $status -eq 0 ]]; then
        add_path "$FETCHED"
        echo "taintlint $(action_version) installed in $FETCHED"
    else
        echo "no release binary to install: building taintlint $(action_version) from source instead"
        build
    fi
}

# The pre-commit hook `taintlint-release`: the verified release binary, downloaded once.
exec_release() {
    local version dir status=0
    version=$(action_version)
    dir=$(install_dir "$version")
    if [[ $(version_of "$dir/taintlint") != "$version" ]]; then
        find_python
        fetch_release >&2 || status=$?
        case $status in
        0) ;;
        5)
            echo "taintlint: cannot download the release binary of version $version: the network or the release server failed (see above); try again, or use the \`taintlint\` hook (builds with cargo) or \`taintlint-system\`" >&2
            exit 2
            ;;
        *)
            echo "taintlint: no release binary of version $version for this machine ($(release_target)); use the \`taintlint\` hook (builds with cargo) or \`taintlint-system\`" >&2
            exit 2
            ;;
        esac
    fi
    exec "$dir/taintlint" "$@"
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

# Appends the Markdown summary $1 to $GITHUB_STEP_SUMMARY. taintlint keeps the summary under
# GitHub's limit of 1 MiB per step itself (past it, the last rows give way to "… and N more
# findings"); this cuts at a line if something else was already written to this step's summary.
append_summary() {
    "$PY" - "$1" "$GITHUB_STEP_SUMMARY" <<'PY' || die "cannot write the job summary"
import os, sys
src, dest = sys.argv[1:]
room = 1024 * 1024 - (os.path.getsize(dest) if os.path.exists(dest) else 0)
text = open(src, "rb").read()
if len(text) > room:
    text = text[:max(room, 0)].rpartition(b"\n")[0] + b"\n"
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
        append_summary "$TMP/summary.md"
    fi

    case $status in
    0) ;;
    1) echo "::error title=taintlint::findings at or above '$fail_on' (see the annotations and $sarif)" ;;
    *) echo "::error title=taintlint::taintlint failed with exit code $status (a bad input, flag or config)" ;;
    esac
    exit "$status"
}

case ${1:-check} in
-h | --help | help) sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
probe) probe ;;
download) download ;;
build) build ;;
install) install ;;
check) check ;;
exec)
    shift
    exec_release "$@"
    ;;
target) release_target ;;
*)
    echo "usage: $0 probe|download|build|install|check|exec ARGS|target|--help" >&2
    exit 2
    ;;
esac
