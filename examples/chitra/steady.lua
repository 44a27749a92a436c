-- A recipe for the simulated dining philosophers runs: drop the start-up transient,
-- merge the two acquire and the two release states of every philosopher (A1, A2 -> A;
-- R1, R2 -> R), then fold the rare states (fewer than 100 occurrences over the
-- ensemble) into composites, leaving the steady cycle.
--   retrace chitra phil4_x100.pes --recipe examples/chitra/steady.lua
return {
  { "clip", 50, 0 },
  { "project_components", { A1 = "A", A2 = "A", R1 = "R", R2 = "R" } },
  { "filter_event", 100 },
}
