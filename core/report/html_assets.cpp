#include "report/html_assets.hpp"

namespace tritongym::report {

const char* report_stylesheet() {
  return R"CSS(
:root { --ink: #1d2330; --muted: #5c6577; --line: #d9dde5; --band: #f4f6f9; --accent: #2d5bd7; --good: #1d7a46; --bad: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff; }
header { padding: 16px 24px; border-bottom: 1px solid var(--line); background: var(--band); }
header h1 { margin: 0 0 4px; font-size: 20px; }
header p { margin: 2px 0; color: var(--muted); }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
main { padding: 8px 24px 48px; max-width: 1400px; }
h2 { margin: 28px 0 8px; font-size: 17px; }
h3 { margin: 18px 0 6px; font-size: 15px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child, th.text, td.text { text-align: left; }
thead th { background: var(--band); position: sticky; top: 0; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \25B2"; }
table.sortable th[aria-sort="descending"]::after { content: " \25BC"; }
.tabs { display: flex; gap: 4px; margin: 8px 0; }
.tabs button { font: inherit; padding: 4px 12px; border: 1px solid var(--line); background: #fff; border-radius: 4px; cursor: pointer; }
.tabs button[aria-selected="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.tabs button:disabled { color: #aab; cursor: default; }
.note { color: var(--muted); }
.verdict-passed { color: var(--good); font-weight: 600; }
.verdict-failed { color: var(--bad); font-weight: 600; }
tr.weak-oracle td { color: var(--bad); }
.unconfined { color: var(--bad); font-size: 0.85em; border: 1px solid var(--bad); border-radius: 3px; padding: 0 3px; }
.matrix td { text-align: center; }
.matrix .metric { display: block; }
.plots { display: flex; flex-wrap: wrap; gap: 24px; }
.plot { border: 1px solid var(--line); padding: 8px; }
.legend { list-style: none; padding: 0; margin: 4px 0; font-size: 12px; }
.legend li { display: inline-block; margin-right: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
pre { background: var(--band); border: 1px solid var(--line); padding: 8px; overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-word; }
.entry { border-left: 3px solid var(--line); padding: 2px 0 2px 10px; margin: 10px 0; }
.entry-assistant { border-color: var(--accent); }
.entry-tool { border-color: #8a6d00; }
.entry-refused { border-color: var(--bad); }
.entry-head { color: var(--muted); font-size: 12px; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
#selftest-result { display: none; }
)CSS";
}

const char* report_script() {
  return R"JS(
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (event) { errors.push(String(event.message)); });
  var forEach = function (list, visit) { Array.prototype.forEach.call(list, visit); };

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) return numeric ? NaN : "";
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
    return numeric ? (raw === "" ? NaN : parseFloat(raw)) : raw.toLowerCase();
  }

  function sortTable(table, index, direction) {
    var header = table.tHead.rows[0].cells[index];
    var numeric = header.getAttribute("data-type") === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      if (numeric) {
        var xMissing = isNaN(x), yMissing = isNaN(y);
        if (xMissing || yMissing) return xMissing === yMissing ? 0 : (xMissing ? 1 : -1);
        return direction * (x - y);
      }
      return direction * (x < y ? -1 : x > y ? 1 : 0);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    forEach(table.tHead.rows[0].cells, function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", direction > 0 ? "ascending" : "descending");
  }

  // First click: numbers best-first (descending), text A to Z; each further click reverses.
  function onHeaderClick(event) {
    var th = event.target.closest("th");
    if (!th || !th.closest("thead")) return;
    var current = th.getAttribute("aria-sort");
    var numeric = th.getAttribute("data-type") === "number";
    var direction = current === "descending" ? 1 : current === "ascending" ? -1 : (numeric ? -1 : 1);
    sortTable(th.closest("table"), th.cellIndex, direction);
  }

  function showSplit(split) {
    forEach(document.querySelectorAll("[data-split-panel]"), function (panel) {
      panel.hidden = panel.getAttribute("data-split-panel") !== split;
    });
    forEach(document.querySelectorAll("[data-split-tab]"), function (tab) {
      tab.setAttribute("aria-selected", tab.getAttribute("data-split-tab") === split ? "true" : "false");
    });
  }

  function route() {
    var match = /^#episode\/(\d+)$/.exec(location.hash);
    var main = document.getElementById("view-main");
    var shown = null;
    forEach(document.querySelectorAll(".episode-view"), function (view) {
      var on = !!match && view.id === "episode-" + match[1];
      view.hidden = !on;
      if (on) shown = view;
    });
    main.hidden = !!shown;
    document.getElementById("route-note").textContent =
      match && !shown ? "There is no episode " + match[1] + " in this run." : "";
    if (shown) { window.scrollTo(0, 0); return; }
    var target = location.hash.length > 1 && !match ? document.getElementById(location.hash.slice(1)) : null;
    if (target) target.scrollIntoView();
  }

  function columnValues(table, index, numeric) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (row) { return cellValue(row, index, numeric); });
  }

  function isOrdered(values, direction) {
    for (var i = 1; i < values.length; ++i) {
      if (typeof values[i] === "number" && (isNaN(values[i]) || isNaN(values[i - 1]))) {
        if (isNaN(values[i - 1]) && !isNaN(values[i])) return false;
        continue;
      }
      if (direction * (values[i] < values[i - 1] ? -1 : values[i] > values[i - 1] ? 1 : 0) < 0) return false;
    }
    return true;
  }

  // Opened as page.html#selftest: click headers, tabs and an episode link the way a reader would, and
  // write what happened into #selftest-result for the headless-browser test.
  function selftest() {
    var checks = [];
    var check = function (name, ok, detail) { checks.push({ name: name, ok: !!ok, detail: String(detail || "") }); };
    var table = document.getElementById("leaderboard-overall");
    var rows = table ? table.tBodies[0].rows.length : 0;
    check("the overall leaderboard has rows", rows > 0, rows + " rows");
    if (table) {
      var model = table.querySelector('th[data-key="model"]');
      model.click();
      check("a click on Model sorts A to Z", isOrdered(columnValues(table, model.cellIndex, false), 1),
            columnValues(table, model.cellIndex, false).join(","));
      var pass = table.querySelector('th[data-key="pass_at_1"]');
      pass.click();
      check("a click on Pass@1 sorts it descending", isOrdered(columnValues(table, pass.cellIndex, true), -1),
            columnValues(table, pass.cellIndex, true).join(","));
      pass.click();
      check("a second click sorts it ascending", isOrdered(columnValues(table, pass.cellIndex, true), 1),
            columnValues(table, pass.cellIndex, true).join(","));
      pass.click();
      check("a third click sorts it descending again",
            isOrdered(columnValues(table, pass.cellIndex, true), -1) && pass.getAttribute("aria-sort") === "descending");
    }
    var tab = document.querySelector('[data-split-tab]:not([data-split-tab="overall"]):not([disabled])');
    if (tab) {
      tab.click();
      var panel = document.querySelector('[data-split-panel="' + CSS.escape(tab.getAttribute("data-split-tab")) + '"]');
      check("a split tab shows its panel", panel && !panel.hidden && document.querySelector('[data-split-panel="overall"]').hidden);
      showSplit("overall");
    }
    var link = document.querySelector('a[href="#episode/1"]');
    check("the episodes table links episode 1", !!link);
    location.hash = "#episode/1";
    route();
    var view = document.getElementById("episode-1");
    check("the episode view opens", view && !view.hidden && document.getElementById("view-main").hidden);
    check("no element came from the run's text", document.querySelectorAll("img, iframe, object, embed, script[src]").length === 0);
    check("no script error", errors.length === 0, errors.join("; "));
    var passed = checks.every(function (entry) { return entry.ok; });
    var out = document.getElementById("selftest-result");
    out.setAttribute("data-status", passed ? "pass" : "fail");
    out.textContent = JSON.stringify({ passed: passed, checks: checks });
  }

  forEach(document.querySelectorAll("table.sortable thead"), function (head) { head.addEventListener("click", onHeaderClick); });
  forEach(document.querySelectorAll("[data-split-tab]"), function (tab) {
    tab.addEventListener("click", function () { showSplit(tab.getAttribute("data-split-tab")); });
  });
  window.addEventListener("hashchange", function () { if (location.hash !== "#selftest") route(); });
  showSplit("overall");
  if (location.hash === "#selftest") selftest(); else route();
})();
)JS";
}

}  // namespace tritongym::report
