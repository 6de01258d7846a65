-- wrk script: POST a different question each time (defeats the answer cache), used by http_load.sh VARY=1.
-- $WRK_KIND is "recommendations" or "ask".
local workloads = {"cnn", "rnn", "transformer", "llm", "rl", "kaggle", "general"}
local words = {"cv", "rnn", "nlp", "llm", "rl", "kaggle", "learning"}
local kind = os.getenv("WRK_KIND") or "recommendations"
-- Each wrk thread has its own Lua state; unseeded, every thread would send the same sequence of
-- questions and all but the first would hit the answer memo. Seeded per thread, they differ.
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end
function init(args)
    math.randomseed(1000 + (id or 0))
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
    local i = math.random(#workloads)
    local budget = math.random(300, 6000)
    local body
    if kind == "ask" then
        body = string.format('{"text": "%s $%d"}', words[i], budget)
    else
        body = string.format('{"workload": "%s", "budget": %d, "gpus": %d}', workloads[i], budget, math.random(1, 4))
    end
    return wrk.format(nil, nil, nil, body)
end
