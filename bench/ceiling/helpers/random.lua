-- wrk script: GET PREFIX..ADDR with ADDR drawn at random from a list file.
--   wrk ... -s random.lua URL -- ADDRESS_FILE [PREFIX [ACCEPT_ENCODING [NAME]]]
-- (PREFIX defaults to /api/v1/ip/; ACCEPT_ENCODING, when given and not
-- empty, is sent as that header, or under NAME: the control that costs the
-- same bytes without asking for an encoding). Ends with one "WRK ..." line (report.lua).
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "report.lua")

local next_id = 0
function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
end

function init(args)
   addrs = {}
   for line in io.lines(args[1]) do
      if #line > 0 then addrs[#addrs + 1] = line end
   end
   prefix = args[2] or "/api/v1/ip/"
   headers = {}
   if args[3] and #args[3] > 0 then headers[args[4] or "Accept-Encoding"] = args[3] end
   math.randomseed(4242 + 7919 * (id or 0))
end

function request()
   return wrk.format("GET", prefix .. addrs[math.random(#addrs)], headers)
end

function done(summary, latency, requests)
   report(summary, latency)
end
