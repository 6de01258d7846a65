"""Property: no input makes the API fail with a 500; every refusal is a schema-valid problem+json (OpenAI's
error shape on the OpenAI-compatible routes)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.inputs import schema, schema_errors
from service.problems import speaks_openai
from tests.app_client import app_client

FUZZ = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
QUESTION_FIELDS = sorted(schema("recommendation-request")["properties"])
plausible = {
    "workload": st.sampled_from(["cnn", "rnn", "transformer", "llm", "rl", "kaggle", "general", "x"]),
    "currency": st.sampled_from(["USD", "eur", "GBP", "RUB", "XYZ"]),
    "precision": st.sampled_from(["fp32", "16-bit", "8-bit", "4-bit"]),
    "task": st.sampled_from(["training", "inference"]),
    "as_of": st.dates().map(lambda d: d.isoformat()),
    "budget": st.floats(min_value=-10, max_value=1e7, allow_nan=False),
    "gpus": st.integers(min_value=-1, max_value=20),
    "params_b": st.floats(min_value=0, max_value=3000, allow_nan=False),
    "compare": st.lists(st.sampled_from(["3090", "4090", "a100", "rx 7900 xtx", "voodoo"]), max_size=3),
    "intent": st.sampled_from(["recommend", "compare", "fit"]),
}
questions = st.fixed_dictionaries(
    {}, optional={name: plausible.get(name, json_values) for name in QUESTION_FIELDS}
)
RESPONSE_SCHEMA = {
    "/v1/recommendations": "answer",
    "/v1/ask": "ask-response",
    "/v1/chat/completions": "chat-completion-response",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(
        tmp_path_factory.mktemp("fuzz"), raise_server_exceptions=False, max_body_bytes=8192
    ) as test_client:
        yield test_client


def judged(response, path: str) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400 and speaks_openai(path):  # OpenAI's clients read OpenAI's error shape
        assert response.headers["content-type"].startswith("application/json")
        body = response.json()
        assert schema_errors("openai-error", body) == [] and body["error"]["message"], body
    elif response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/problem+json")
        body = response.json()
        assert schema_errors("problem", body) == [] and body["errors"], body
    elif path in RESPONSE_SCHEMA:
        assert schema_errors(RESPONSE_SCHEMA[path], response.json()) == [], response.text[:500]


@FUZZ
@given(path=st.sampled_from(sorted(RESPONSE_SCHEMA)), body=json_values)
def test_any_json_body(client, path, body):
    judged(client.post(path, json=body), path)


@FUZZ
@given(body=questions)
def test_plausible_questions(client, body):
    judged(client.post("/v1/recommendations", json=body), "/v1/recommendations")


@FUZZ
@given(
    text=st.text(max_size=120)
    | st.sampled_from(
        [
            "nlp $800",
            "cv 2 gpus 3000",
            "fit llama 70b on 3090",
            "cheaper?",
            "as of 2015 kaggle",
            "нлп 80000 руб",
            "compare 3090 4090 a100",
        ]
    )
)
def test_any_text(client, text):
    judged(client.post("/v1/ask", json={"text": text}), "/v1/ask")
    judged(
        client.post(
            "/v1/chat/completions",
            json={"model": "whichgpu", "messages": [{"role": "user", "content": text}]},
        ),
        "/v1/chat/completions",
    )


@FUZZ
@given(
    path=st.sampled_from(sorted(RESPONSE_SCHEMA)),
    raw=st.binary(max_size=200),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "", "application/json; charset=latin-1", "multipart/form-data"]
    ),
)
def test_any_bytes(client, path, raw, content_type):
    judged(
        client.post(path, content=raw, headers={"content-type": content_type} if content_type else {}), path
    )


@FUZZ
@given(
    params=st.dictionaries(
        st.sampled_from(
            [
                "vendor",
                "min_memory_gb",
                "max_price",
                "as_of",
                "workload",
                "currency",
                "used_ok",
                "limit",
                "offset",
                "x",
            ]
        ),
        st.text(max_size=12) | st.integers(-5, 300).map(str) | st.floats(allow_nan=True).map(str),
        max_size=5,
    )
)
def test_any_gpu_query(client, params):
    response = client.get("/v1/gpus", params=params)
    judged(response, "/v1/gpus")
    if response.status_code == 200:
        assert schema_errors("gpu-list", response.json()) == []


@FUZZ
@given(
    path=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_./%{}", max_size=40),
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
)
def test_any_path(client, path, method):
    response = client.request(
        method, "/v1/" + path, content=json.dumps({}), headers={"content-type": "application/json"}
    )
    judged(response, "/v1/" + path)


JSON_POSTS = {
    "/v1/recommendations": "model",
    "/v1/ask": "text",
    "/v1/chat/completions": "model",
    "/v1/benchmarks": "host",
}


@FUZZ
@given(path=st.sampled_from(sorted(JSON_POSTS)), raw=st.binary(min_size=1, max_size=40))
def test_any_bytes_inside_a_json_string(client, path, raw):
    """Bytes that may not be UTF-8, inside an otherwise valid body: never a 500; when they are not
    UTF-8 the refusal is a 400 that names the body."""
    body = b'{"' + JSON_POSTS[path].encode() + b'":"nlp ' + raw.replace(b'"', b"").replace(b"\\", b"") + b'"}'
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    judged(response, path)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        assert response.status_code == 400, response.text
        if path.startswith("/v1/chat/"):  # OpenAI's error shape on its routes
            assert "UTF-8" in response.json()["error"]["message"]
        else:
            assert response.json()["errors"][0] == {"field": "body", "message": "not valid UTF-8"}


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/recommendations", b'{"model":"llama \xff 7b"}'),
        ("/v1/ask", b'{"text":"nlp \xff\xfe $800"}'),
    ],
)
def test_invalid_utf8_is_a_400_naming_the_body(client, path, body):
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert "not valid UTF-8: byte 0xff" in response.json()["detail"]
