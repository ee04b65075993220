-- wrk script: walk a list file once (GET PREFIX..ADDR for every line, in
-- order), then stop and create MARKER_FILE. Run with one thread (-t1) so the
-- walk is not shared.
--   wrk -t1 -c8 -d300s -s walk.lua URL -- ADDRESS_FILE MARKER_FILE [PREFIX]
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "report.lua")

function init(args)
   addrs = {}
   for line in io.lines(args[1]) do
      if #line > 0 then addrs[#addrs + 1] = line end
   end
   marker = args[2]
   prefix = args[3] or "/api/v1/ip/"
   sent, answered = 0, 0
end

function request()
   sent = sent + 1
   return wrk.format("GET", prefix .. addrs[(sent - 1) % #addrs + 1])
end

function response(status, headers, body)
   answered = answered + 1
   if answered == #addrs then
      -- wrk sleeps for its whole -d even when every thread has stopped: the
      -- caller waits for this file, then ends that sleep with SIGINT (wrk
      -- then reports as usual).
      wrk.thread:stop()
      if marker then io.open(marker, "w"):close() end
   end
end

function done(summary, latency, requests)
   report(summary, latency)
end
