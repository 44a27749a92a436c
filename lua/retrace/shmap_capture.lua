--- SHMAP traces of real programs: a program's CBLAS calls recorded at the block
-- level (libretrace_blas.so preloaded), and a `retrace capture` folder's data
-- references turned into element accesses (retrace.shmap_capture.from_capture).
--
--   local sc = require "retrace.shmap_capture"
--   local res = assert(sc.run_blas{ argv = {"./lu", "512"}, out = "lu.shm" })  -- {exit_code, trace}
local M = {}

--- Where libretrace_blas.so is: $RETRACE_BLAS_LIB, else beside libretrace_alloc.so.
function M.blas_lib()
  local env = os.getenv("RETRACE_BLAS_LIB")
  if env and env ~= "" then return env end
  local alloc = require("retrace.capture").alloc_lib()
  if not alloc then return nil end
  local p = alloc:gsub("libretrace_alloc%.so$", "libretrace_blas.so")
  local f = io.open(p, "rb")
  if f then f:close(); return p end
end

local function absolute(p)
  if p:sub(1, 1) == "/" then return p end
  local lfs = require "lfs"
  return lfs.currentdir() .. "/" .. p
end

--- Run opts.argv (the program and its arguments, no shell) with its CBLAS calls
-- recorded into the SHMAP trace opts.out. Returns {exit_code, trace}, or nil, a
-- message and an exit status (1: the program could not run or left no trace).
function M.run_blas(opts)
  local lib = M.blas_lib()
  if not lib then return nil, "libretrace_blas.so not found (set RETRACE_BLAS_LIB)", 1 end
  local out = absolute(opts.out)
  os.remove(out)
  local pre = os.getenv("LD_PRELOAD")
  local argv = { "env", "LD_PRELOAD=" .. absolute(lib) .. ((pre and pre ~= "") and (":" .. pre) or ""),
                 "RETRACE_BLAS_TRACE=" .. out }
  for _, a in ipairs(opts.argv) do argv[#argv + 1] = a end
  local code, err = require("retrace.core").frames.run(argv)
  if not code then return nil, err, 1 end
  if code == 127 then return nil, opts.argv[1] .. ": no such program", 1 end
  local f = io.open(out, "r")
  if not f then
    return nil, string.format("%s: no trace written: %s made no double-precision CBLAS call, or did not end " ..
      "normally (exit status %d)", out, opts.argv[1], code), 1
  end
  f:close()
  return { exit_code = code, trace = out }
end

--- Parse shape hints "NAME=RxC[,col|,row]" (a list of such strings): a list of
-- {name, rows, cols, col}, or nil and a message naming the bad hint.
function M.parse_shapes(list)
  local out = {}
  for _, s in ipairs(list or {}) do
    local name, r, c, rest = s:match("^(.+)=(%d+)[xX](%d+)(.*)$")
    local col = false
    if rest == ",col" then col = true elseif rest ~= "" and rest ~= ",row" then name = nil end
    r, c = math.tointeger(tonumber(r)), math.tointeger(tonumber(c))
    if not name or not r or not c or r < 1 or c < 1 or r > (1 << 30) or c > (1 << 30) then
      return nil, string.format("'%s' is not NAME=ROWSxCOLS[,col|,row] (the bin's name as memspy shows it)", s)
    end
    out[#out + 1] = { name = name, rows = r, cols = c, col = col }
  end
  return out
end

-- The program's ELF file: the first object of the capture's load map.
local function program_of(dir)
  local f = io.open(dir .. "/loadmap")
  if not f then return nil end
  local first = f:read("l")
  f:close()
  return first and first:match("^%x+%s+%x+%s+%x+%s+(.+)$")
end

--- Turn the capture folder dir into the SHMAP trace opts.out: {matrices, left_out,
-- threads, refs, accesses, notes}, or nil and a message (an incomplete or broken
-- capture, no bin touched). opts: shapes (from parse_shapes), min_elements,
-- max_matrices, allow_incomplete.
function M.from_capture(dir, opts)
  local cap, err = require("retrace.capture").open(dir, { allow_incomplete = opts.allow_incomplete })
  if not cap then return nil, err end
  local res, cerr = require("retrace.core").shmap.from_capture {
    rtmb = cap.trace, log = cap.alloc_lines or cap.alloc, out = opts.out, program = program_of(dir), hints = opts.shapes,
    min_elements = opts.min_elements, max_matrices = opts.max_matrices }
  if not res then return nil, cerr end
  local notes, used = {}, {}
  for _, m in ipairs(res.matrices) do
    notes[#notes + 1] = string.format("%s: matrix %d is %s: %d x %d %s (%s)", dir, m.id, m.name, m.rows, m.cols,
      m.col_major and "column-major" or "row-major", m.how)
    used[m.name] = true
  end
  for _, h in ipairs(opts.shapes or {}) do
    if not used[h.name] then
      notes[#notes + 1] = string.format("%s: --shape %s: no such bin was touched (see retrace memspy %s)", dir,
        h.name, dir)
    end
  end
  if res.left_out > 0 then
    notes[#notes + 1] = string.format("%s: %d smaller or less used bins left out", dir, res.left_out)
  end
  res.notes = notes
  return res
end

return M
