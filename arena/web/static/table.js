// Sortable tables: click a header of a table.sortable to sort by it (again to reverse).
// Cells sort by their data-value when numeric, else by their text.
"use strict";
function tlachtliSortable(root) {
  for (const table of root.querySelectorAll("table.sortable")) {
    table.querySelectorAll("thead th").forEach((th, column) => {
      th.addEventListener("click", () => {
        const body = table.tBodies[0];
        const down = th.dataset.dir !== "asc";
        table.querySelectorAll("thead th").forEach((other) => { delete other.dataset.dir; });
        th.dataset.dir = down ? "asc" : "desc";
        const key = (row) => {
          const cell = row.cells[column];
          const raw = cell ? (cell.dataset.value ?? cell.textContent.trim()) : "";
          const number = Number(raw);
          return raw !== "" && !Number.isNaN(number) ? number : raw.toLowerCase();
        };
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = key(a), y = key(b);
          const order = x < y ? -1 : x > y ? 1 : 0;
          return down ? order : -order;
        });
        rows.forEach((row) => body.appendChild(row));
      });
    });
  }
}
tlachtliSortable(document);

// A time in milliseconds as minutes, seconds and tenths ("0:01.2", "12:05.0"), as a chess clock
// reads; "?" when unknown.
function tlachtliDuration(ms) {
  const value = Number(ms);
  if (ms === null || ms === undefined || Number.isNaN(value)) return "?";
  const tenths = Math.round(Math.max(0, value) / 100);
  const seconds = ((tenths % 600) / 10).toFixed(1).padStart(4, "0");
  return `${Math.floor(tenths / 600)}:${seconds}`;
}
