-- Dining philosophers: one state component per philosopher (T, A1, A2, E, R1, R2).
-- Merge the two acquire states into A and the two release states into R, so that
-- "R1A1" and "R2A2" both read "RA". Use: retrace chitra run.pes --recipe philosophers
return {
  { "project_components", { A1 = "A", A2 = "A", R1 = "R", R2 = "R" } },
}
