-- retrace capture [-o DIR] [--lackey [--threads] [--keep-text]] -- PROGRAM ARGS...: run a
-- program under the retrace Valgrind tool (or lackey with the allocation interposer); write a
-- capture folder for memspy and cache.
-- retrace capture --mpi [-o ARCHIVE] -- mpirun -np 4 PROGRAM ARGS...: run an MPI program
-- with libretrace-mpi preloaded into its ranks; write an OTF2 archive folder.
local cli = require "retrace.cli"
local capture = require "retrace.capture"

local count = cli.count

return {
  summary = "run a program under valgrind and keep its memory trace and allocations " ..
    "(--mpi: trace an MPI program's messages to OTF2)",
  description = "Writes DIR/trace.rtmb (the memory trace, converted as it streams), " ..
    "DIR/alloc.msp (allocations and symbols), loadmap, cmdline and status. " ..
    "Read the folder with 'retrace memspy DIR' or 'retrace cache DIR'. Needs valgrind. " ..
    "With --mpi the command is an MPI launch (mpirun -np N PROGRAM ...): each rank runs with " ..
    "libretrace-mpi and the archive folder (default PROGRAM.otf2) is read by 'retrace stats', " ..
    "'paragraph', 'medea' and 'chitra'.",
  parser = function(p)
    p:option("-o --output", "capture folder (default: PROGRAM.capture; with --mpi PROGRAM.otf2)")
    p:flag("--mpi", "trace an MPI program's calls and messages (libretrace-mpi, OTF2)")
    p:flag("--lackey", "use valgrind's lackey and the LD_PRELOAD interposer instead of the retrace tool " ..
      "(the interposer's own references are then in the trace)")
    p:flag("--threads", "one processor per thread (always so with the retrace tool; lackey: from its scheduler lines)")
    p:flag("--keep-text", "with --lackey: keep lackey's whole text log too (DIR/trace.lackey)")
    p:argument("command", "the program and its arguments (after --)"):args("+")
  end,
  run = function(args)
    local argv = args.command
    if args.mpi then
      if args.threads or args.keep_text or args.lackey then
        cli.usage_error("--mpi: --lackey, --threads and --keep-text are for memory captures")
      end
      local dir = args.output or capture.mpi_default_output(argv)
      local res, err, code = capture.run_mpi{ dir = dir, argv = argv }
      if not res then
        io.stderr:write("retrace: capture: ", err, "\n")
        return code
      end
      io.stdout:write(string.format("%s: %d ranks, %s events, %s\n", res.anchor, res.ranks, count(res.events),
        res.complete and "complete" or ("incomplete: " .. res.why)))
      if not res.complete then
        io.stderr:write("retrace: capture: ", argv[1], ": ", res.why, " (archive kept, marked incomplete)\n")
        return 1
      end
      return 0
    end
    local dir = args.output or (argv[1]:gsub("^.*/", "") .. ".capture")
    local lackey = args.lackey or not capture.vgtool_dir()
    if args.keep_text and not lackey then
      cli.usage_error("--keep-text goes with --lackey (the retrace tool writes no text log)")
    end
    local res, err, code = capture.run{ dir = dir, argv = argv, threads = args.threads, lackey = args.lackey,
      keep_text = args.keep_text, valgrind = os.getenv("RETRACE_VALGRIND") }
    if not res then
      io.stderr:write("retrace: capture: ", err, "\n")
      return code
    end
    io.stdout:write(string.format("%s: %s data references (%s instructions), %s allocation records, %s\n",
      dir, count(res.refs), count(res.ifetches), count(res.allocs),
      res.complete and "complete" or ("incomplete: " .. res.why)))
    if (args.threads or res.tool == "retrace") and (res.threads or 0) > 1 then
      io.stdout:write(("note: %d threads; valgrind runs one thread at a time in long slices, so sharing " ..
        "(invalidation) misses are understated (memspy --interleave N approximates a parallel run)\n"):format(res.threads))
    end
    if not res.complete then
      io.stderr:write("retrace: capture: ", argv[1], ": ", res.why, " (trace kept, marked incomplete)\n")
      return 1
    end
    return 0
  end,
}
