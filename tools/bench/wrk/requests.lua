-- wrk script: cycles through the requests listed in a file (first script argument), one a line:
--   METHOD<TAB>PATH[<TAB>JSON BODY]
-- A second script argument "gzip" adds Accept-Encoding: gzip to every request.
-- Each thread starts at a different offset. done() prints one JSON line prefixed "WRKJSON".
local reqs = {}
local pos = 0
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end

function init(args)
  local f = assert(io.open(args[1], "r"))
  local gzip = args[2] == "gzip"
  for line in f:lines() do
    local m, p, b = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
    if m then
      local h = {}
      if gzip then h["Accept-Encoding"] = "gzip" end
      if b ~= nil and b ~= "" then
        h["Content-Type"] = "application/json"
        reqs[#reqs + 1] = wrk.format(m, p, h, b)
      else
        reqs[#reqs + 1] = wrk.format(m, p, h)
      end
    end
  end
  f:close()
  pos = ((tid or 1) * 7919) % #reqs
end

function request()
  pos = pos % #reqs + 1
  return reqs[pos]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON{"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,' ..
    '"p99_us":%d,"mean_us":%.1f,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.mean, latency.max))
end
