#!/bin/sh
# Run one RouterLab command against two fresh lesson peers, then stop them (docs/faults.md).
#
#   sh scenarios/peers/with-peers.sh simulate scenarios/peers/kill-mid-transfer.toml
#
# It starts `routerlab serve --local 2` in the background, waits for the line that gives the
# peers' --peer flags, runs `routerlab ARGS... --peer peer1=ws://... --peer peer2=ws://...`,
# stops the peers and exits with the command's status. Each run has peers of its own, so a fault
# that kills one cannot break the next command. Both sides take the token from ROUTERLAB_TOKEN,
# which is made up here when it is not set. `routerlab` is the one on PATH, else the checkout's
# ./run; set ROUTERLAB to another command to choose (e.g. ROUTERLAB="python -m routerlab").
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${ROUTERLAB:-}" ]; then
  routerlab=$ROUTERLAB
elif command -v routerlab >/dev/null 2>&1; then
  routerlab=routerlab
else
  routerlab="$here/../../run"
fi
if [ -z "${ROUTERLAB_TOKEN:-}" ]; then
  ROUTERLAB_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
fi
export ROUTERLAB_TOKEN

log=$(mktemp)
$routerlab serve --local 2 >"$log" 2>&1 &
peers=$!
trap 'kill -TERM "$peers" 2>/dev/null; wait "$peers" 2>/dev/null; rm -f "$log"' EXIT
tries=0
flags=
while [ -z "$flags" ]; do
  if ! kill -0 "$peers" 2>/dev/null || [ "$tries" -ge 600 ]; then
    echo "with-peers.sh: the lesson peers did not start:" >&2
    cat "$log" >&2
    exit 1
  fi
  tries=$((tries + 1))
  sleep 0.1
  flags=$(sed -n 's/^use them with: //p' "$log")
done
# $flags is split into words on purpose: "--peer NAME=ADDRESS" pairs, no spaces inside.
# shellcheck disable=SC2086
$routerlab "$@" $flags
status=$?
exit "$status"
