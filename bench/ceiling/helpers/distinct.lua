-- wrk script: GET /api/v1/ip/ADDR for COUNT distinct public addresses
-- (alternately IPv4, spread over the whole space by a multiplicative
-- permutation, and IPv6 in 2a00::/12), then stop. Runs with different START
-- values at least COUNT apart ask disjoint sets of addresses. Run with one
-- thread (-t1) so that no address repeats.
-- Creates MARKER_FILE when done.
--   wrk -t1 -c8 -d600s -s distinct.lua URL -- START COUNT MARKER_FILE
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "report.lua")

local function public_v4(x)
   local a = math.floor(x / 16777216)
   local b = math.floor(x / 65536) % 256
   local c = math.floor(x / 256) % 256
   if a == 0 or a == 10 or a == 127 or a >= 224 then return false end
   if a == 100 and b >= 64 and b < 128 then return false end
   if a == 169 and b == 254 then return false end
   if a == 172 and b >= 16 and b < 32 then return false end
   if a == 192 and b == 168 then return false end
   if a == 192 and b == 0 and (c == 0 or c == 2) then return false end
   if a == 192 and b == 88 and c == 99 then return false end
   if a == 198 and (b == 18 or b == 19) then return false end
   if a == 198 and b == 51 and c == 100 then return false end
   if a == 203 and b == 0 and c == 113 then return false end
   return true
end

-- n * 2654435761 mod 2^32, exact in doubles (2654435761 = 40503 * 65536 + 31153;
-- odd, so a bijection on 32-bit n).
local function permute(n)
   return (n * 31153 + ((n * 40503) % 65536) * 65536) % 4294967296
end

function init(args)
   start = tonumber(args[1] or "0")
   count = tonumber(args[2] or "1000000")
   marker = args[3]
   k, v4, v6 = 0, start, start
   answered = 0
end

function request()
   local path
   if k % 2 == 0 then
      local x
      repeat
         x = permute(v4)
         v4 = v4 + 1
      until public_v4(x)
      path = string.format("/api/v1/ip/%d.%d.%d.%d", math.floor(x / 16777216),
         math.floor(x / 65536) % 256, math.floor(x / 256) % 256, x % 256)
   else
      local j = v6
      v6 = v6 + 1
      path = string.format("/api/v1/ip/2a0%x:%x:%x:%x::1", j % 16,
         math.floor(j / 16) % 65536, math.floor(j / 1048576) % 65536, (j * 40503) % 65536)
   end
   k = k + 1
   return wrk.format("GET", path)
end

function response(status, headers, body)
   answered = answered + 1
   if answered == count then
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
