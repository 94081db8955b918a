-- wrk script: POST the Alertmanager body with a distinct alert in every request (the alertname gets
-- "<tag>-<thread>-<n>"), count 202s per thread (summed in done()). BODY_FILE: the body; TAG: a run tag.
local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  accepted = 0
  other = 0
  n = 0
  local template = io.open(os.getenv("BODY_FILE"), "rb"):read("*a")
  local marker = '"alertname":"AlwaysFiring'
  local s, e = string.find(template, marker, 1, true)
  pre = string.sub(template, 1, e) .. "-" .. (os.getenv("TAG") or "x") .. "-" .. tid .. "-"
  post = string.sub(template, e + 1)
  headers = { ["Content-Type"] = "application/json" }
end

function request()
  n = n + 1
  return wrk.format("POST", nil, headers, pre .. n .. post)
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
