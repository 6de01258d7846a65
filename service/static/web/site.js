// A little help on top of plain forms (the page works without it):
// the Ask button shows it is busy, and "/" focuses the question box.
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
