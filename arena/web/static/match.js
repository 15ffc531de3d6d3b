// The replay viewer: fetch one step at a time from /api/matches/ID/steps/N?seat=S and show its
// board (SVG drawn by the engine on the server), move, options, log, clocks and faults; beside
// it the move list (grouped by round / Eclipse, the bot's info text with each move). A match
// being played is followed as it goes (static/live.js) and shown whole once it ends.
// Everything from bots or records goes in through textContent, never as markup.
"use strict";
(function () {
  const viewer = document.getElementById("viewer");
  if (!viewer) return;
  const match = viewer.dataset.match;
  const live = viewer.dataset.live === "1";
  let steps = Number(viewer.dataset.steps);
  const $ = (id) => document.getElementById(id);
  const slider = $("slider"), seat = $("seat"), play = $("play"), list = $("move-list");
  const cache = new Map();
  const entries = new Map();  // step -> its <li> in the move list
  let current = 0, timer = null, wanted = 0, lastPhase = null, follower = null;

  function item(parent, tag, text, cls) {
    const node = document.createElement(tag);
    node.textContent = text;
    if (cls) node.className = cls;
    parent.appendChild(node);
    return node;
  }

  async function load(step) {
    const key = `${step}/${seat.value}`;
    if (!cache.has(key)) {
      const query = seat.value === "" ? "" : `?seat=${encodeURIComponent(seat.value)}`;
      const response = await fetch(`/api/matches/${match}/steps/${step}${query}`);
      if (!response.ok) throw new Error(`step ${step}: HTTP ${response.status}`);
      cache.set(key, await response.json());
    }
    return cache.get(key);
  }

  function where(step) {
    return `step ${step} of ${Math.max(0, steps - 1)}` + (live ? " (live)" : "");
  }

  function show(data) {
    const info = data.info;
    const boardBox = $("board");
    if (data.svg) {
      boardBox.innerHTML = data.svg;  // built by the engine's svg(): every text escaped there
    } else {
      boardBox.textContent = "";
      item(boardBox, "pre", data.text || "");
    }
    $("where").textContent = where(data.step);
    slider.value = data.step;
    if (data.step === 0) {
      $("move").textContent = "Setup";
      $("prompt").textContent = "";
    } else {
      const by = info.by === "random" ? " (random policy: forfeited seat)" : "";
      $("move").textContent = `Move ${info.step}: seat ${info.seat} (${info.agent}) chose ${info.label}${by} in ${tlachtliDuration(info.ms)}`;
      $("prompt").textContent = `${info.decision.kind}: ${info.decision.prompt} (${info.decision.count} options)`;
    }
    $("bot-info").textContent = info.bot_info || "-";
    const options = $("options");
    options.textContent = "";
    for (const option of info.options || []) {
      const li = item(options, "li", option.label, option.index === info.choice ? "chosen" : "");
      li.value = option.index;
    }
    const log = $("log");
    log.textContent = "";
    for (const line of info.log || []) item(log, "li", line);
    const clock = info.clock_ms || {};
    $("clock").textContent = Object.keys(clock).map((s) => `seat ${s}: ${tlachtliDuration(clock[s])}`).join(", ") || "-";
    const faults = $("faults");
    faults.textContent = "";
    for (const fault of info.faults || []) {
      item(faults, "p", `fault: seat ${fault.seat} ${fault.fault} (${fault.phase}): ${fault.detail}`, "error");
    }
    $("obs-box").hidden = data.observation === undefined;
    $("observation").textContent = data.observation === undefined ? "" : JSON.stringify(data.observation, null, 1);
    highlight(data.step);
  }

  function highlight(step) {
    for (const node of list.querySelectorAll("li.current")) node.classList.remove("current");
    const entry = entries.get(step);
    if (!entry) return;
    entry.classList.add("current");
    entry.setAttribute("aria-current", "step");
    const box = list.getBoundingClientRect(), at = entry.getBoundingClientRect();
    if (at.top < box.top || at.bottom > box.bottom) list.scrollTop += at.top - box.top - box.height / 2;
  }

  // -- the move list --------------------------------------------------------------------------

  function addMoves(moves) {
    for (const move of moves) {
      if (entries.has(move.step)) continue;
      if (move.phase !== lastPhase) {
        item(list, "li", move.phase || "Moves", "phase");
        lastPhase = move.phase;
      }
      const li = document.createElement("li");
      li.className = "move";
      li.dataset.step = move.step;
      const link = item(li, "a", move.step === 0 ? "0. setup" : `${move.step}. seat ${move.seat}: ${move.label}`);
      link.href = `#step=${move.step}`;
      link.title = move.step === 0 ? "the position after setup" : `${move.agent}${move.by === "random" ? " (random policy)" : ""}`;
      if (move.info) item(li, "span", move.info, "bot-info");
      link.addEventListener("click", (event) => {
        event.preventDefault();
        go(move.step);
      });
      list.appendChild(li);
      entries.set(move.step, li);
    }
    highlight(current);
  }

  async function reloadMoves() {
    const data = await TlachtliLive.moves(match, 0, seat.value);
    list.textContent = "";
    entries.clear();
    lastPhase = null;
    addMoves(data.moves);
  }

  // -- stepping -------------------------------------------------------------------------------

  async function go(step) {
    if (steps === 0) return;
    step = Math.max(0, Math.min(steps - 1, step));
    wanted = step;
    try {
      const data = await load(step);
      if (wanted !== step) return;  // a later request superseded this one
      current = step;
      show(data);
      history.replaceState(null, "", `#step=${step}`);
      if (step + 1 < steps) load(step + 1).catch(() => {});  // warm the next step
    } catch (error) {
      $("where").textContent = String(error);
      stop();
    }
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "▶ play";
  }

  function toggle() {
    if (timer !== null) return stop();
    play.textContent = "⏸ pause";
    timer = setInterval(() => {
      if (current >= steps - 1) {
        if (!live) stop();
        return;  // live: wait for the next move
      }
      go(current + 1);
    }, 500);
  }

  function grow(count) {
    const following = wanted >= steps - 1;  // at the newest step: stay there as the game goes on
    steps = count;
    slider.max = Math.max(0, steps - 1);
    $("where").textContent = where(current);
    if (following && timer === null) go(steps - 1);
  }

  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(current - 1));
  $("next").addEventListener("click", () => go(current + 1));
  $("last").addEventListener("click", () => go(steps - 1));
  play.addEventListener("click", toggle);
  slider.addEventListener("input", () => go(Number(slider.value)));
  seat.addEventListener("change", () => {
    go(current);
    reloadMoves().catch(() => {});
  });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) {
      if (event.target !== slider) return;
    }
    const moves = { ArrowRight: () => go(current + 1), ArrowLeft: () => go(current - 1), Home: () => go(0), End: () => go(steps - 1), " ": toggle };
    if (moves[event.key]) {
      event.preventDefault();
      moves[event.key]();
    }
  });

  // #step=N opens step N (#step=end the last one); a live match opens at its newest step.
  const fromHash = /^#step=(\d+|end)$/.exec(location.hash);
  const startAt = (count) => (!fromHash ? (live ? count - 1 : 0) : fromHash[1] === "end" ? count - 1 : Number(fromHash[1]));
  const start = startAt(steps);
  if (live) {
    let first = true;
    follower = TlachtliLive.follow(match, {
      seat: () => seat.value,
      onMoves: (data) => {
        addMoves(data.moves);
        const status = $("live-status");
        if (status) status.textContent = "Live: this match is being played; the page follows it.";
        if (!first) return grow(data.steps);
        first = false;
        steps = data.steps;
        slider.max = Math.max(0, steps - 1);
        go(startAt(steps));
      },
      onEnd: () => {
        // Played to the end: the page of the finished match (agents, faults, result), at the same step.
        const following = wanted >= steps - 1;  // (wanted: the step asked for last, maybe still loading)
        history.replaceState(null, "", following ? "#step=end" : `#step=${wanted}`);
        location.reload();
      },
    });
  } else {
    reloadMoves().catch((error) => { $("where").textContent = String(error); });
    go(start);
  }
  // #step=N typed or followed in the same tab (a link, the address bar, back and forward)
  window.addEventListener("hashchange", () => {
    const asked = /^#step=(\d+|end)$/.exec(location.hash);
    if (!asked || steps === 0) return;
    const step = asked[1] === "end" ? steps - 1 : Number(asked[1]);
    if (step !== wanted) go(step);
  });
  window.addEventListener("beforeunload", () => { if (follower) follower.stop(); });
})();
