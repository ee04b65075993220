-- Shared by the wrk scripts of bench/http.sh and bench/memory.sh: one
-- machine-readable line at the end of a run.
function report(summary, latency)
   local s = summary.errors
   io.write(string.format(
      "WRK requests=%d duration_us=%d rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
      "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d bytes=%d\n",
      summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
      s.connect, s.read, s.write, s.status, s.timeout, summary.bytes))
end
