"""Answers rendered for people: Markdown for the terminal, `/v1/ask` and chat, short or full
(:mod:`rules.render.markdown`), and the words of the figures every face shows (:mod:`rules.render.figures`);
Block Kit, HTML and SVG live with their faces in bot/ and service/."""
