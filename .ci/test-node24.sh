#!/usr/bin/env bash
# The tests again on Node.js 24 LTS (prepared by .ci/prepare-node24.sh in $1),
# on the dist/ that `npm test` built: servers the tests spawn run on
# process.execPath, so they run on Node 24 too. better-sqlite3's native addon
# is swapped for the one built for Node 24's ABI and put back afterwards.
#
# By default: every unit test, and the end-to-end files that exercise what
# differs between Node versions (HTTP parser, connections and deadlines, TLS,
# zlib, the native SQLite addon, the etcd client's gRPC, WebSocket/SPDY
# tunnels, watch-stream backpressure, in-process servers and their handles,
# the packed package and the example's three test runners). The whole suite
# on Node 24 would double CI's test time, past its 15-minute budget;
# `--all` runs it (docs/testing.md, "Node.js versions").
set -euo pipefail
prepared=$1
mode=${2:-}
cd "$(dirname "$0")/.."

native=node_modules/better-sqlite3/build
mv "$native" "$native.node20"
restore() { rm -rf "$native"; mv "$native.node20" "$native"; }
trap restore EXIT
cp -r "$prepared/better-sqlite3/build" "$native"

export PATH="$prepared/node/bin:$PATH"
node --version
if [ "$mode" = --all ]; then
  # `npm test` without its build step (npm itself runs on the node first on PATH).
  npm run test:built --silent
  exit
fi
e2e=(connections hostile-input deep-nesting shutdown watch-timeout watch-stalled view-negotiation
  kubectl client-node persistence crd-etcd api-aggregation-extensions oidc embedded testing-package
  npm-pack example-runners)
files=(dist/test/unit/*.test.js dist/examples/*/test/*.test.js)
for f in "${e2e[@]}"; do files+=("dist/test/e2e/$f.test.js"); done
node --test --test-concurrency=2 "${files[@]}"
