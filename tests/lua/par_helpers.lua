-- Shared by par_medea_spec and par_static_spec: the traces whose results under mpirun are
-- compared with the serial run's, and the ranks.
local h = require "helpers"

local M = {}

M.RANKS = { 1, 2, 3, 4 }

local generated -- the 256-location archive (bench's gen_otf2_mpi), made once per spec run

--- The traces of a group: "samples" the shared samples present; "more" the MPI capture's
-- archives (tests/fixtures/mpi) and a generated archive of 256 locations when
-- build/bench/gen_otf2_mpi exists (second result false when it is missing).
function M.traces(group)
  local list = {}
  if group == "samples" then
    for _, rel in ipairs({ "picl/fft-16.trf", "picl/mpicl-8a.trf", "picl/mpicl-10.trf", "paraver/qsort_beo3.prv",
                           "paje/ms.trace", "paje/simu-mardi.trace", "paje/g5k.trace",
                           "otf2/pingpong/traces.otf2" }) do
      local p = h.shared .. "/" .. rel
      local f = io.open(p)
      if f then f:close(); list[#list + 1] = p end
    end
    return list, true
  end
  list[#list + 1] = h.fixtures .. "/mpi/halo2.otf2/traces.otf2"
  list[#list + 1] = h.fixtures .. "/mpi/abort2.otf2/traces.otf2"
  if generated == nil then
    generated = false
    local bin = h.bin:gsub("retrace$", "") .. "bench/gen_otf2_mpi"
    local f = io.open(bin)
    if f then
      f:close()
      local d = h.temp_dir() .. "/a256"
      if os.execute(h.quote(bin) .. " " .. h.quote(d) .. " 256 40000 7 >/dev/null") then
        generated = d .. "/traces.otf2"
      end
    end
  end
  if generated then list[#list + 1] = generated end
  return list, generated and true or false
end

return M
