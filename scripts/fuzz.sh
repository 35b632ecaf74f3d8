#!/usr/bin/env bash
# Runs every fuzz target of the repository (func FuzzXxx in a *_test.go),
# one after the other, for FUZZTIME each (default 20s), and fails if any
# target finds a crasher. A crasher is written by `go test` under the
# package's testdata/fuzz/FuzzXxx/; fix the bug and commit that file as a
# seed. Usage: scripts/fuzz.sh [PATTERN]  (PATTERN filters target names)
set -uo pipefail
# (pipefail: the go test status survives the tee below)
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-20s}"
pattern="${1:-.}"
failed=()
count=0
# grep output: ./internal/deb/fuzz_test.go:45:func FuzzArReader(f *testing.F) {
while IFS=: read -r file _ decl; do
  name="${decl#func }"
  name="${name%%(*}"
  [[ "$name" =~ $pattern ]] || continue
  pkg="./$(dirname "${file#./}")"
  count=$((count + 1))
  echo "== fuzz $pkg $name for $FUZZTIME"
  start=$(date +%s)
  log="$(mktemp)"
  if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" \
      -parallel 2 -fuzzminimizetime 1s 2>&1 | tee "$log"; then
    # The Go fuzzing engine can fail with "context deadline exceeded" when a
    # worker is slow to answer as FUZZTIME ends (seen on a loaded machine):
    # no input failed and none was written. Anything else is a failure.
    if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
      echo "== $name: the fuzzing engine timed out at the end, no failing input (not counted)"
    else
      failed+=("$pkg $name")
    fi
  fi
  rm -f "$log"
  echo "== $name: $(( $(date +%s) - start ))s"
done < <(grep -rn '^func Fuzz' --include='*_test.go' . | sort)

if [ "$count" = 0 ]; then
  echo "fuzz.sh: no fuzz target matches '$pattern'" >&2
  exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} of $count target(s) failed:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz.sh: $count target(s) ran $FUZZTIME each without a crasher"
