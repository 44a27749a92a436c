--- Time view: the state against time (retrace.displays.chitra.sequence with domain "time").
--   local v = require "retrace.displays.chitra.time"
--   v.data(ses, {member =, range = {t0, t1}, shade = {...}}); v.draw(cv, d, box); v.render(ses, path, opts)
return require("retrace.displays.chitra.sequence").for_domain("time")
