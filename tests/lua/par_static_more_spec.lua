-- par_static_spec on the MPI capture's archives and a generated archive of 256 locations
-- (a spec of its own: each spec file has a time limit).
local spec = assert(loadfile((os.getenv("RETRACE_SOURCE") or ".") .. "/tests/lua/par_static_spec.lua", "t", _ENV))
spec("more")
