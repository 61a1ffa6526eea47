#!/usr/bin/env bash
# The rerecord race guard of issue 38 (harness/rerecord/README.md, "Anchoring"): copies a
# recordings root (default the real ../shared/recordings, into a temp dir, never into the
# repository), rerecords every cell of each ACP provider named (default acp-cursor) through today's
# ACP bridge slowed to nice 19 (test/rerecord/fixtures/nice-acp-bridge.mjs), then runs
# `parity check` on the refreshed copies RUNS times through the same slowed bridge, beside BUSY
# busy loops (`node -e 'for(;;){}'`). Prints the load before each run and the count of green
# checks; exits 1 unless every rerecord and check passed. Judges no time: the slowed bridge and the
# loops only make an order the clock decides likely.
#
#   npm run build && test/rerecord/slow-bridge-soak.sh [RUNS=5] [BUSY=0] [ROOT=../shared/recordings] [PROVIDERS=acp-cursor]
#   test/rerecord/slow-bridge-soak.sh 1 0 recordings acp-qwen,acp-opencode,acp-pi   # the committed matrix's ACP cells
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
busy=${2:-0}
source_root=${3:-../shared/recordings}
IFS=, read -r -a providers <<<"${4:-acp-cursor}"
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

status=0
for provider in "${providers[@]}"; do
  echo "$provider: rerecord (load $(cut -d' ' -f1-3 /proc/loadavg), $busy busy loop(s), bridge at nice 19)"
  if ! out=$(node bin/parity.js rerecord --recordings "$scratch/recordings" --lanes "$scratch/lanes" --provider "$provider" --always-current --module "$module" 2>&1); then
    status=1
    grep -E '^(REFUSED|DIVERGED|TIMEOUT)' <<<"$out" || tail -n 5 <<<"$out"
  fi
  tail -n 1 <<<"$out"
  green=0
  for ((run = 1; run <= runs; run++)); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    if out=$(node bin/parity.js check --recordings "$scratch/recordings" --lanes "$scratch/lanes" --provider "$provider" --module "$module" 2>&1); then
      green=$((green + 1))
      echo "  run $run: pass (load $load): $(tail -n 1 <<<"$out")"
    else
      echo "  run $run: FAIL (load $load)"
      grep -E '^(FAIL|ERROR|TIMEOUT)' <<<"$out" || tail -n 5 <<<"$out"
    fi
  done
  echo "$provider: $green of $runs checks green ($busy busy loop(s), bridge at nice 19)"
  [[ $green -eq $runs ]] || status=1
done
exit "$status"
