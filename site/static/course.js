// Outputs wider than the page (long trim tables) scroll sideways inside their own box. A box that
// scrolls must be reachable by keyboard and have a name, so it gets tabindex="0", role="region"
// and a label. Runs after layout, and again when the window is resized.
(function () {
  function mark() {
    document.querySelectorAll(".cell_output .output").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", document.documentElement.lang === "fa" ? "خروجی (پیمایش افقی)" : "Output (scrolls sideways)");
      }
    });
  }
  window.addEventListener("load", mark);
  window.addEventListener("resize", mark);
})();
