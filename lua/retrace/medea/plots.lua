--- retrace.medea.plots: the pictures of `retrace medea --plots DIR`, each PNG
-- written with a JSON file of the numbers it shows:
--   scatter_X_Y.png   components on parameters X and Y, coloured by cluster
--                     (every pair of the chosen parameters, at most 10 pairs)
--   profiles_TRACE.png  execution, computation, communication, receive,
--                     transmit and I/O profiles of each trace
--   signature_PROGRAM.png  execution time against processors with T(p) = a + b/p
--   speedup_PROGRAM.png    speedup, efficiency and efficacy against processors
--   fit_Y_X.png       a fitted law of parameter Y against parameter X (--fit)
local M = {}

local function write_json(path, v)
  return require("retrace.fs").write_file(path, require("cjson").encode(v) .. "\n")
end

local function safe(name)
  return (tostring(name):gsub("[^%w%._%-]", "_"))
end

local function mkdir(dir)
  local lfs = require "lfs"
  local mode = lfs.attributes(dir, "mode")
  if mode == "directory" then return true end
  if mode then return nil, dir .. ": not a directory" end
  local ok, err = lfs.mkdir(dir)
  if not ok then return nil, dir .. ": " .. tostring(err) end
  return true
end

-- Draw with display `mod` on a w x h image, write PNG and JSON; true or nil, message.
local function picture(dir, base, w, h, draw)
  local canvas = require "retrace.canvas"
  local cv = canvas.image(w, h, "white")
  local data = draw(cv)
  local ok, err = cv:write_png(dir .. "/" .. base .. ".png")
  if not ok then return nil, err end
  return write_json(dir .. "/" .. base .. ".json", data)
end

M.profile_names = { { "exec", "executing" }, { "comp", "computing" }, { "comm", "communicating" },
                    { "recv", "receiving" }, { "send", "transmitting" }, { "io", "doing I/O" } }

function M.write_all(dir, comps, res, profiles, scaling, fits)
  require "retrace"
  local ok, err = mkdir(dir)
  if not ok then return nil, err end
  local scatter = require "retrace.displays.medea.scatter"
  local names = res.params
  local npairs = 0
  for i = 1, #names do
    for j = i + 1, #names do
      if npairs < 10 then
        npairs = npairs + 1
        local xs, ys, labels = {}, {}, {}
        for c, comp in ipairs(comps) do
          xs[c], ys[c], labels[c] = comp.params[names[i]], comp.params[names[j]], comp.name
        end
        ok, err = picture(dir, "scatter_" .. names[i] .. "_" .. names[j], 800, 600, function(cv)
          return scatter.draw(cv, { x = 0, y = 0, w = 800, h = 600 }, { xs = xs, ys = ys,
            clusters = res.assign, names = labels, xlabel = names[i], ylabel = names[j],
            title = names[i] .. " - " .. names[j] .. " (K = " .. res.k .. ")" })
        end)
        if not ok then return nil, err end
      end
    end
  end
  if #names == 1 then
    local xs, ys = {}, {}
    for c, comp in ipairs(comps) do xs[c], ys[c] = c, comp.params[names[1]] end
    ok, err = picture(dir, "scatter_" .. names[1], 800, 600, function(cv)
      return scatter.draw(cv, { x = 0, y = 0, w = 800, h = 600 }, { xs = xs, ys = ys, clusters = res.assign,
        xlabel = "component", ylabel = names[1] })
    end)
    if not ok then return nil, err end
  end
  local profile = require "retrace.displays.medea.profile"
  for _, p in ipairs(profiles or {}) do
    local base = "profiles_" .. safe(require("retrace.medea").basename(p.trace))
    ok, err = picture(dir, base, 900, 6 * 200, function(cv)
      local data = {}
      local nprocs = 0
      local ex = p.profiles.exec
      for _, c in ipairs(ex.counts) do nprocs = math.max(nprocs, c) end
      for k, pn in ipairs(M.profile_names) do
        local pr = p.profiles[pn[1]]
        data[pn[1]] = profile.draw(cv, { x = 0, y = (k - 1) * 200, w = 900, h = 200 },
          { times = pr.times, counts = pr.counts, nprocs = nprocs, label = pn[2],
            tmin = ex.times[1], tmax = ex.times[#ex.times],
            title = k == 1 and require("retrace.medea").basename(p.trace) or nil })
      end
      return data
    end)
    if not ok then return nil, err end
  end
  local fitdisp = require "retrace.displays.medea.fit"
  local fitmod = require "retrace.medea.fit"
  for _, s in ipairs(scaling or {}) do
    local xs, ys = {}, {}
    for i, r in ipairs(s.rows) do xs[i], ys[i] = r.p, r.time end
    local f = fitmod.fit(xs, ys, "inverse")
    if f then
      ok, err = picture(dir, "signature_" .. safe(s.program), 800, 600, function(cv)
        local d = fitdisp.draw(cv, { x = 0, y = 0, w = 800, h = 600 }, { xs = xs, ys = ys, fit = f,
          xlabel = "processors", ylabel = "execution time (s)", title = s.program .. ": T(p) = a + b/p" })
        d.rows = s.rows
        return d
      end)
      if not ok then return nil, err end
    end
    local speedup = require "retrace.displays.medea.speedup"
    ok, err = picture(dir, "speedup_" .. safe(s.program), 800, 600, function(cv)
      return speedup.draw(cv, { x = 0, y = 0, w = 800, h = 600 }, { rows = s.rows, title = s.program })
    end)
    if not ok then return nil, err end
  end
  for _, fr in ipairs(fits or {}) do
    ok, err = picture(dir, "fit_" .. fr.y .. "_" .. fr.x, 800, 600, function(cv)
      return fitdisp.draw(cv, { x = 0, y = 0, w = 800, h = 600 }, { xs = fr.xs, ys = fr.ys, fit = fr.fit,
        xlabel = fr.x, ylabel = fr.y, title = fr.y .. " against " .. fr.x .. " (" .. fr.fit.model .. ")" })
    end)
    if not ok then return nil, err end
  end
  return true
end

return M
