#!/bin/sh
# Install into a fresh prefix, then run the installed program and module from
# elsewhere: the Lua files must be found relative to the executable.
# usage: install_test.sh CMAKE BUILD_DIR PREFIX LUA54 VERSION
set -eu
cmake=$1 build=$2 prefix=$3 lua=$4 version=$5
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
cd /
out=$("$prefix/bin/retrace" -e 'print(retrace.version, retrace.root)')
[ "$out" = "$(printf '%s\t%s' "$version" "$prefix/share/retrace")" ] || { echo "installed retrace said: $out"; exit 1; }
"$prefix/bin/retrace" help | grep -q '^  info ' || { echo "installed retrace lists no commands"; exit 1; }
out=$(LUA_PATH="$prefix/share/retrace/lua/?.lua;$prefix/share/retrace/lua/?/init.lua;;" \
      LUA_CPATH="$prefix/lib/retrace/lua/?.so;;" \
      "$lua" -e 'print(require("retrace").version)')
[ "$out" = "$version" ] || { echo "lua5.4 with the installed module said: $out"; exit 1; }
rm -rf "$prefix"
echo "install ok: $version"
