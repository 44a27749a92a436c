--- ParaGraph whole-window views for `retrace paragraph --static`: the Gantt
-- chart or the spacetime diagram of a whole window in one picture, from a
-- raster computed in C (retrace.pgscale.raster, given as opts.raster).
-- opts.kind = "gantt" | "spacetime". Several processors share a pixel row when
-- they outnumber the rows: the row shows the state that held most of their
-- time; data().rows tells which processors each row holds. Messages are lines
-- while there are at most the raster's max_lines, else a per-pixel density
-- (how many message lines cross each cell, on a log scale of 8 levels).
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

local LEVELS = 8

-- Processor axis over the chosen positions, labelled with processor ids.
local function axis(r)
  local n = #r.sel
  local contiguous = r.sel[n] - r.sel[1] == n - 1
  local ax = { label = r.order_name and ("processor (" .. r.order_name .. " order)") or "processor",
               lo = -0.5, hi = n - 0.5 }
  if n <= 32 or not contiguous then
    ax.labels = {}
    local step = math.max(1, math.ceil(n / 16))
    for i = 0, n - 1, step do ax.labels[i] = tostring(r.sel[i + 1]) end
  elseif r.sel[1] ~= 0 then
    ax.labels = {}
    local step = math.max(1, math.ceil(n / 8))
    for i = 0, n - 1, step do ax.labels[i] = tostring(r.sel[i + 1]) end
  end
  return ax
end

--- The colour of message lines (black in gray mode).
function M.line_color() return colors.mode == "gray" and "#000000" or "#08306b" end

-- The density legend: light (few lines) to dark (many).
local function density_palette()
  if colors.mode == "gray" then return colors.ramp(LEVELS, { "#d0d0d0", "#000000" }) end
  return colors.ramp(LEVELS, { "#c6dbef", "#2171b5", "#08306b" })
end

--- The palette of state mixes in q-ths: entry nb * (q + 1) + no blends busy, overhead and
-- idle by nb, no and q - nb - no; spacetime: gray by the share not idle.
function M.mix_palette(q, spacetime)
  local c = {}
  for i, s in ipairs({ "busy", "overhead", "idle" }) do c[i] = { colors.parse(colors.state(s)) } end
  local list = {}
  for nb = 0, q do
    for no = 0, q do
      local ni = q - nb - no
      local rgb
      if ni < 0 then
        rgb = { 1, 1, 1 }
      elseif spacetime then
        local g = 1 - 0.45 * (nb + no) / q
        rgb = { g, g, g }
      else
        rgb = {}
        for k = 1, 3 do rgb[k] = (nb * c[1][k] + no * c[2][k] + ni * c[3][k]) / q end
      end
      list[#list + 1] = rgb
    end
  end
  return colors.palette(list)
end

function D:draw(cv, rect)
  local r = self.opts.raster
  local kind = self.opts.kind or "gantt"
  local n = #r.sel
  local legend
  if kind == "gantt" then
    legend = common.state_items()
  elseif r.lines then
    legend = { { "not idle", "#b0b0b0" }, { "message", M.line_color() } }
  else
    local pal = density_palette()
    legend = { { "not idle", "#b0b0b0" }, { "few messages per pixel", pal:hex(0) },
               { "many", pal:hex(LEVELS - 1) } }
  end
  local d = common.time_frame(cv, rect, r.t0, r.t1, axis(r), legend)
  local pr = d.plot
  local g = canvas.grid(r.cols, r.rows)
  g:load(r.state, 0)
  local pal
  if kind == "gantt" then
    pal = r.mix and M.mix_palette(r.mix) or common.timeline_palette()
  else
    pal = r.mix and M.mix_palette(r.mix, true) or colors.palette({ "#ffffff", "#b0b0b0", "#b0b0b0" })
  end
  d.mix = r.mix
  d.rows = {}
  local rowh = pr.h / n
  local function ypos(pos) return pr.y + (n - 1 - pos + 0.5) * rowh end
  for row = 0, r.rows - 1 do
    local first, count = r.row_first[row + 1], r.row_count[row + 1]
    local y = pr.y + (n - first - count) * rowh
    local h = count * rowh
    if kind == "spacetime" and count == 1 and h > 3 then y, h = y + h / 2 - 1, 2 end
    cv:grid(g, pal, pr.x, y, pr.w, h, { region = { 0, row, r.cols, 1 } })
    d.rows[row + 1] = { first = r.sel[first + 1], last = r.sel[first + count], count = count,
                        y = pr.y + (n - first - count) * rowh, h = count * rowh }
  end
  d.window = { r.t0, r.t1 }
  d.cols, d.nrows, d.processors = r.cols, r.rows, n
  if kind == "spacetime" then
    d.messages, d.tachyons = r.messages, r.tachyons
    cv:save()
    cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
    if r.lines then
      d.mode = "lines"
      local span = r.t1 - r.t0
      for _, l in ipairs(r:line_list()) do
        cv:line(pr.x + (l.send - r.t0) / span * pr.w, ypos(l.src_pos),
                pr.x + (l.recv - r.t0) / span * pr.w, ypos(l.dst_pos),
                { color = M.line_color(), width = 1 })
      end
      d.lines = #r.lines // 32
    else
      d.mode = "density"
      d.max_count = r.max_count
      local dg = canvas.grid(r.cols, r.rows)
      dg:load(r.density, 0)
      local dp = density_palette()
      for row = 0, r.rows - 1 do
        local first, count = r.row_first[row + 1], r.row_count[row + 1]
        cv:grid(dg, dp, pr.x, pr.y + (n - first - count) * rowh, pr.w, count * rowh,
                { region = { 0, row, r.cols, 1 } })
      end
    end
    cv:restore()
  end
  self.d = d
end

local TITLES = { gantt = "Gantt chart", spacetime = "Spacetime diagram" }
M.kinds = { "gantt", "spacetime" }

-- The views `kinds` (list of "gantt" / "spacetime") stacked in one picture: a
-- function of the raster giving the composite display (render it with
-- retrace.display). order_name: the rows follow sel in that order (e.g.
-- "Gray-code"), said on the axis and in the titles.
local function composer(kinds, sel, order_name)
  local display = require "retrace.display"
  return function(r)
    local panels = {}
    -- when processors share rows, the title says how many each row holds
    local lo, hi = math.huge, 0
    for _, n in ipairs(r.row_count) do lo, hi = math.min(lo, n), math.max(hi, n) end
    local per = hi <= 1 and "" or lo == hi and string.format(", %d per row", hi)
      or string.format(", %d or %d per row", lo, hi)
    if r.rows == 1 and r.cols == 1 then per = "" end -- the first layout, before the raster
    r.order_name = order_name
    if order_name then per = per .. ", " .. order_name .. " order" end
    for i, k in ipairs(kinds) do
      panels[i] = { title = TITLES[k] .. string.format(" (%d processors%s)", #sel, per),
                    display = M.new(nil, { raster = r, kind = k }) }
    end
    return display.compose(panels, { cols = 1, rows = #kinds, gap = 4, size = 11 })
  end
end

--- The raster a picture of W x H pixels needs: its columns and rows (a layout drawn with no data).
function M.geometry(kinds, sel, t0, t1, W, H, order_name)
  local empty = { cols = 1, rows = 1, state = string.pack("i4", -1), row_first = { 0 }, row_count = { #sel },
                  sel = sel, t0 = t0, t1 = t1, lines = "", messages = 0, tachyons = 0,
                  line_list = function() return {} end }
  local dry = composer(kinds, sel, order_name)(empty)
  dry:draw(canvas.image(W, H), { x = 0, y = 0, w = W, h = H })
  local plot = dry:data().panels[1].data.plot
  return math.max(1, math.floor(plot.w)), math.max(1, math.min(#sel, math.floor(plot.h)))
end

--- The picture of the views kinds ({"gantt", "spacetime"}) of the processors sel over
-- [t0, t1] at W x H: make_raster(cols, rows) -> r | nil, message (retrace.pgscale.raster)
-- gives the raster of M.geometry's size. Returns the composed display and r | nil, message.
function M.picture(kinds, sel, t0, t1, W, H, make_raster, order_name)
  local r, err = make_raster(M.geometry(kinds, sel, t0, t1, W, H, order_name))
  if not r then return nil, err end
  return composer(kinds, sel, order_name)(r), r
end

return M
