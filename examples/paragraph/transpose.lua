--- An application display for `retrace paragraph --app`: recursive matrix
-- transposition (after ParaGraph's own example). Processor p holds column p of
-- an N x N matrix; after each exchange it logs its column as a tracemark (new
-- PICL format: record type -2, the N element numbers as data; old format:
-- code 22). Element a(i, j) is numbered N i + j and coloured by the processor
-- that held it at the start (the task colours), so the blocks are seen moving between processors.
--   retrace paragraph examples/paragraph/transpose.trf -o OUT --app examples/paragraph/transpose.lua
local colors = require "retrace.colors"

local M = { id = "transpose", title = "Recursive matrix transposition" }
local D = {}
D.__index = D

function M.new(ctx)
  return setmetatable({ cols = {}, N = 0, marks = 0, time = nil }, D)
end

function D:record(rec)
  if not (rec.kind == "mark" or rec.code == 22) or not rec.data then return end
  local col = {}
  for i, v in ipairs(rec.data) do col[i] = v end
  self.cols[rec.proc] = col
  self.N = math.max(self.N, #col, rec.proc + 1)
  self.marks, self.time = self.marks + 1, rec.time
end

--- The matrix now: m[i][j] (1-based) = element number held at row i of column j, or false.
function D:matrix()
  local m = {}
  for i = 1, self.N do
    m[i] = {}
    for j = 1, self.N do m[i][j] = self.cols[j - 1] and self.cols[j - 1][i] or false end
  end
  return m
end

function D:draw(cv, rect)
  local N = math.max(self.N, 1)
  local side = math.min((rect.w - 30) / N, (rect.h - 30) / N)
  local x0, y0 = rect.x + (rect.w - N * side) / 2, rect.y + 18
  local m = self:matrix()
  local d = { matrix = m, marks = self.marks, time = self.time, cells = {} }
  for j = 1, N do
    cv:text(x0 + (j - 0.5) * side, y0 - 3, "P" .. (j - 1), { align = "center", valign = "bottom", size = 9,
      color = "black" })
  end
  for i = 1, N do
    for j = 1, N do
      local v = m[i] and m[i][j]
      local x, y = x0 + (j - 1) * side, y0 + (i - 1) * side
      local c = v and colors.task(v % N) or "#ffffff"
      cv:rect(x + 1, y + 1, side - 2, side - 2, { fill = c, stroke = "#606060", width = 1 })
      if v then
        cv:text(x + side / 2, y + side / 2, string.format("a%d%d", v // N, v % N), { align = "center",
          valign = "middle", size = math.min(11, side / 3), color = colors.contrast(c) })
      end
      d.cells[#d.cells + 1] = { row = i - 1, col = j - 1, value = v, color = c, x = x + 1, y = y + 1 }
    end
  end
  self.d = d
end

function D:data() return self.d or { matrix = self:matrix(), marks = self.marks } end

return M
