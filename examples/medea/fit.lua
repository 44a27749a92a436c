-- The Lua API of retrace.medea on a folder of traces: program parameters of each
-- trace, a k-means workload model, and a least-squares law between two parameters.
-- Usage: retrace examples/medea/fit.lua DIR
local medea = require "retrace.medea"
local lfs = require "lfs"

local dir = assert(arg[1], "usage: fit.lua DIR")
local comps = {}
local names = {}
for f in lfs.dir(dir) do
  if f:match("^pstswm%.") then names[#names + 1] = f end
end
table.sort(names)
for _, f in ipairs(names) do
  local c = assert(medea.parameters(dir .. "/" .. f, "program"))
  comps[#comps + 1] = c[1]
end

local model = assert(medea.characterize(comps, { "extime", "cmtime" }, { kmax = 6, k = 4, seed = 1 }))
-- not the clustering `retrace medea DIR` prints: two parameters only, and K given
print(string.format("workload model of %d program runs on extime and cmtime only, K = 4 given "
  .. "(the Lua API; `retrace medea` clusters on its default parameters):", #comps))
for _, n in ipairs(model.notes) do print("  note: " .. n) end
for h, row in ipairs(model.table) do
  print(string.format("cluster %d: %4.1f%%  extime %.5f +- %.5f  cmtime %.5f +- %.5f", h, 100 * row.share,
    row.mean.extime, row.std.extime, row.mean.cmtime, row.std.cmtime))
end

local xs, ys = {}, {}
for i, c in ipairs(comps) do xs[i], ys[i] = c.params.cmtime, c.params.extime end
local fit = assert(medea.fit(xs, ys, "linear"))
print(string.format("extime against cmtime: %s, R^2 = %.4f", medea.fit_module.formula(fit), fit.r2))
