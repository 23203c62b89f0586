-- wrk script for writes: like requests.lua (cycles through METHOD<TAB>PATH[<TAB>JSON BODY] lines
-- of the file named by the first script argument), with `Authorization: Bearer <second argument>`.
-- Paced when a third argument is given: each connection then waits that many ms between its
-- requests (so C connections write at most C * 1000 / ms requests a second); without it, no
-- delay() is defined and wrk sends each request as soon as the last is answered.
-- Counts answers by status class; done() prints one JSON line prefixed "WRKJSON".
local reqs = {}
local pos = 0
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

function init(args)
  local f = assert(io.open(args[1], "r"))
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. args[2] }
  for line in f:lines() do
    local m, p, b = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
    if m then reqs[#reqs + 1] = wrk.format(m, p, headers, b) end
  end
  f:close()
  -- wrk looks for a global delay() after init() has run, so defining it here makes it optional.
  if args[3] then
    local pause = assert(tonumber(args[3]), "the third argument is the pause in ms")
    delay = function() return pause end
  end
  -- Threads take disjoint halves of the file, so no request repeats within a run.
  local per = math.floor(#reqs / 2)
  pos = ((tid or 1) - 1) * per
  ok = 0
end

function request()
  pos = pos % #reqs + 1
  return reqs[pos]
end

function response(status, headers, body)
  if status >= 200 and status < 300 then ok = ok + 1 end
end

function done(summary, latency, requests)
  local oks = 0
  for _, t in ipairs(threads) do oks = oks + (t:get("ok") or 0) end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON{"requests":%d,"ok":%d,"duration_us":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, oks, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
