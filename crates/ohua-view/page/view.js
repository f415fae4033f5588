// The Ohua view: polls /api/view (README.md lists its fields), lays the
// graph out with dagre (sections as clusters) and draws it, the plots and
// the lists as SVG and HTML. No framework: the page is a few hundred lines
// and must work offline from the process that serves it.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 1000;
const state = { view: null, run: 0, op: null, layout: null, layoutKey: "", fragmentRead: false, fit: false };

function el(tag, attrs, parent, ns) {
  const e = ns ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}
const svgEl = (tag, attrs, parent) => el(tag, attrs, parent, true);

function fmt(x, digits) {
  if (x === null || x === undefined) return "–";
  if (Math.abs(x) >= 1e6) return (x / 1e6).toFixed(1) + "M";
  if (Math.abs(x) >= 1e4) return (x / 1e3).toFixed(1) + "k";
  return Number(x).toFixed(digits === undefined ? 0 : digits);
}

async function poll() {
  try {
    const response = await fetch("/api/view", { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    state.view = await response.json();
    render();
  } catch (e) {
    document.getElementById("status").textContent = "cannot read the process's data: " + e.message;
  }
  if (!state.view || state.view.live) setTimeout(poll, POLL_MS);
}

function render() {
  const view = state.view;
  renderRunButtons(view);
  const run = view.runs[state.run];
  if (!run) {
    document.getElementById("status").textContent = view.live ? "no run yet: waiting for the process to run an algorithm" : "the report holds no run";
    document.body.dataset.operators = "0";
    return;
  }
  const groups = new Set(run.operators.map(o => o.section).concat(replicaBoxes(run).map(r => r[2]))).size;
  const sections = run.sections;
  const what = run.running ? "running" : (run.calls > 1 ? run.calls + " runs, the latest" : "finished");
  document.getElementById("status").textContent =
    `${run.algorithm}: ${run.operators.length} operators in ${sections} sections, ${what}` +
    (view.live ? ` · live, ${fmt(view.now_s, 0)} s` : " · saved report") + (run.panicked ? ` · panicked in ${run.panicked}` : "");
  document.body.dataset.operators = String(run.operators.length);
  document.body.dataset.sections = String(sections);
  document.body.dataset.groups = String(groups);
  document.body.dataset.running = String(run.running);
  document.getElementById("graph-title").textContent = `graph of ${run.algorithm} (${fmt(run.wall_ms, 1)} ms wall)`;
  renderGraph(run);
  renderDetails(run);
  renderPlots(run, view.now_s);
  renderEvents(run);
  renderIo(run);
}

// The page's #fragment names the algorithm shown and, after a slash, the
// operator selected (`#classifier/3`), so a link or a test can open both.
function fromFragment(view) {
  const [name, op] = decodeURIComponent(location.hash.slice(1)).split("/");
  const named = view.runs.findIndex(r => r.algorithm === name);
  if (named >= 0) state.run = named;
  if (op !== undefined && op !== "") state.op = Number(op);
}

function renderRunButtons(view) {
  const nav = document.getElementById("runs");
  const names = view.runs.map(r => r.algorithm).join("\n");
  if (nav.dataset.names !== names) {
    nav.dataset.names = names;
    nav.replaceChildren();
    view.runs.forEach((r, i) => {
      const b = el("button", { text: r.algorithm, type: "button" }, nav);
      b.onclick = () => { state.run = i; state.op = null; history.replaceState(null, "", "#" + r.algorithm); render(); };
    });
    if (!state.fragmentRead) { fromFragment(view); state.fragmentRead = view.runs.length > 0; }
  }
  if (state.run >= view.runs.length) state.run = 0;
  [...nav.children].forEach((b, i) => b.classList.toggle("selected", i === state.run));
}

function shortName(op) {
  const slash = op.name.lastIndexOf("/");
  return slash >= 0 ? op.name.slice(slash + 1) : op.name;
}

// Lay out only when the graph's shape changes: dagre takes tens of ms on a
// graph of 200 operators, and the page redraws every second.
function layout(run) {
  const key = run.algorithm + "|" + run.operators.map(o => o.section + ":" + o.replicas).join(",") + "|" + run.arcs.length;
  if (state.layoutKey === key) return state.layout;
  const g = new dagre.graphlib.Graph({ compound: true });
  g.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 28, marginx: 12, marginy: 12, acyclicer: "greedy" });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of new Set(run.operators.map(o => o.section))) g.setNode("s" + s, { label: "section " + s });
  for (const op of run.operators) {
    const chars = Math.max(shortName(op).length + (op.replicas > 1 ? 4 : 0), 22);
    g.setNode("o" + op.id, { width: chars * 6.6 + 14, height: 36 });
    g.setParent("o" + op.id, "s" + op.section);
  }
  for (const a of run.arcs) g.setEdge("o" + a.from, "o" + a.to);
  // Replicas in other sections: a box each, in its section, tied to the
  // operator whose items it takes.
  for (const [op, k, section] of replicaBoxes(run)) {
    const id = "r" + op.id + "_" + k;
    g.setNode(id, { width: 90, height: 26 });
    if (!g.hasNode("s" + section)) g.setNode("s" + section, { label: "section " + section });
    g.setParent(id, "s" + section);
    g.setEdge("o" + op.id, id);
  }
  dagre.layout(g);
  state.layout = g;
  state.layoutKey = key;
  return g;
}

// [operator, replica index, section] of every replica outside its operator's section.
function replicaBoxes(run) {
  const out = [];
  for (const op of run.operators) {
    (op.replica_sections || []).forEach((section, k) => { if (k > 0 && section !== op.section) out.push([op, k, section]); });
  }
  return out;
}

function busyColour(pct) {
  const p = Math.max(0, Math.min(100, pct || 0)) / 100;
  return `hsl(${Math.round(120 - 120 * p)}, 70%, ${Math.round(92 - 30 * p)}%)`;
}

function renderGraph(run) {
  const g = layout(run);
  const svg = document.getElementById("graph");
  svg.replaceChildren();
  const size = g.graph();
  const [w, h] = [Math.ceil(size.width || 100), Math.ceil(size.height || 100)];
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  // A large graph fits the pane (the button shows it at its size).
  svg.setAttribute("width", state.fit ? "100%" : w);
  svg.setAttribute("height", state.fit ? Math.min(h, Math.ceil(h * svg.parentElement.clientWidth / w)) : h);
  document.getElementById("fit").textContent = state.fit ? "actual size" : "fit";
  const defs = svgEl("defs", {}, svg);
  const marker = svgEl("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#78909c" }, marker);
  for (const id of g.nodes().filter(n => n.startsWith("s"))) {
    const n = g.node(id);
    svgEl("rect", { class: "section", "data-section": id.slice(1), x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height }, svg);
    svgEl("text", { class: "section-label", x: n.x - n.width / 2 + 4, y: n.y - n.height / 2 + 11, text: n.label }, svg);
  }
  run.arcs.forEach((a, i) => {
    const e = g.edge("o" + a.from, "o" + a.to);
    if (!e || !e.points) return;
    const d = e.points.map((p, j) => (j ? "L" : "M") + p.x.toFixed(1) + " " + p.y.toFixed(1)).join(" ");
    svgEl("path", { class: "arc" + (a.feedback ? " feedback" : ""), d, "data-arc": i }, svg);
  });
  for (const [op, k] of replicaBoxes(run)) {
    const n = g.node("r" + op.id + "_" + k);
    const e = g.edge("o" + op.id, "r" + op.id + "_" + k);
    if (e && e.points) {
      svgEl("path", { class: "arc replica", d: e.points.map((p, j) => (j ? "L" : "M") + p.x.toFixed(1) + " " + p.y.toFixed(1)).join(" ") }, svg);
    }
    const grp = svgEl("g", { class: "replica", transform: `translate(${n.x - n.width / 2},${n.y - n.height / 2})` }, svg);
    svgEl("rect", { width: n.width, height: n.height }, grp);
    svgEl("text", { x: 6, y: 17, text: "replica " + k }, grp);
    svgEl("title", { text: `replica ${k} of ${op.name}` }, grp);
  }
  for (const op of run.operators) {
    const n = g.node("o" + op.id);
    const cls = ["op", op.fused_into !== null && op.fused_into !== undefined ? "fused" : "", op.id === state.op ? "selected" : ""].join(" ").trim();
    const grp = svgEl("g", { class: cls, id: "op-" + op.id, "data-id": op.id, transform: `translate(${n.x - n.width / 2},${n.y - n.height / 2})` }, svg);
    const fill = op.queue_fill === null || op.queue_fill === undefined ? 1 : 1 + 3 * op.queue_fill;
    // A replicated operator's busy time is its replicas' sum: colour by one replica's share.
    svgEl("rect", { width: n.width, height: n.height, fill: busyColour(op.busy_pct / Math.max(1, op.replicas)), "stroke-width": fill.toFixed(1) }, grp);
    svgEl("title", { text: op.label }, grp);
    svgEl("text", { x: 6, y: 14, text: shortName(op) + (op.replicas > 1 ? " ×" + op.replicas : "") }, grp);
    svgEl("text", { class: "stats", x: 6, y: 29, text: `${op.kind} · ${fmt(op.items_per_s)}/s · ${fmt(op.busy_pct, 0)}%` }, grp);
    grp.addEventListener("click", () => { state.op = op.id; history.replaceState(null, "", "#" + run.algorithm + "/" + op.id); render(); });
  }
}

// Where an operator's code is in the algorithm: `file:line`, `line N`
// where the file is unknown, "" where the line is (a saved report from
// before lines, or generated code with none).
function sourceLine(run, op) {
  if (op.line === null || op.line === undefined) return "";
  return run.file ? `${run.file}:${op.line}` : `line ${op.line}`;
}

function renderDetails(run) {
  const dl = document.getElementById("operator");
  const src = document.getElementById("source");
  const where = document.getElementById("where");
  const op = run.operators.find(o => o.id === state.op);
  dl.replaceChildren();
  if (!op) { src.textContent = ""; where.textContent = ""; return; }
  const fused = op.fused_into === null || op.fused_into === undefined ? "no" : "into " + shortName(run.operators[op.fused_into]);
  const rows = [
    ["name", op.name], ["kind", op.kind], ["loop depth", op.depth], ["section", op.section],
    ["replicas", op.replicas > 1 ? `${op.replicas} (sections ${op.replica_sections.join(", ")})` : "1"],
    ["fused", fused], ["firings", fmt(op.firings)], ["busy", fmt(op.busy_ms, 1) + " ms (" + fmt(op.busy_pct, 1) + " %)"],
    ["items/s", fmt(op.items_per_s, 1)], ["queue fill", op.queue_fill === null ? "–" : fmt(100 * op.queue_fill, 0) + " %"],
  ];
  for (const [k, v] of rows) { el("dt", { text: k }, dl); el("dd", { text: String(v) }, dl); }
  src.textContent = op.label;
  where.textContent = sourceLine(run, op);
}

function renderPlots(run, nowS) {
  const s = run.series;
  const live = state.view.live;
  plot(document.getElementById("plot-throughput"), s.t_s, [s.items_per_s], run.events, nowS, live);
  const latency = document.getElementById("plot-latency");
  plot(latency, s.t_s, [s.p50_ms, s.p99_ms], run.events, nowS, live);
  document.getElementById("latency-caption").textContent = run.running && run.probed
    ? "latency of requests through the graph (ms, probes): p50, p99"
    : "latency of runs (ms): p50, p99";
  if (run.running && latency.dataset.points === "0") {
    latency.querySelector("text.empty").textContent = run.probed
      ? "no probe has got through yet (one waits for the next request)"
      : "a running call is timed when it ends";
  }
}

function plot(svg, xs, series, events, nowS, live) {
  svg.replaceChildren();
  const w = svg.clientWidth || 500, h = svg.clientHeight || 160, pad = 28;
  const x0 = xs.length ? Math.min(xs[0], ...events.map(e => e.at_s)) : 0;
  const x1 = Math.max(nowS, xs.length ? xs[xs.length - 1] : 1, x0 + 1);
  const ys = series.flat().filter(y => y !== null && y !== undefined);
  const y1 = Math.max(1, ...ys) * 1.1;
  const sx = x => pad + (w - 2 * pad) * (x - x0) / (x1 - x0);
  const sy = y => h - pad + (2 * pad - h) * y / y1;
  svgEl("text", { class: "axis", x: 2, y: 12, text: fmt(y1 / 1.1, 1) }, svg);
  svgEl("text", { class: "axis", x: pad, y: h - 8, text: fmt(x0, 0) + " s" }, svg);
  svgEl("text", { class: "axis", x: w - pad - 30, y: h - 8, text: fmt(x1, 0) + " s" }, svg);
  let points = 0;
  series.forEach((ys, k) => {
    const pts = [];
    ys.forEach((y, i) => { if (y !== null && y !== undefined) pts.push(sx(xs[i]).toFixed(1) + "," + sy(y).toFixed(1)); });
    points += pts.length;
    svgEl("polyline", { class: "s" + k, points: pts.join(" ") }, svg);
  });
  for (const e of events) {
    const line = svgEl("line", { class: "event-mark", x1: sx(e.at_s), x2: sx(e.at_s), y1: pad / 2, y2: h - pad }, svg);
    svgEl("title", { text: e.kind + ": " + e.text }, line);
  }
  if (!points) {
    svgEl("text", { class: "axis empty", x: w / 2 - 90, y: h / 2, text: !live ? "no samples: a saved run has no history" : xs.length ? "none in these windows" : "no samples yet" }, svg);
  }
  svg.dataset.points = String(points);
  svg.dataset.events = String(events.length);
}

function renderEvents(run) {
  const ul = document.getElementById("events");
  ul.replaceChildren();
  if (!run.events.length) el("li", { text: "none" }, ul);
  for (const e of run.events) {
    const times = e.cut_ms === null || e.cut_ms === undefined ? "" : ` (cut after ${fmt(e.cut_ms, 1)} ms, complete after ${fmt(e.complete_ms, 1)} ms)`;
    el("li", { class: "event " + e.kind, text: `${fmt(e.at_s, 1)} s · ${e.kind}: ${e.text}${times}` }, ul);
  }
}

function renderIo(run) {
  const table = document.getElementById("io");
  table.replaceChildren();
  if (!run.io.length) { el("caption", { text: "no data sources" }, table); return; }
  const head = el("tr", {}, el("thead", {}, table));
  for (const h of ["source", "fetches", "calls", "mean batch", "cached", "deduplicated", "errors", "rounds"]) el("th", { text: h }, head);
  const body = el("tbody", {}, table);
  for (const s of run.io) {
    const tr = el("tr", {}, body);
    const rounds = s.sites.map(site => site.operator.split("/").pop() + ": " + site.rounds.join("+")).join("; ");
    for (const v of [s.source, fmt(s.fetches), fmt(s.calls), fmt(s.mean_batch, 1), fmt(s.cached), fmt(s.deduplicated), fmt(s.errors), rounds]) el("td", { text: v }, tr);
  }
}

document.getElementById("fit").onclick = () => { state.fit = !state.fit; if (state.view) render(); };
poll();
