#!/bin/sh
# Run in the Dockerfile's build stage (decision 2082): starts `flagstaff serve` as the image's
# user, over a throwaway in-memory database, with the runtime's node binary and from the paths
# the image runs at, until it says it listens (the server has flushed Node's compile cache by
# then, decision 2081); then stops it. Node keeps one cache folder per user, so the cache is
# written as 65532, the user the image runs as; the runtime image only reads it.
set -eu
node=/runtime/usr/local/bin/node
log=/tmp/warm-compile-cache.log
mkdir -p node_modules/.cache/flagstaff
chown 65532:65532 node_modules/.cache/flagstaff
NODE_ENV=production FLAGSTAFF_DATABASE_URL=sqlite::memory: FLAGSTAFF_HOST=127.0.0.1 FLAGSTAFF_PORT=0 \
  HOME=/tmp setpriv --reuid=65532 --regid=65532 --clear-groups "$node" bin/flagstaff.js serve >"$log" 2>&1 &
pid=$!
waited=0
until grep -q 'Flagstaff is listening' "$log"; do
  if ! kill -0 "$pid" 2>/dev/null || [ "$waited" -ge 600 ]; then
    cat "$log" >&2
    echo "warm-compile-cache: the server did not start" >&2
    exit 1
  fi
  sleep 0.2
  waited=$((waited + 1))
done
kill -TERM "$pid"
wait "$pid"
rm -f "$log"
# What the image carries: one folder, for uid 65532 (named v<node>-<arch>-<hash>-65532).
ls node_modules/.cache/flagstaff
