#!/usr/bin/env bash
# The test suite again on Node.js 24 LTS (prepared by .ci/prepare-node24.sh in
# $1), on the dist/ that `npm test` built: servers the tests spawn run on
# process.execPath, so they run on Node 24 too. better-sqlite3's native addon
# is swapped for the one built for Node 24's ABI and put back afterwards.
set -euo pipefail
prepared=$1
cd "$(dirname "$0")/.."

native=node_modules/better-sqlite3/build
mv "$native" "$native.node20"
restore() { rm -rf "$native"; mv "$native.node20" "$native"; }
trap restore EXIT
cp -r "$prepared/better-sqlite3/build" "$native"

export PATH="$prepared/node/bin:$PATH"
node --version
# `npm test` without its build step (npm itself runs on the node first on PATH).
npm run test:built --silent
