#!/bin/sh
# The walk-through of docs/emulation.md as one command: python-ndn's putchunks on P serves 2 MB,
# catchunks on C fetches it through the 10 Mbit/s, 20 ms bottleneck of emulation.toml, and
# `ndncc emulate` reports how far its engine ran behind the wall clock (its last line).
# Run from the repository's root with the project's venv: sh docs/examples/emulation-lag.sh
set -e
NDNCC=${NDNCC:-.venv/bin/ndncc}
TOOLS=${TOOLS:-.venv/bin/pyndntools}
work=$(mktemp -d)
export HOME="$work"   # python-ndn's client.conf and keychain: none of the user's
head -c 2000000 /dev/urandom > "$work/file.bin"
"$NDNCC" emulate docs/examples/emulation.toml --set 'simulation.duration="22s"' \
    --face P=tcp://127.0.0.1:0 --face C=tcp://127.0.0.1:0 -o "$work/run" > "$work/emulate.out" &
emulate=$!
until grep -q "C=tcp" "$work/emulate.out" 2>/dev/null; do sleep 0.1; done
P=$(sed -n 's/.*P=\(tcp:[^ ]*\).*/\1/p' "$work/emulate.out")
C=$(sed -n 's/.*C=\(tcp:[^ ]*\).*/\1/p' "$work/emulate.out")
NDN_CLIENT_TRANSPORT=$P "$TOOLS" putchunks /file "$work/file.bin" > /dev/null &
putchunks=$!
sleep 1.5
NDN_CLIENT_TRANSPORT=$C "$TOOLS" catchunks /file -o "$work/got.bin"
cmp "$work/file.bin" "$work/got.bin" && echo "the file arrived byte for byte"
wait $emulate
kill $putchunks 2>/dev/null || true
tail -n 1 "$work/emulate.out"
rm -rf "$work"
