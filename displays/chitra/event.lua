--- Event view: the state against event number (retrace.displays.chitra.sequence with
-- domain "event").
--   local v = require "retrace.displays.chitra.event"
--   v.data(ses, {member =, range = {e0, e1}, shade = {...}}); v.draw(cv, d, box); v.render(ses, path, opts)
return require("retrace.displays.chitra.sequence").for_domain("event")
