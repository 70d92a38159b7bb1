#!/usr/bin/env bash
# Installs `quackd serve` as a systemd service: the quackd system user (in dialout, for the serial
# robots, and in i2c and video where the system has them, for the IMU and the camera), /etc/quackd with a config skeleton, the data directory /var/lib/quackd, the unit, and
# enables it. Safe to run again: what exists is left as it is, and a config is never overwritten.
#
#   sudo systemd/install.sh            install and enable (starts at the next boot)
#   sudo systemd/install.sh --now      … and start it now
#   QUACKD_ROOT=/tmp/x systemd/install.sh --no-systemctl   into another root (a test, an image)
# From a bundle (cross/build.sh, untarred in /opt/quackd): its folder becomes /opt/quackd/current,
# the one before becomes previous (run previous/systemd/install.sh to roll back), and
# /usr/local/bin/quackd runs current's.
set -euo pipefail

usage() {
  sed -n '2,11s/^# \{0,1\}//p' "$0"
  echo "options: --now, --no-systemctl, --root DIR (or QUACKD_ROOT=DIR)"
}

die() {
  echo "install.sh: $*" >&2
  exit 2
}

root="${QUACKD_ROOT:-}"
now=0
use_systemctl=1
while [ "$#" -gt 0 ]; do
  case "$1" in
    --now) now=1 ;;
    --no-systemctl) use_systemctl=0 ;;
    --root) [ "$#" -ge 2 ] || die "--root needs a directory"; root="$2"; shift ;;
    --root=*) root="${1#--root=}" ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (--help lists them)" ;;
  esac
  shift
done
root="${root%/}"
[ -z "$root" ] || [ -d "$root" ] || die "$root is not a directory"
[ "$now" -eq 0 ] || [ -z "$root" ] || die "--now starts the service on this machine; it cannot go with --root"
[ "$(id -u)" -eq 0 ] || die "run it as root (sudo): it creates a system user and owns files to it"

here="$(cd "$(dirname "$0")" && pwd)"
user=quackd
etc="$root/etc/quackd"
data="$root/var/lib/quackd"
unit_dir="$root/etc/systemd/system"

# A bundle (cross/build.sh): bin/quackd and lib/ beside this systemd/. Physical paths: run as
# previous/systemd/install.sh (a rollback), the folder is the version that `previous` names.
bundle="$(cd "$here/.." && pwd -P)"
in_bundle=0
if [ -x "$bundle/bin/quackd" ] && [ -f "$bundle/lib/quackd.cjs" ]; then
  in_bundle=1
  opt="$(dirname "$bundle")"
  name="$(basename "$bundle")"
  [ -z "$root" ] || [ "${opt#"$root"/}" != "$opt" ] || die "the bundle $bundle is outside $root: untar it into $root/opt/quackd"
  if [ ! -x "$bundle/node/bin/node" ] && [ -z "$root" ]; then
    major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)"
    [ "$major" != none ] || die "this bundle runs on the machine's node, and there is none (apt-get install nodejs: Node 20 or newer)"
    [ "$major" -ge 20 ] || die "this bundle needs Node 20 or newer; $(command -v node) is Node $major"
  fi
fi

# useradd/groupadd edit $root/etc/{passwd,group} when given --prefix; the machine's own otherwise.
account_flags=()
[ -z "$root" ] || account_flags=(--prefix "$root")

# Field $2 (1-based) of $1's line in $root/etc/$3 (passwd or group), empty when there is none.
account_field() {
  [ -f "$root/etc/$3" ] || return 0
  awk -F: -v name="$1" -v field="$2" '$1 == name { print $field; exit }' "$root/etc/$3"
}

in_group() {
  account_field "$2" 4 group | tr ',' '\n' | grep -qx "$1"
}

if [ -z "$(account_field dialout 1 group)" ]; then
  groupadd "${account_flags[@]}" --system dialout
fi
if [ -z "$(account_field "$user" 1 group)" ]; then
  groupadd "${account_flags[@]}" --system "$user"
fi
# dialout owns the serial ports; where the system has them (Raspberry Pi OS, Jetson Linux), i2c the
# I²C buses a BNO055 hangs on and video the cameras. A user from an earlier install joins a group
# it is not in yet.
groups=(dialout)
for group in i2c video; do
  [ -z "$(account_field "$group" 1 group)" ] || groups+=("$group")
done
if [ -z "$(account_field "$user" 1 passwd)" ]; then
  useradd "${account_flags[@]}" --system --gid "$user" --groups "$(IFS=,; echo "${groups[*]}")" --home-dir /var/lib/quackd \
    --no-create-home --shell /usr/sbin/nologin --comment "quackd robot runtime" "$user"
fi
for group in "${groups[@]}"; do
  in_group "$user" "$group" || usermod "${account_flags[@]}" --append --groups "$group" "$user"
done
# Numbers, not names: in another root the machine's own passwd does not know the user.
uid="$(account_field "$user" 3 passwd)"
gid="$(account_field "$user" 3 group)"

# The config is root's to write and the service's to read.
install -d -m 0750 -o 0 -g "$gid" "$etc"
if [ ! -e "$etc/config.yaml" ]; then
  install -m 0640 -o 0 -g "$gid" "$here/config.yaml" "$etc/config.yaml"
fi

# The data directory: transcripts, memory and the control socket; quackd's alone, its group may look.
install -d -m 0750 -o "$uid" -g "$gid" "$data"
# quackd reads <data>/config.yaml; a relative link so that it resolves inside another root too.
if [ -L "$data/config.yaml" ] || [ ! -e "$data/config.yaml" ]; then
  ln -sfn ../../../etc/quackd/config.yaml "$data/config.yaml"
else
  echo "install.sh: $data/config.yaml is a file of its own; the service reads it, not $etc/config.yaml" >&2
fi

install -d -m 0755 "$unit_dir"
install -m 0644 "$here/quackd.service" "$unit_dir/quackd.service"

switched=0
if [ "$in_bundle" -eq 1 ]; then
  was="$(readlink "$opt/current" 2>/dev/null || true)"
  if [ "$was" != "$name" ]; then
    # Each link is replaced in one rename, so a reader sees the old folder or the new, never none.
    if [ -n "$was" ]; then
      ln -sfn "$was" "$opt/.previous.new"
      mv -T "$opt/.previous.new" "$opt/previous"
    fi
    ln -sfn "$name" "$opt/.current.new"
    mv -T "$opt/.current.new" "$opt/current"
    switched=1
  fi
  install -d -m 0755 "$root/usr/local/bin"
  # /usr/local/bin/quackd: bin/quackd without its shell, whose start (1-3 ms here, about ten times
  # that on a Pi Zero 2 W) is most of what `quackd status` spends beyond node. A CommonJS file whose
  # #! line names current's node and which requires current's launcher: an upgrade or a rollback
  # leaves it right. A #! line cannot hold a space, so such a folder gets a link to bin/quackd.
  at="${opt#"$root"}/current"
  case "$at" in
    *[[:space:]\"\\]*) ln -sfn "$at/bin/quackd" "$root/usr/local/bin/.quackd.new" ;;
    *)
      interpreter=/usr/bin/env\ node
      [ ! -x "$bundle/node/bin/node" ] || interpreter="$at/node/bin/node"
      printf '#!%s\n// Written by install.sh: quackd from %s (its bin/quackd, without the shell).\nrequire("%s/lib/quackd.cjs");\n' \
        "$interpreter" "$at" "$at" >"$root/usr/local/bin/.quackd.new"
      chmod 0755 "$root/usr/local/bin/.quackd.new"
      ;;
  esac
  mv -T "$root/usr/local/bin/.quackd.new" "$root/usr/local/bin/quackd"
  echo "quackd $name is current in $opt${was:+ (previous: $was)}"
fi

if [ -z "$root" ] && ! PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin command -v quackd >/dev/null; then
  echo "install.sh: quackd is not in /usr/local/bin or /usr/bin, where the service looks (from a clone: npm ci && npm pack && sudo npm install -g --ignore-scripts ./quackd-*.tgz)" >&2
fi

if [ "$use_systemctl" -eq 1 ]; then
  if [ -n "$root" ]; then
    systemctl --root="$root" --quiet enable quackd.service
  else
    # daemon-reload needs a running systemd; enabling (links in /etc) does not.
    [ ! -d /run/systemd/system ] || systemctl daemon-reload
    # An upgrade or a rollback: a running service goes on to the new folder now.
    [ "$switched" -eq 0 ] || [ ! -d /run/systemd/system ] || systemctl --quiet try-restart quackd.service
    if [ "$now" -eq 1 ]; then
      systemctl --quiet enable --now quackd.service
    else
      systemctl --quiet enable quackd.service
    fi
  fi
fi

echo "quackd.service installed: config $etc/config.yaml, data $data"
if [ "$use_systemctl" -eq 0 ]; then
  echo "not enabled (--no-systemctl): sudo systemctl enable --now quackd"
elif [ "$now" -eq 1 ]; then
  echo "running: systemctl status quackd · journalctl -u quackd -f"
elif [ -z "$root" ]; then
  echo "enabled: it starts at boot; now: sudo systemctl start quackd"
fi
