#!/bin/sh
# The Makefile's `deps` target with stand-ins for dpkg-query, id and apt-get:
# nothing missing -> apt untouched; missing and not root -> the one sudo line,
# exit 1; missing and root -> apt-get update, then install of just what is missing.
# usage: deps_test.sh SOURCE_DIR
set -u
src=$1
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat > "$fake/dpkg-query" <<'F'
#!/bin/sh
for p in $FAKE_MISSING; do [ "$p" = "$3" ] && exit 1; done
printf 'install ok installed'
F
cat > "$fake/id" <<'F'
#!/bin/sh
echo "$FAKE_UID"
F
cat > "$fake/apt-get" <<'F'
#!/bin/sh
echo "apt-get $*" >> "$FAKE_LOG"
F
chmod +x "$fake"/*
export FAKE_LOG="$fake/apt.log"
fail() { echo "FAIL: $*"; exit 1; }
run() { PATH="$fake:$PATH" make -s -C "$src" deps 2>&1; }

: > "$FAKE_LOG"
out=$(FAKE_MISSING="" FAKE_UID=0 run) || fail "all present: deps failed: $out"
[ -s "$FAKE_LOG" ] && fail "all present: apt was touched: $(cat "$FAKE_LOG")"

out=$(FAKE_MISSING="lua-argparse lua-busted" FAKE_UID=1000 run) && fail "not root: deps should fail"
echo "$out" | grep -qx "  sudo apt-get install -y lua-argparse lua-busted" || fail "not root: no sudo line in: $out"
[ -s "$FAKE_LOG" ] && fail "not root: apt was touched"

out=$(FAKE_MISSING="lua-argparse" FAKE_UID=0 run) || fail "root: deps failed: $out"
grep -q "^apt-get update" "$FAKE_LOG" || fail "root: no apt-get update"
grep -q "^apt-get install .*-y.* lua-argparse$" "$FAKE_LOG" || fail "root: wrong install: $(cat "$FAKE_LOG")"
echo "deps ok"
