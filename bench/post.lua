-- wrk script: POST the Alertmanager body, each request a distinct alert (its fingerprint made of
-- RUN_TAG, the thread and a counter, so no delivery is a duplicate of another, in this run or an
-- earlier one with another RUN_TAG); DISTINCT=0 sends the body unchanged (repeats: duplicates).
-- Counts 202s and other answers per thread (summed in done()) and prints latency percentiles.
local threads = {}
local counter = 0
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local body = io.open(os.getenv("BODY_FILE"), "rb"):read("*a")
local distinct = os.getenv("DISTINCT") ~= "0"
local tag = os.getenv("RUN_TAG") or "0000"
local _, fpStart = body:find('"fingerprint":"', 1, true)
local prefix, suffix = body, ""
if fpStart then
  prefix = body:sub(1, fpStart)
  local close = body:find('"', fpStart + 1, true)
  suffix = body:sub(close)
else
  distinct = false
end
wrk.body = body

function setup(thread)
  n = n + 1
  thread:set("tid", n)
  table.insert(threads, thread)
end

function init(args)
  accepted = 0
  other = 0
end

function request()
  if not distinct then return wrk.format() end
  counter = counter + 1
  return wrk.format(nil, nil, nil, prefix .. string.format("%s%02x%010x", tag, tid, counter) .. suffix)
end

function response(status, headers, body)
  if status == 202 then accepted = accepted + 1 else other = other + 1 end
end

function done(summary, latency, requests)
  local a, o = 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("accepted")
    o = o + t:get("other")
  end
  io.write(string.format("ACCEPTED %d OTHER %d\n", a, o))
  for _, p in ipairs({ 50, 90, 99, 99.9 }) do
    io.write(string.format("P%s %.3f\n", p, latency:percentile(p) / 1000))
  end
end
