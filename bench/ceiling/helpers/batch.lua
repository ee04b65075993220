-- wrk script: POST /api/v1/ip with batches of SIZE addresses from a list
-- file (consecutive slices, JSON arrays, in turn), asking for ACCEPT.
--   wrk ... -s batch.lua URL -- ADDRESS_FILE SIZE [ACCEPT]
-- Ends with one "WRK ..." line (report.lua): requests are batches.
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "report.lua")

local next_id = 0
function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
end

function init(args)
   local addrs = {}
   for line in io.lines(args[1]) do
      if #line > 0 then addrs[#addrs + 1] = '"' .. line .. '"' end
   end
   local size = tonumber(args[2])
   local headers = {["Content-Type"] = "application/json", ["Accept"] = args[3] or "application/json"}
   bodies = {}
   for first = 1, #addrs - size + 1, size do
      local body = "[" .. table.concat(addrs, ",", first, first + size - 1) .. "]"
      bodies[#bodies + 1] = wrk.format("POST", "/api/v1/ip", headers, body)
   end
   sent = (id or 0) * 7
end

function request()
   sent = sent + 1
   return bodies[(sent - 1) % #bodies + 1]
end

function done(summary, latency, requests)
   report(summary, latency)
end
