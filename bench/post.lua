-- wrk script: POST the Alertmanager body, each request a distinct alert. Its fingerprint is 16 hex
-- digits as Alertmanager's are (a hash of the label set: consecutive alerts' fingerprints are far
-- apart): 4 random digits, then RUN_TAG, the thread and a counter, so no delivery is a duplicate of
-- another, in this run or an earlier one with another RUN_TAG. FINGERPRINTS=sequential drops the
-- random digits and keeps the file's startsAt (what the bench sent before 2026-11-25; a database's
-- index then takes every new fingerprint at one place). Otherwise startsAt is the time of sending,
-- as for alerts that start firing as they arrive. DISTINCT=0 sends the body unchanged (repeats: duplicates).
-- Counts 202s and other answers per thread (summed in done()) and prints latency percentiles.
local threads = {}
local counter = 0
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local body = io.open(os.getenv("BODY_FILE"), "rb"):read("*a")
local distinct = os.getenv("DISTINCT") ~= "0"
local tag = os.getenv("RUN_TAG") or "0000"
local sequential = os.getenv("FINGERPRINTS") == "sequential"
-- The body is cut around its alert's startsAt and fingerprint (in that order in the file).
local _, saStart = body:find('"startsAt":"', 1, true)
local _, fpStart = body:find('"fingerprint":"', 1, true)
local head, fileStartsAt, middle, suffix = body, "", "", ""
if saStart and fpStart and saStart < fpStart then
  head = body:sub(1, saStart)
  local saClose = body:find('"', saStart + 1, true)
  fileStartsAt = body:sub(saStart + 1, saClose - 1)
  middle = body:sub(saClose, fpStart)
  local fpClose = body:find('"', fpStart + 1, true)
  suffix = body:sub(fpClose)
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
  math.randomseed(os.time() * 100 + tid)
end

function request()
  if not distinct then return wrk.format() end
  counter = counter + 1
  local fp, startsAt
  if sequential then
    fp = string.format("%s%02x%010x", tag, tid, counter)
    startsAt = fileStartsAt
  else
    fp = string.format("%04x%s%02x%06x", math.random(0, 65535), tag, tid, counter % 16777216)
    -- Alerts that start as they are sent (the milliseconds stand in for the order within a second).
    startsAt = os.date("!%Y-%m-%dT%H:%M:%S", os.time()) .. string.format(".%03dZ", counter % 1000)
  end
  return wrk.format(nil, nil, nil, head .. startsAt .. middle .. fp .. suffix)
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
