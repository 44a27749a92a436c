-- Keep the steady state of a long run: drop the first and last 100 symbols (start-up
-- and shut-down), then fold the symbols that occur fewer than 10 times into composites.
-- Use: retrace chitra run.pes --recipe steady
return {
  { "clip", 100, 100 },
  { "filter_event", 10 },
}
