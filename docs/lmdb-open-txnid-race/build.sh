#!/bin/sh
# Builds and runs the reproduction twice:
#   repro-lmdbjs    repro.c + lmdb-js's bundled mdb.c/midl.c (defines as in lmdb-js's binding.gyp)
#   repro-upstream  repro.c + Debian's liblmdb (apt-get install liblmdb-dev)
# Usage: sh build.sh [path to lmdb-js's liblmdb dir]   (exit 0 = both builds behaved as expected)
set -e
cd "$(dirname "$0")"
LMDBJS=${1:-../../node_modules/lmdb/dependencies/lmdb/libraries/liblmdb}
CFLAGS="-O2 -g -Wall -pthread"

gcc $CFLAGS -DMDB_MAXKEYSIZE=0 -I"$LMDBJS" -o repro-lmdbjs repro.c "$LMDBJS/mdb.c" "$LMDBJS/midl.c" -w
gcc $CFLAGS -rdynamic -o repro-upstream repro.c -llmdb

set +e
echo "== lmdb-js $(node -p 'require("'"$LMDBJS"'/../../../../package.json").version' 2>/dev/null) bundled mdb.c"
./repro-lmdbjs; a=$?; echo "exit $a"
echo "== Debian liblmdb $(dpkg-query -W -f '${Version}' liblmdb0 2>/dev/null)"
./repro-upstream; b=$?; echo "exit $b"
[ $a -eq 1 ] && [ $b -eq 0 ]
