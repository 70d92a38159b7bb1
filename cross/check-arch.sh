#!/usr/bin/env bash
# Checks that every ELF file in a bundle (the .node bindings, shared libraries, the Node binary)
# is built for the robot's processor, so nothing of the build machine's (x86-64) reached it.
#
#   cross/check-arch.sh DIR linux-arm64|linux-armv7
#
# Prints one line per binary and exits 1 naming each one of another machine.
set -euo pipefail

die() {
  echo "check-arch.sh: $*" >&2
  exit 2
}

[ "$#" -eq 2 ] || die "usage: cross/check-arch.sh DIR linux-arm64|linux-armv7"
dir="$1"
case "$2" in
  linux-arm64) want=AArch64 ;;
  linux-armv7) want=ARM ;;
  *) die "unknown target $2 (linux-arm64 or linux-armv7)" ;;
esac
[ -d "$dir" ] || die "$dir is not a directory"
command -v readelf >/dev/null || die "needs readelf (apt-get install binutils)"

# Candidates are files with a record that starts with the ELF magic; readelf settles which are ELF.
mapfile -d '' candidates < <(LC_ALL=C grep -rlaZz -P '^\x7fELF' "$dir" || true)
checked=0
wrong=0
for f in "${candidates[@]}"; do
  machine="$(LC_ALL=C readelf -h "$f" 2>/dev/null | sed -n 's/^ *Machine: *//p')" || true
  [ -n "$machine" ] || continue
  checked=$((checked + 1))
  if [ "$machine" = "$want" ]; then
    echo "ok     $machine  ${f#"$dir"/}"
  else
    echo "WRONG  $machine  ${f#"$dir"/} (the bundle is for $2: $want)" >&2
    wrong=$((wrong + 1))
  fi
done
[ "$checked" -gt 0 ] || { echo "check-arch.sh: no ELF file in $dir: is it a bundle?" >&2; exit 1; }
if [ "$wrong" -gt 0 ]; then
  echo "check-arch.sh: $wrong of $checked binaries in $dir are not $want" >&2
  exit 1
fi
echo "all $checked binaries are $want"
