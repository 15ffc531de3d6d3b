// Live ladder page: poll the run's progress every 2 s; when it changed, fetch the board fragment
// (rendered and escaped by the server) and swap it in, so the page follows a running `arena run`.
// A big ladder's tables may lag by a poll (data-fresh="0"): fetch again until they are fresh.
"use strict";
(function () {
  const board = document.getElementById("board");
  if (!board) return;
  const ladder = board.dataset.ladder;
  const signature = (p) => `${p.done}/${p.total}/${p.last_activity}/${JSON.stringify(p.counts)}`;
  let last = null;
  async function poll() {
    try {
      const response = await fetch(`/api/ladders/${ladder}/progress`, { cache: "no-store" });
      if (!response.ok) return;
      const now = signature(await response.json());
      const stale = board.querySelector("#progress")?.dataset.fresh === "0";
      if (last !== null && (now !== last || stale)) {
        // the same page of the leaderboard as the address shows (?page=N)
        const page = new URLSearchParams(location.search).get("page");
        const query = page ? `?page=${encodeURIComponent(page)}` : "";
        const fragment = await fetch(`/ladders/${ladder}/board${query}`, { cache: "no-store" });
        if (fragment.ok) {
          board.innerHTML = await fragment.text();
          tlachtliSortable(board);
        }
      }
      last = now;
    } catch (error) {
      // The server may be restarting; try again at the next tick.
    } finally {
      setTimeout(poll, 2000);
    }
  }
  poll();
})();
