-- wrk script for benches/http/service.sh: each request POSTs one document drawn at random from the lines file
-- named by the environment variable MIX (one JSON document per line) to the URL's path; at the end prints one
-- JSON line: requests, duration, req/s, latency percentiles (µs) and error counts (non-2xx answers included).
local bodies = {}

function init(args)
    local headers = { ["Content-Type"] = "application/json" }
    for line in io.lines(os.getenv("MIX")) do
        bodies[#bodies + 1] = wrk.format("POST", nil, headers, line)
    end
    math.randomseed(os.time() + tonumber(tostring(bodies):match("0x(%x+)") or "0", 16) % 1000)
end

function request()
    return bodies[math.random(#bodies)]
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        '{"requests":%d,"duration_us":%d,"rps":%.1f,"p50":%d,"p99":%d,"p999":%d,"max":%d,' ..
        '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
        summary.requests, summary.duration, summary.requests / summary.duration * 1e6,
        latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
        e.connect, e.read, e.write, e.status, e.timeout))
end
