// A submission's page: poll its state every second until it is final (active, rejected ...),
// showing each state, its line and its log as they come (all as text, never markup).
(function () {
  "use strict";
  const state = document.getElementById("state");
  if (!state || state.dataset.final === "1") return;
  const id = state.dataset.submission;
  function show(data) {
    state.textContent = data.state;
    document.getElementById("name").textContent = data.name || "(not read yet)";
    document.getElementById("version").textContent = data.version || "";
    document.getElementById("reason").textContent = data.reason || "";
    document.getElementById("log").textContent = data.log || "";
    const states = document.getElementById("states");
    states.replaceChildren(...data.states.map((name) => {
      const item = document.createElement("li");
      item.textContent = name;
      return item;
    }));
    if (data.final) state.dataset.final = "1";
  }
  function poll() {
    fetch("/api/submissions/" + encodeURIComponent(id), { credentials: "same-origin" })
      .then((response) => response.json())
      .then((data) => { if (!data.error) show(data); if (!data.final) setTimeout(poll, 1000); })
      .catch(() => setTimeout(poll, 2000));
  }
  setTimeout(poll, 500);
})();
