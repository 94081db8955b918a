-- wrk script: POST the Alertmanager body; count 202s per thread (summed in done()).
local threads = {}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open(os.getenv("BODY_FILE"), "rb"):read("*a")

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  accepted = 0
  other = 0
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
