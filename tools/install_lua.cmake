# Run by `cmake --install` (CMakeLists.txt sets RT_LUA_PREFIX, RT_LMOD, RT_CMOD, RT_LUA_V,
# RT_CORE_MODULE, RT_DATADIR): install retrace as a Lua library.
#   With the prefix of Debian's Lua (/usr): the Lua modules under INSTALL_LMOD and the C
#   module under INSTALL_CMOD (pkg-config lua5.4), where lua5.4 looks.
#   With another prefix: PREFIX/share/lua/5.4 and PREFIX/lib/lua/5.4, Lua's own layout,
#   which lua5.4 searches for /usr/local; for other prefixes PREFIX/share/retrace/env.sh
#   sets LUA_PATH, LUA_CPATH, PATH and MANPATH.
# The Lua modules stay one tree, PREFIX/share/retrace/lua/retrace (beside the scripts and
# displays they load); the Lua folder gets a link to it.
set(prefix "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/+$" "" prefix "${prefix}")
if(prefix STREQUAL RT_LUA_PREFIX)
  set(lmod "${RT_LMOD}")
  set(cmod "${RT_CMOD}")
else()
  set(lmod "${prefix}/share/lua/${RT_LUA_V}")
  set(cmod "${prefix}/lib/lua/${RT_LUA_V}")
endif()
file(INSTALL "${RT_CORE_MODULE}" DESTINATION "${cmod}/retrace")
set(tree "${prefix}/${RT_DATADIR}/retrace/lua/retrace")
file(RELATIVE_PATH rel "${lmod}" "${tree}")
file(MAKE_DIRECTORY "$ENV{DESTDIR}${lmod}")
if(IS_SYMLINK "$ENV{DESTDIR}${lmod}/retrace")
  file(REMOVE "$ENV{DESTDIR}${lmod}/retrace")
endif()
message(STATUS "Installing: $ENV{DESTDIR}${lmod}/retrace -> ${rel}")
file(CREATE_LINK "${rel}" "$ENV{DESTDIR}${lmod}/retrace" SYMBOLIC)

set(env "$ENV{DESTDIR}${prefix}/${RT_DATADIR}/retrace/env.sh")
message(STATUS "Installing: ${env}")
file(WRITE "${env}" "# retrace installed under ${prefix}: `. ${prefix}/${RT_DATADIR}/retrace/env.sh`
# puts its program, Lua modules, man pages and bash completion within reach.
export PATH=\"${prefix}/bin:\$PATH\"
export LUA_PATH=\"${lmod}/?.lua;${lmod}/?/init.lua;\${LUA_PATH:-;}\"
export LUA_CPATH=\"${cmod}/?.so;\${LUA_CPATH:-;}\"
export MANPATH=\"${prefix}/${RT_DATADIR}/man:\${MANPATH:-}\"
if [ -n \"\${BASH_VERSION:-}\" ] && command -v complete >/dev/null 2>&1; then
  . \"${prefix}/${RT_DATADIR}/bash-completion/completions/retrace\"
fi
")
