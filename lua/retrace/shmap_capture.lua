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
    return nil, string.format("%s: no trace written (exit status %d: did the program end normally?)", out, code), 1
  end
  f:close()
  return { exit_code = code, trace = out }
end

return M
