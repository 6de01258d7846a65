// A little help on top of plain forms (the page works without it):
// the Ask button shows it is busy, "/" focuses the question box, and a chart
// that failed to load says so instead of leaving an empty frame.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector("form.ask");
  const box = document.getElementById("q");
  if (!form || !box) return;
  form.addEventListener("submit", (event) => {
    if (!box.value.trim()) { event.preventDefault(); box.focus(); return; }
    const button = form.querySelector("button");
    if (button) { button.setAttribute("aria-busy", "true"); button.textContent = "Thinking…"; }
  });
  document.addEventListener("keydown", (event) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement && document.activeElement.tagName);
    if (event.key === "/" && !typing) { event.preventDefault(); box.focus(); box.select(); }
  });
});
window.addEventListener("load", () => {
  for (const img of document.querySelectorAll("figure.chart img")) {
    const loaded = img.complete && img.naturalWidth > 0;
    img.dataset.state = loaded ? "loaded" : "broken";
    if (!loaded) {
      const note = document.createElement("p");
      note.className = "error";
      note.textContent = "This chart could not be loaded: " + img.alt;
      img.after(note);
    }
  }
});
