#!/usr/bin/env bash
# Fills the corpus from testdata/ and ../shared/corpus, then runs the `lint` target.
# Usage: fuzz/run.sh [SECONDS] [extra libFuzzer flags...]   (default: 1800 s)
set -euo pipefail
case ${1:-} in
-h | --help)
    sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
secs="${1:-1800}"
if [[ ! $secs =~ ^[0-9]+$ ]]; then
    echo "fuzz/run.sh: SECONDS must be a number of seconds, not '$secs' (see --help)" >&2
    exit 2
fi
shift || true
cd "$(dirname "$0")"
corpus=corpus/lint
mkdir -p "$corpus" artifacts/lint
# Seeds: every YAML/JSON file under testdata/ and the shared real-world corpus, named by
# content hash so re-runs add nothing twice.
for dir in ../testdata ../../shared/corpus; do
  [ -d "$dir" ] || continue
  find "$dir" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k -print0 |
    while IFS= read -r -d '' f; do
      cp "$f" "$corpus/$(sha1sum "$f" | cut -c1-40)"
    done
done
# cargo-fuzz needs nightly; RUSTC_BOOTSTRAP lets a stable toolchain act as one. No sanitizer:
# the crate forbids unsafe code, and ASan would halve the speed.
export RUSTC_BOOTSTRAP=1
exec cargo fuzz run --sanitizer none lint "$corpus" -- \
  -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -max_total_time="$secs" "$@"
