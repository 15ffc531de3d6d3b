// Follow a match as it is played: a reusable piece for any page that shows a match (the match
// page, `arena play --watch`, a page where a person plays a seat).
//
//   const follower = TlachtliLive.follow(matchId, {
//     after: 0,                  // first step wanted (0: the setup position too)
//     seat: () => "",            // the seat whose view is shown ("" = referee): other bots' info is blanked
//     onMoves: (data) => {},     // new steps: data.moves (step, seat, agent, label, phase, by, info), data.steps
//     onEnd: (data) => {},       // the match is no longer played (data.status: "done", ...)
//     intervalMs: 700,
//   });
//   follower.stop();
//
// It polls GET /api/matches/ID/moves?after=N[&seat=S], which answers the steps from N on and
// whether the match is still live. A failed poll is retried at the next tick.
"use strict";
window.TlachtliLive = (function () {
  function movesUrl(match, after, seat) {
    const query = `after=${after}` + (seat === "" || seat === undefined ? "" : `&seat=${encodeURIComponent(seat)}`);
    return `/api/matches/${encodeURIComponent(match)}/moves?${query}`;
  }

  async function moves(match, after, seat) {
    const response = await fetch(movesUrl(match, after, seat));
    if (!response.ok) throw new Error(`moves of match ${match}: HTTP ${response.status}`);
    return response.json();
  }

  function follow(match, handlers) {
    let after = handlers.after || 0;
    let stopped = false;
    let timer = null;
    const interval = handlers.intervalMs || 700;
    async function poll() {
      timer = null;
      if (stopped) return;
      try {
        const data = await moves(match, after, handlers.seat ? handlers.seat() : "");
        if (stopped) return;
        if (data.moves.length && data.steps > after) {
          after = data.steps;
          if (handlers.onMoves) handlers.onMoves(data);
        }
        if (!data.live) {
          stopped = true;
          if (handlers.onEnd) handlers.onEnd(data);
          return;
        }
      } catch (error) {
        // the server restarted or the network blinked: the next poll catches up
      }
      timer = setTimeout(poll, interval);
    }
    poll();
    return {
      stop() {
        stopped = true;
        if (timer !== null) clearTimeout(timer);
      },
    };
  }

  return { follow, moves };
})();
