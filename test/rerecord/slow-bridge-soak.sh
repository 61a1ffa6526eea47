#!/usr/bin/env bash
# The rerecord race guard of issue 38 (harness/rerecord/README.md, "Anchoring"): copies the real
# recordings (default ../shared/recordings, into a temp dir, never into the repository), rerecords
# every acp-cursor cell through today's ACP bridge slowed to nice 19
# (test/rerecord/fixtures/nice-acp-bridge.mjs), then runs `parity check` on the refreshed copies
# RUNS times through the same slowed bridge, beside BUSY busy loops (`node -e 'for(;;){}'`). Prints
# the load before each run and the count of green checks; exits 1 unless every check passed.
# Judges no time: the slowed bridge and the loops only make an order the clock decides likely.
#
#   npm run build && test/rerecord/slow-bridge-soak.sh [RUNS=5] [BUSY=0] [RECORDINGS=../shared/recordings]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
busy=${2:-0}
source_root=${3:-../shared/recordings}
module=test/rerecord/fixtures/nice-acp-bridge.mjs
scratch=$(mktemp -d)
spinners=()
cleanup() {
  for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT

cp -r "$source_root" "$scratch/recordings"
chmod -R u+w "$scratch/recordings"
for ((i = 0; i < busy; i++)); do
  node -e 'for(;;){}' &
  spinners+=("$!")
done

echo "rerecord (load: $(cut -d' ' -f1-3 /proc/loadavg), $busy busy loop(s), bridge at nice 19)"
node bin/parity.js rerecord --recordings "$scratch/recordings" --lanes "$scratch/lanes" --provider acp-cursor --always-current --module "$module" | tail -n 1

green=0
for ((run = 1; run <= runs; run++)); do
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if out=$(node bin/parity.js check --recordings "$scratch/recordings" --lanes "$scratch/lanes" --provider acp-cursor --module "$module" 2>&1); then
    green=$((green + 1))
    echo "run $run: pass (load $load): $(tail -n 1 <<<"$out")"
  else
    echo "run $run: FAIL (load $load)"
    grep -E '^(FAIL|ERROR|TIMEOUT)' <<<"$out" || tail -n 5 <<<"$out"
  fi
done
echo "$green of $runs checks green ($busy busy loop(s), bridge at nice 19)"
[[ $green -eq $runs ]]
