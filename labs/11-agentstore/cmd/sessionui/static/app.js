// sessionui: follow the session while an agent appends to it. The page
// works without this script; with it, a change of the file (or of the leaf,
// from another tab) shows within two seconds.
"use strict";
(function follow() {
  const shown = document.body.dataset.version;
  async function poll() {
    try {
      const r = await fetch("/api/state", { cache: "no-store" });
      const s = await r.json();
      if ((s.version || "") !== shown) {
        location.reload();
        return;
      }
    } catch (e) {
      // The server stopped; try again later.
    }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
