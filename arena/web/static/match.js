// The replay viewer: fetch one step at a time from /api/matches/ID/steps/N?seat=S and show its
// board (SVG drawn by the engine on the server), move, options, log, clocks and faults.
// Everything from bots or records goes in through textContent, never as markup.
"use strict";
(function () {
  const viewer = document.getElementById("viewer");
  if (!viewer) return;
  const match = viewer.dataset.match;
  const steps = Number(viewer.dataset.steps);
  const $ = (id) => document.getElementById(id);
  const slider = $("slider"), seat = $("seat"), play = $("play");
  const cache = new Map();
  let current = 0, timer = null, wanted = 0;

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

  function show(data) {
    const info = data.info;
    const boardBox = $("board");
    if (data.svg) {
      boardBox.innerHTML = data.svg;  // built by the engine's svg(): every text escaped there
    } else {
      boardBox.textContent = "";
      item(boardBox, "pre", data.text || "");
    }
    $("where").textContent = `step ${data.step} of ${steps - 1}`;
    slider.value = data.step;
    if (data.step === 0) {
      $("move").textContent = "Setup";
      $("prompt").textContent = "";
    } else {
      const by = info.by === "random" ? " (random policy: forfeited seat)" : "";
      $("move").textContent = `Move ${info.step}: seat ${info.seat} (${info.agent}) chose ${info.label}${by}, ${info.ms ?? "?"} ms`;
      $("prompt").textContent = `${info.decision.kind}: ${info.decision.prompt} (${info.decision.count} options)`;
    }
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
    $("clock").textContent = Object.keys(clock).map((s) => `seat ${s}: ${clock[s]}`).join(", ") || "-";
    const faults = $("faults");
    faults.textContent = "";
    for (const fault of info.faults || []) {
      item(faults, "p", `fault: seat ${fault.seat} ${fault.fault} (${fault.phase}): ${fault.detail}`, "error");
    }
    $("obs-box").hidden = data.observation === undefined;
    $("observation").textContent = data.observation === undefined ? "" : JSON.stringify(data.observation, null, 1);
  }

  async function go(step) {
    step = Math.max(0, Math.min(steps - 1, step));
    wanted = step;
    try {
      const data = await load(step);
      if (wanted !== step) return;  // a later request superseded this one
      current = step;
      show(data);
      load(Math.min(steps - 1, step + 1)).catch(() => {});  // warm the next step
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
      if (current >= steps - 1) return stop();
      go(current + 1);
    }, 500);
  }

  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(current - 1));
  $("next").addEventListener("click", () => go(current + 1));
  $("last").addEventListener("click", () => go(steps - 1));
  play.addEventListener("click", toggle);
  slider.addEventListener("input", () => go(Number(slider.value)));
  seat.addEventListener("change", () => go(current));
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
  go(0);
})();
