-- retrace paragraph's task displays on a Paraver trace written here: the
-- "Running" state (Paraver's useful time, region -2: a user region) is the task
-- the displays show, named as Paraver names it, with the values worked out by hand.
local h = require "helpers"
local cjson = require "cjson"

-- Two threads (tasks 1 and 2 of one application), times in ns over 0 .. 100:
--   thread A: Running 0-40, Idle 40-100
--   thread B: Idle 0-10, Running 10-30, Idle 30-100
-- Task "Running": first start 0, last end 40 (40 % of the run); processor-time 40 + 20 = 60 ns,
-- so 60 / 40 = 1.5 processors in it on average.
local prv = table.concat({
  "#Paraver (01/01/20 at 10:00):100_ns:1(2):1:2(1:1,1:1),1",
  "c:1:1:2:1:2",
  "1:1:1:1:1:0:40:1",
  "1:2:1:2:1:0:10:0",
  "1:2:1:2:1:10:30:1",
  "1:2:1:2:1:30:100:0",
  "1:1:1:1:1:40:100:0",
}, "\n") .. "\n"

describe("paragraph's task displays on Paraver", function()
  it("show the Running state as the task, named, with its hand-computed span and mean", function()
    local dir = h.temp_dir()
    local trace = h.paraver(dir, prv, "STATES\n0    Idle\n1    Running\n3    Waiting a message\n") -- with the state names beside it
    local out = h.temp_dir()
    local code, stdout, err = h.retrace("paragraph", trace, "-o", out, "--group", "task", "--json",
      "--unit", "ns", "--pace", "time:10", "--scale-width", "100")
    assert.are.equal(0, code, err)
    local s = cjson.decode(stdout)
    local d = s.displays
    -- one task only (no stray id): region -2, the Running state
    assert.are.equal(1, #d.task_status.tasks)
    local st = d.task_status.tasks[1]
    assert.are.same({ -2, "Running", "done" }, { st.id, st.name, st.status })
    local sm = d.task_summary.tasks
    assert.are.equal(1, #sm)
    assert.are.equal(-2, sm[1].id)
    assert.is_true(math.abs(sm[1].start - 0) < 1e-15 and math.abs(sm[1]["end"] - 40e-9) < 1e-15)
    assert.is_true(math.abs(sm[1].percent - 40) < 1e-9)
    local cnt = d.task_count.tasks
    assert.are.equal(1, #cnt)
    assert.is_true(math.abs(cnt[1].mean_processors - 1.5) < 1e-9, tostring(cnt[1].mean_processors))
    -- the task Gantt chart's legend names it
    assert.are.same({ "Running", cnt and d.task_gantt.legend.items[1][2] }, d.task_gantt.legend.items[1])
    h.remove_tree(out)
    h.remove_tree(dir)
  end)
end)
