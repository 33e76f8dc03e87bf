-- wrk script for benches/http/auction_cpu.sh: the benchmark auction's requests (files written by
-- `auction_multipart write DIR`, the directory named by the environment variable FILES), by KIND: `auction`, the
-- one multipart POST to /validate/auction; `decode` and `validate`, the five responses (or envelopes) POSTed to
-- /decode or /validate in turn. Query `?view=summary`. At the end prints one JSON line: requests, duration and
-- the count of non-2xx answers and errors.
local requests = {}
local next_one = 0

local function read(name)
    local f = assert(io.open(os.getenv("FILES") .. "/" .. name, "rb"))
    local s = f:read("*a")
    f:close()
    return s
end

function init(args)
    local kind = os.getenv("KIND")
    if kind == "auction" then
        local boundary = read("boundary.txt"):gsub("%s+$", "")
        local headers = { ["Content-Type"] = "multipart/form-data; boundary=" .. boundary }
        requests[1] = wrk.format("POST", "/validate/auction?view=summary", headers, read("auction.multipart"))
    else
        local name = kind == "decode" and "response-%d.json" or "envelope-%d.json"
        local headers = { ["Content-Type"] = "application/json" }
        for k = 0, 4 do
            requests[k + 1] = wrk.format("POST", "/" .. kind .. "?view=summary", headers, read(name:format(k)))
        end
    end
end

function request()
    next_one = next_one % #requests + 1
    return requests[next_one]
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format('{"requests":%d,"duration_us":%d,"errors":%d}\n', summary.requests, summary.duration,
        e.connect + e.read + e.write + e.status + e.timeout))
end
