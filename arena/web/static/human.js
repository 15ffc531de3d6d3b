// The page where a person plays a seat (arena/web/seat_app.py): long-poll the seat's state,
// show the decision's options as buttons, post the one clicked. Text goes in with textContent;
// the board is the engine's SVG, whose texts the engine escapes.
"use strict";
(function () {
  const root = document.getElementById("human");
  const token = root.dataset.token;
  const tab = root.dataset.tab;
  const base = `/play/${encodeURIComponent(token)}`;
  const statusLine = document.getElementById("status");
  const errorLine = document.getElementById("error");
  const board = document.getElementById("board");
  const prompt = document.getElementById("prompt");
  const clock = document.getElementById("clock");
  const news = document.getElementById("news");
  const wholeLog = document.getElementById("log");
  const logCount = document.getElementById("log-count");
  const end = document.getElementById("end");
  const gameLog = []; // every line of the game's public log received so far
  const options = document.getElementById("options");
  const outcome = document.getElementById("outcome");
  let version = -1;
  let recordUrl = null;
  let deadline = null; // performance.now() by which the pending decision must be answered
  let shownBoard = null;

  function showClock() {
    if (deadline === null) { clock.textContent = ""; return; }
    const left = Math.max(0, (deadline - performance.now()) / 1000);
    clock.textContent = `time left for this decision: ${tlachtliDuration(left * 1000)} (your clock and bank)`;
  }
  setInterval(showClock, 500);

  function setBoard(svg) {
    if (svg === shownBoard) return;
    shownBoard = svg;
    board.innerHTML = svg || "";  // built by the engine's svg(): every text escaped there
  }

  async function choose(id, index) {
    for (const button of options.querySelectorAll("button")) button.disabled = true;
    errorLine.textContent = "";
    try {
      const response = await fetch(`${base}/choose`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tab: tab, id: id, choice: index }),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
        errorLine.textContent = body.error;
        for (const button of options.querySelectorAll("button")) button.disabled = false;
      }
    } catch (error) {
      errorLine.textContent = "the arena does not answer (was `arena play` stopped?)";
    }
  }

  function showOptions(data) {
    options.replaceChildren();
    for (const option of data.options) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.dataset.index = option.index;
      button.textContent = option.label;
      button.addEventListener("click", () => choose(data.id, option.index));
      options.append(button);
    }
  }

  function line(list, text, className) {
    const item = document.createElement("li");
    item.textContent = text;
    if (className) item.className = className;
    list.append(item);
  }

  // The game's log: every seat's moves, the new part (since the person last chose) apart.
  function showLog(data) {
    if (!Array.isArray(data.log) || data.log_from > gameLog.length) return;
    const added = data.log.slice(gameLog.length - data.log_from);
    for (const text of added) {
      gameLog.push(String(text));
      line(wholeLog, String(text));
    }
    logCount.textContent = String(gameLog.length);
    news.replaceChildren();
    const fresh = gameLog.slice(Math.min(data.log_new, gameLog.length));
    for (const text of fresh) line(news, text);
    if (!fresh.length) line(news, "nothing yet", "muted");
  }

  function showSheet(sheet) {
    const table = document.getElementById("score-sheet");
    const [head, body, foot] = [table.tHead, table.tBodies[0], table.tFoot];
    head.replaceChildren();
    body.replaceChildren();
    foot.replaceChildren();
    if (!sheet) {
      table.hidden = true;
      return;
    }
    const row = (parent, cells, header) => {
      const tr = document.createElement("tr");
      cells.forEach((value, i) => {
        const cell = document.createElement(i === 0 || header ? "th" : "td");
        cell.textContent = String(value);
        if (i > 0 && !header) cell.className = "num";
        tr.append(cell);
      });
      parent.append(tr);
    };
    row(head, ["category", ...sheet.names.map((name, i) => `seat ${i}: ${name}`)], true);
    for (const category of sheet.categories) row(body, [category.label, ...category.points.map((vp) => vp || "")]);
    row(foot, ["Total", ...sheet.scores]);
  }

  function showRecord(record) {
    const link = document.getElementById("save-record");
    if (!record) {
      document.getElementById("replay").hidden = true;
      return;
    }
    if (recordUrl) URL.revokeObjectURL(recordUrl);
    recordUrl = URL.createObjectURL(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }));
    link.href = recordUrl;
  }

  function showOutcome(data) {
    const body = outcome.querySelector("tbody");
    body.replaceChildren();
    for (const seat of data.outcome.seats) {
      const row = document.createElement("tr");
      for (const value of [seat.seat, seat.agent, seat.score, seat.rank, seat.fault || ""]) {
        const cell = document.createElement("td");
        cell.textContent = String(value);
        row.append(cell);
      }
      body.append(row);
    }
    showSheet(data.score_sheet);
    showRecord(data.outcome.record);
    end.hidden = false;
  }

  function show(data) {
    if (data.version === version) return false; // a long poll that saw no change
    version = data.version;
    if (data.board !== undefined) setBoard(data.board);
    showLog(data);
    deadline = null;
    prompt.textContent = "";
    if (data.status !== "deciding") options.replaceChildren();
    if (data.status === "deciding") {
      statusLine.textContent = `your move (decision ${data.id}, ${data.kind})`;
      prompt.textContent = data.prompt;
      deadline = performance.now() + data.ms_left;
      showOptions(data);
    } else if (data.status === "waiting") {
      statusLine.textContent = data.message || "waiting for the other seats…";
    } else if (data.status === "over") {
      const mine = data.outcome.seats.find((s) => s.seat === data.seat);
      statusLine.textContent = `match over: you scored ${mine.score}, rank ${mine.rank}` +
        (data.forfeit ? ` (your seat forfeited: ${data.forfeit})` : "");
      showOutcome(data);
    } else {
      statusLine.textContent = data.message;
    }
    showClock();
    return data.status === "over" || data.status === "taken";
  }

  async function follow() {
    let failures = 0;
    for (;;) {
      try {
        const response = await fetch(`${base}/state?tab=${encodeURIComponent(tab)}&since=${version}&log=${gameLog.length}`);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        failures = 0;
        if (show(await response.json())) return;
      } catch (error) {
        failures += 1;
        if (failures >= 3) {
          statusLine.textContent = "the arena has stopped answering (`arena play` ended or was stopped)";
          options.replaceChildren();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
  follow();
})();
