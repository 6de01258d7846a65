-- wrk script: POST a different question each time (defeats the answer cache), used by http_load.sh VARY=1.
-- $WRK_KIND is "recommendations" or "ask".
--
-- Asks vary the way people's questions do: a workload word or a named model with a method and
-- precision, a budget from $150 to about $60,000, and now and then a currency, used cards, a card
-- count, a setting, hours a week, an owned card or a past date; some name cards to compare or a
-- model to fit. Of 5,000 asks about 2 % repeat an earlier text exactly (an answer-memo hit, as a
-- real user's repeated question is). $WRK_SEED picks the sequence, so a warm-up run can differ.
local workloads = {"cnn", "rnn", "transformer", "llm", "rl", "kaggle", "general"}
local words = {"cv", "rnn", "nlp", "llm", "rl", "kaggle", "learning", "deep learning", "stable diffusion", "transformers",
               "computer vision", "image classification", "speech recognition", "reinforcement learning"}
local models = {"llama 8b", "llama 13b", "llama 70b", "qwen 7b", "qwen 32b", "mistral 7b", "bert large", "gpt2", "resnet 50",
                "yolov8", "vit large", "t5 3b", "sdxl", "flux"}
local methods = {"inference", "lora", "qlora", "fine-tuning", "training", "4-bit inference", "fp16 inference"}
local extras = {"", "", "", "", " used ok", " 2 gpus", " 4 gpus", " in EUR", " in GBP", " as of 2019", " as of 2021-03",
                " as of 2023-06", " server", " beginner", " 10 hours a week", " cheapest", " for inference",
                " i have a rtx 3060", " desktop", " 8 gpus"}
local cards = {"3090", "4090", "3060", "4060 ti", "a100", "h100", "7900 xtx", "5090", "a6000", "l40s", "2080 ti", "1080 ti"}
local kind = os.getenv("WRK_KIND") or "recommendations"
-- Each wrk thread has its own Lua state; unseeded, every thread would send the same sequence of
-- questions and all but the first would hit the answer memo. Seeded per thread, they differ.
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end
function init(args)
    math.randomseed(tonumber(os.getenv("WRK_SEED") or "1000") + (id or 0))
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local function pick(list)
    return list[math.random(#list)]
end

local function budget()
    local scale = pick({150, 300, 500, 800, 1200, 2000, 3500, 6000, 15000, 60000})
    return scale + math.random(0, math.floor(scale / 4))
end

local function ask_text()
    local shape = math.random(100)
    if shape <= 55 then      -- a workload and a budget: "nlp $812 used ok"
        return string.format("%s $%d%s", pick(words), budget(), pick(extras))
    elseif shape <= 80 then  -- a model, a method, a budget: "llama 70b qlora $3400 as of 2024"
        return string.format("%s %s $%d%s", pick(models), pick(methods), budget(), pick(extras))
    elseif shape <= 90 then  -- will it fit: "fit qwen 32b 4-bit"
        return string.format("fit %s %s%s", pick(models), pick({"fp16", "4-bit", "8-bit", "q4", "bf16"}), pick(extras))
    else                     -- two cards side by side: "compare 3090 4090 for llm"
        return string.format("compare %s %s for %s%s", pick(cards), pick(cards), pick(words), pick(extras))
    end
end

request = function()
    local body
    if kind == "ask" then
        body = string.format('{"text": "%s"}', ask_text())
    else
        local i = math.random(#workloads)
        body = string.format('{"workload": "%s", "budget": %d, "gpus": %d}', workloads[i], budget(), math.random(1, 4))
    end
    return wrk.format(nil, nil, nil, body)
end
