"""The page names the words of a question it could not read, with the quoting hint for a lone "00"."""

from __future__ import annotations

import html


def test_the_page_names_words_not_understood(client) -> None:
    response = client.get("/", params={"q": "nlp 00 zxqv"})
    assert response.status_code == 200
    text = html.unescape(response.text)
    assert "Not understood: '00', 'zxqv'" in text and "single quotes" in text
    clean = html.unescape(client.get("/", params={"q": "nlp $800"}).text)
    assert "Not understood" not in clean
