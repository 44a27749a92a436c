#!/bin/sh
# The Lua API reference builds from the --- comments (lua-ldoc, as `make docs` runs it):
# one page per module of lua/retrace, and ldoc says nothing but "contains no items"
# (modules that document no function of their own, such as the policies). Chitra recipes
# are data, not modules.
#   sh tests/doc/api_test.sh SOURCE OUT
src=$1 out=$2
if ! command -v ldoc >/dev/null 2>&1; then echo "lua-ldoc not installed: skipped"; exit 77; fi
rm -rf "$out"
log=$(cd "$src/lua" && ldoc -q -d "$out" -p retrace -t "retrace Lua API" retrace 2>&1) || { echo "$log"; exit 1; }
bad=$(printf '%s\n' "$log" | grep -v 'contains no items' | grep -v '^output written' | grep -v '^$')
[ -z "$bad" ] || { echo "ldoc: $bad"; exit 1; }
missing=0
for f in $(cd "$src/lua/retrace" && find . -name '*.lua' ! -path './chitra/recipes/*' | sed 's|^\./||'); do
  m=$(echo "$f" | sed 's|\.lua$||; s|/init$||; s|/|.|g')
  [ -f "$out/modules/$m.html" ] || { echo "no page for lua/retrace/$f ($m.html)"; missing=1; }
done
[ $missing = 0 ] || exit 1
echo "$(ls "$out/modules" | wc -l) module pages"
