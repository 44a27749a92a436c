#!/bin/sh
# Install into a fresh prefix as `make install PREFIX=...` does, then, from another folder and
# with nothing but PATH (and the install's env.sh) set: run the installed program on a shipped
# example, load the library in the system lua5.4, read a man page, complete with bash.
# usage: install_test.sh CMAKE BUILD_DIR PREFIX LUA54 VERSION
set -eu
cmake=$1 build=$2 prefix=$3 lua=$4 version=$5
fail() { echo "install test: $*"; exit 1; }
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
cd /
# the program finds its files from where it is
out=$(env -i PATH=/usr/bin:/bin "$prefix/bin/retrace" -e 'print(retrace.version, retrace.root)')
[ "$out" = "$(printf '%s\t%s' "$version" "$prefix/share/retrace")" ] || fail "installed retrace said: $out"
"$prefix/bin/retrace" help | grep -q '^  info ' || fail "installed retrace lists no commands"

# a user's shell: PATH and the lines of env.sh (a prefix outside Lua's own folders)
home=$prefix/home
mkdir -p "$home"
user() { env -i HOME="$home" PATH=/usr/bin:/bin sh -c ". '$prefix/share/retrace/env.sh' && cd '$home' && $1"; }
out=$(user "retrace info '$prefix/share/retrace/examples/picl/ring4.trf'")
echo "$out" | grep -q '4 processors, 80 records' || fail "retrace info on the shipped ring4.trf said: $out"
out=$(user "$lua -e 'local r = require \"retrace\"; print(r.version, r.root, r.colors.hex(\"red\"))'")
[ "$out" = "$(printf '%s\t%s\t%s' "$version" "$prefix/share/retrace" "#ff0000")" ] ||
  fail "lua5.4 with the installed library said: $out"
# the C module and Lua modules are where env.sh says (Lua's layout under the prefix)
[ -f "$prefix/lib/lua/5.4/retrace/core.so" ] || fail "no $prefix/lib/lua/5.4/retrace/core.so"
[ -f "$prefix/share/lua/5.4/retrace/init.lua" ] || fail "no $prefix/share/lua/5.4/retrace/init.lua"

# a man page per command, generated from its help
for c in $("$prefix/bin/retrace" help | sed -n 's/^  \([a-z][a-z0-9_-]*\) .*/\1/p'); do
  [ -f "$prefix/share/man/man1/retrace-$c.1" ] || fail "no man page for $c"
done
if command -v man >/dev/null 2>&1; then
  out=$(MANWIDTH=200 man -l "$prefix/share/man/man1/retrace-stats.1" 2>&1)
  echo "$out" | grep -q '^NAME' || fail "man -l retrace-stats.1 said: $out"
  echo "$out" | grep -q -- '--from <from>' || fail "man page of stats lacks --from: $out"
  out=$(user "MANWIDTH=200 man retrace-picl 2>&1")
  echo "$out" | grep -q 'RETRACE PICL DUMP' || fail "man retrace-picl (MANPATH of env.sh) said: $out"
else
  echo "install test: man is not installed (make deps installs man-db): man pages not read"
fi

# bash completion: commands, a command's options, an option's choices, a subcommand's options
comp=$prefix/share/bash-completion/completions/retrace
complete_words() { bash -c ". '$comp'; COMP_WORDS=($1); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _retrace; echo \"\${COMPREPLY[*]}\""; }
out=$(complete_words "retrace st")
[ "$out" = "stats" ] || fail "completing 'retrace st' gave: $out"
out=$(complete_words "retrace stats --fr")
[ "$out" = "--from" ] || fail "completing 'retrace stats --fr' gave: $out"
out=$(complete_words "retrace picl dump --format ''")
[ "$out" = "old new" ] || fail "completing 'retrace picl dump --format' gave: $out"
out=$(complete_words "retrace picl d")
[ "$out" = "dump" ] || fail "completing 'retrace picl d' gave: $out"
rm -rf "$prefix"
echo "install ok: $version"
