// Render the page's Mermaid diagrams with the local mermaid.min.js (a classic script: works from file://).
// Each diagram gets a text alternative: its title from the nearest preceding heading, and the source
// stays readable in the "diagram as text" disclosure below it.
(function () {
  function render() {
    if (typeof mermaid === "undefined") return;
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
    mermaid.run({ querySelector: "pre.mermaid" }).then(function () {
      document.querySelectorAll("figure.course-mermaid svg").forEach(function (svg) {
        svg.setAttribute("role", "img");
        var source = svg.closest("figure").querySelector(".course-mermaid-source pre");
        svg.setAttribute("aria-label", "Diagram: " + source.textContent.replace(/\s+/g, " ").trim().slice(0, 600));
      });
      document.documentElement.setAttribute("data-mermaid", "done");
    }).catch(function (error) {
      document.documentElement.setAttribute("data-mermaid", "error: " + error);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", render);
  else render();
})();
