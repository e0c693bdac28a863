// The web board: a game against a level through /v1/games (docs/web.md).
import { drawBoard } from "./board.js";

const $ = (id) => document.getElementById(id);
let S = null;          // the session state from the server
let made = [];         // steps [from, to] made this turn
let selected = null;   // the point whose top checker is picked up
let arrows = [];       // arrows drawn on the board
let pending = null;    // the action waiting for a confirmation
let busy = false;

async function api(method, path, body) {
  const r = await fetch(path, { method, headers: { "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
  const j = await r.json();
  if (!r.ok) throw new Error(j.message || r.statusText);
  return j;
}

function say(text) { $("message").textContent = text || ""; }

function log(text) {
  if (!text) return;
  const li = document.createElement("li");
  li.textContent = text;
  $("log").prepend(li);
}

// the board after the steps made so far (hits move the computer's blot to its bar)
function current() {
  const b = S.board.points.slice();
  const off = { ...S.board.off };
  for (const [f, t] of made) {
    b[f] -= 1;
    if (t === 0) { off.you += 1; continue; }
    if (b[t] === -1) { b[t] = 0; b[0] -= 1; }
    b[t] += 1;
  }
  return { b, off };
}

function pips(b) {
  let you = 0, comp = 0;
  for (let p = 1; p <= 24; p++) { if (b[p] > 0) you += p * b[p]; else if (b[p] < 0) comp += (25 - p) * -b[p]; }
  return { you: you + 25 * b[25], computer: comp + 25 * -b[0] };
}

// the remaining steps of every order of every legal play that contains the steps made
function candidates() {
  const out = [];
  for (const play of S.plays) {
    for (const order of play.orders) {
      const left = order.map((s) => [s[0], s[1]]);
      let ok = true;
      for (const [f, t] of made) {
        const i = left.findIndex((s) => s[0] === f && s[1] === t);
        if (i < 0) { ok = false; break; }
        left.splice(i, 1);
      }
      if (ok) out.push({ play, left });
    }
  }
  return out;
}

export function targetsFrom(src) {
  const { b } = current();
  if (b[25] > 0 && src !== 25) return new Set();
  if (src === 25 ? b[25] <= 0 : b[src] <= 0) return new Set();
  const t = new Set();
  for (const c of candidates()) for (const [f, to] of c.left) if (f === src) t.add(to);
  return t;
}

function sources() {
  const s = new Set();
  for (let p = 1; p <= 25; p++) if (targetsFrom(p).size) s.add(p);
  return s;
}

function complete() {
  const c = candidates().find((c) => c.left.length === 0);
  return c ? c.play : null;
}

function render() {
  const { b, off } = current();
  const playing = S && S.dice && !S.over;
  const targets = playing && selected !== null ? targetsFrom(selected) : new Set();
  drawBoard($("board"), b, { colour: S ? S.colour : "white", off, pips: pips(b), selected, targets,
    sources: playing ? sources() : new Set(), arrows });
  $("dice").textContent = S && S.dice ? `Your roll: ${S.dice[0]}-${S.dice[1]}` : "";
  $("undo").disabled = !playing || made.length === 0;
  $("confirm").disabled = !playing || !complete();
  $("hint").disabled = !playing;
  $("resign").disabled = !S || !!S.over;
  $("draw").disabled = !S || !!S.over;
  $("review").disabled = !S || !S.over || S.turns === 0;
  renderCube();
  $("pid").textContent = S ? S.position_id : "";
  document.body.dataset.state = !S ? "setup" : S.over ? "over" : playing ? "your-turn" : "waiting";
}

function show(state, notes = true) {
  S = state;
  made = []; selected = null;
  arrows = [];
  if (notes) for (const e of state.events_new || []) log(e.note);
  const last = state.last_computer;
  if (last && last.steps && last.steps.length && !state.over) arrows = last.steps.map(([f, t]) => ({ from: f, to: t, cls: "comp", mine: false }));
  const cube = state.cube;
  if (state.over) say(state.over.text + (cube ? (cube.match_over ? " The match is over." : " Next game when you are ready.") : ""));
  else if (cube && cube.awaiting === "cube") say(`${last && last.note ? last.note + " " : ""}Your turn: Double, or Roll.`);
  else if (cube && cube.awaiting === "answer") say(`The computer doubles to ${2 * cube.value}: Take or Pass?`);
  else if (state.dice) say(last ? `${last.note} Your turn.` : "Your turn: click a checker, then a highlighted point.");
  $("downloads").hidden = !state.turns;
  $("dl-bgrl").href = `/v1/games/${state.id}/record?format=bgrl`;
  $("dl-mat").href = `/v1/games/${state.id}/record?format=mat`;
  $("hints").hidden = true;
  render();
}

async function act(fn) {
  if (busy) return;
  busy = true;
  try { await fn(); } catch (e) { say(e.message); } finally { busy = false; render(); }
}

function onBoardClick(ev) {
  if (!S || !S.dice || S.over || busy) return;
  const hit = ev.target.closest("[data-hit]");
  if (!hit) return;
  const p = Number(hit.dataset.hit);
  if (selected !== null && targetsFrom(selected).has(p)) {
    made.push([selected, p]);
    selected = null;
    arrows = [];
    const done = complete();
    say(done ? `${done.play}: confirm, or undo.` : "Next checker.");
    // one checker left to move with only one choice of source: keep it picked up
    const srcs = sources();
    if (!done && srcs.size === 1) selected = [...srcs][0];
  } else if (targetsFrom(p).size) {
    selected = p;
  } else {
    if (selected !== null && p !== selected) say(`${p === 0 ? "off" : p === 25 ? "the bar" : p} is not a legal landing point for that checker.`);
    selected = null;
  }
  render();
}

function ask(text, yes) {
  pending = yes;
  $("ask-text").textContent = text;
  $("ask").hidden = false;
}

async function levels() {
  const v = await api("GET", "/v1/version");
  $("version").textContent = `v${v.version}`;
  const names = v.levels.map((l) => l.name);
  for (const [sel, def] of [[$("level"), "beginner"], [$("hint-level"), names[names.length - 1]]]) {
    sel.replaceChildren();
    for (const l of v.levels) {
      const o = document.createElement("option");
      o.value = l.name; o.textContent = `${l.name} (${l.ply}-ply)`;
      if (l.name === def) o.selected = true;
      sel.appendChild(o);
    }
  }
}

function fmt(x, d = 3) { return (x >= 0 ? "+" : "") + x.toFixed(d); }

function hintArrows(row) { return row.steps.map(([f, t]) => ({ from: f, to: t, cls: "hint" })); }

let lastHint = null;
function showHints(h) {
  lastHint = h;
  const box = $("hints");
  box.hidden = false;
  box.replaceChildren();
  const title = document.createElement("h3");
  title.textContent = `Hints: level ${h.level} (${h.ply}-ply), ${h.legal_plays} legal plays`;
  box.appendChild(title);
  const t = document.createElement("table");
  t.id = "hint-table";
  t.innerHTML = "<thead><tr><th>#</th><th>play</th><th>ply</th><th>equity</th><th>vs best</th><th>win / gammon / lose gammon</th></tr></thead>";
  const tb = document.createElement("tbody");
  h.plays.forEach((r, i) => {
    const tr = document.createElement("tr");
    tr.dataset.row = i;
    const p = r.probabilities;
    const w = p.win - p.win_gammon, wg = p.win_gammon, lg = p.lose_gammon, l = 1 - p.win - p.lose_gammon;
    tr.innerHTML = `<td>${r.rank}</td><td>${r.play}</td><td>${r.ply}</td><td>${fmt(r.equity)}</td><td>${i ? fmt(-r.equity_loss) : ""}</td>` +
      `<td><div class="bars" title="win ${(100 * p.win).toFixed(1)}%, gammon ${(100 * p.win_gammon).toFixed(1)}%, lose gammon ${(100 * p.lose_gammon).toFixed(1)}%">` +
      `<span class="b-wg" style="width:${100 * wg}%"></span><span class="b-w" style="width:${100 * w}%"></span>` +
      `<span class="b-l" style="width:${100 * l}%"></span><span class="b-lg" style="width:${100 * lg}%"></span></div>` +
      `<span class="pct">${(100 * p.win).toFixed(1)}% / ${(100 * p.win_gammon).toFixed(1)}% / ${(100 * p.lose_gammon).toFixed(1)}%</span></td>`;
    tr.addEventListener("click", () => {
      tb.querySelectorAll("tr").forEach((x) => x.classList.remove("selected"));
      tr.classList.add("selected");
      made = []; selected = null;
      arrows = hintArrows(r);
      showWhy(r);
      render();
    });
    tb.appendChild(tr);
  });
  t.appendChild(tb);
  box.appendChild(t);
  const why = document.createElement("ul");
  why.id = "why";
  box.appendChild(why);
  if (h.plays.length) { tb.firstChild.classList.add("selected"); made = []; selected = null; arrows = hintArrows(h.plays[0]); showWhy(h.plays[0]); }
  render();
}

function showWhy(row) {
  const ul = $("why");
  ul.replaceChildren();
  for (const s of row.why || []) { const li = document.createElement("li"); li.textContent = s; ul.appendChild(li); }
}

function showReview(rv) {
  const box = $("review-panel");
  box.hidden = false;
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = `Review by ${rv.judge} (${rv.ply}-ply): your equity after each turn`;
  box.appendChild(h);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.id = "chart";
  const Wd = 800, Ht = 260, M = 36;
  svg.setAttribute("viewBox", `0 0 ${Wd} ${Ht}`);
  const n = rv.turns.length;
  const top = Math.max(1, ...rv.turns.map((t) => Math.abs(t.equity)));
  const X = (i) => M + (n > 1 ? (i * (Wd - 2 * M)) / (n - 1) : (Wd - 2 * M) / 2);
  const Y = (e) => Ht / 2 - (e / top) * (Ht / 2 - 20);
  const mk = (name, attrs) => { const e = document.createElementNS(NS, name); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); svg.appendChild(e); return e; };
  mk("line", { class: "axis", x1: M, x2: Wd - M, y1: Y(0), y2: Y(0) });
  for (const v of [top, -top]) { const t = mk("text", { class: "axis-text", x: 2, y: Y(v) + 4 }); t.textContent = fmt(v, 1); }
  mk("polyline", { class: "line", points: rv.turns.map((t, i) => `${X(i)},${Y(t.equity)}`).join(" ") });
  rv.turns.forEach((t, i) => {
    const c = mk("circle", { class: `pt ${t.player}${t.mark ? " mark mark-" + t.mark.replace(" ", "-") : ""}`, cx: X(i), cy: Y(t.equity), r: t.mark ? 7 : 4, "data-turn": t.turn });
    const tip = document.createElementNS(NS, "title");
    tip.textContent = `turn ${t.turn} (${t.player}) ${t.dice[0]}-${t.dice[1]}: ${t.play || "no play"}` + (t.mark ? ` — ${t.mark}, best ${t.best} (−${t.equity_loss.toFixed(3)})` : "");
    c.appendChild(tip);
    c.addEventListener("click", () => showTurn(t));
  });
  box.appendChild(svg);
  const legend = document.createElement("p");
  legend.className = "legend";
  legend.innerHTML = '<span><i class="sw" style="background:#1e88e5"></i>your turn</span><span><i class="sw" style="background:#888"></i>the computer\'s</span>' +
    '<span><i class="sw" style="background:#fbc02d"></i>doubtful</span><span><i class="sw" style="background:#fb8c00"></i>bad</span><span><i class="sw" style="background:#d32f2f"></i>very bad</span>';
  box.appendChild(legend);
  const tab = document.createElement("table");
  tab.id = "review-summary";
  tab.innerHTML = "<thead><tr><th>player</th><th>decisions</th><th>error rate (mpp)</th><th>rating</th><th>doubtful</th><th>bad</th><th>very bad</th></tr></thead>";
  const tb = document.createElement("tbody");
  for (const [who, s] of Object.entries(rv.players)) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${who}</td><td>${s.decisions}</td><td>${s.error_rate === null ? "-" : s.error_rate.toFixed(1)}</td><td>${s.rating || "-"}</td>` +
      `<td>${s.marks.doubtful}</td><td>${s.marks.bad}</td><td>${s.marks["very bad"]}</td>`;
    tb.appendChild(tr);
  }
  tab.appendChild(tb);
  box.appendChild(tab);
  const info = document.createElement("p");
  info.id = "turn-info";
  info.textContent = "Click a point of the chart to see that turn: the play made in red, the best play in blue.";
  box.appendChild(info);
}

function showTurn(t) {
  const mine = t.player === "you";
  const b = t.board;
  arrows = t.play_steps.map(([f, to]) => ({ from: f, to, cls: "played", mine }))
    .concat(t.best && t.best !== t.play ? t.best_steps.map(([f, to]) => ({ from: f, to, cls: "hint", mine })) : []);
  drawBoard($("board"), b, { colour: S.colour, off: t.off, pips: pips(b), arrows, targets: new Set() });
  $("turn-info").textContent = `Turn ${t.turn} (${t.player}), ${t.dice[0]}-${t.dice[1]}: played ${t.play || "no play"}` +
    (t.best && t.best !== t.play ? `; best ${t.best}, loss ${t.equity_loss.toFixed(3)}${t.mark ? " (" + t.mark + ")" : ""}` : "") + ".";
}

// the doubling cube (docs/cube.md): buttons, its line of text and the cube drawn in the tray
function renderCube() {
  const c = S && S.cube;
  $("cube-buttons").hidden = !c;
  $("cube-text").textContent = c ? c.text : "";
  const svg = $("board");
  const old = svg.querySelector("#cube");
  if (old) old.remove();
  if (!c) return;
  $("cube-double").disabled = busy || !c.may_double;
  $("cube-roll").disabled = busy || c.awaiting !== "cube";
  $("cube-take").disabled = busy || c.awaiting !== "answer";
  $("cube-pass").disabled = busy || c.awaiting !== "answer";
  $("cube-beaver").hidden = !c.beavers;
  $("cube-beaver").disabled = busy || !c.may_beaver;
  $("next-game").disabled = busy || !S.over || c.match_over;
  if (c.crawford) return;  // no cube in the Crawford game
  const NS = "http://www.w3.org/2000/svg";
  const y = c.owner === "you" ? 330 : c.owner === "computer" ? 110 : 213;
  const g = document.createElementNS(NS, "g");
  g.setAttribute("id", "cube");
  g.setAttribute("data-value", String(c.value));
  g.setAttribute("data-owner", c.owner || "centre");
  const r = document.createElementNS(NS, "rect");
  for (const [k, v] of Object.entries({ x: 713, y, width: 44, height: 44, rx: 6, class: "cube" })) r.setAttribute(k, v);
  const t = document.createElementNS(NS, "text");
  for (const [k, v] of Object.entries({ x: 735, y: y + 29, "text-anchor": "middle", class: "cube-value" })) t.setAttribute(k, v);
  t.textContent = String(c.value === 1 ? 64 : c.value);  // a centred cube shows 64, as on a real board
  g.append(r, t);
  svg.appendChild(g);
}

function cubeAct(action) {
  return act(async () => {
    const before = S.events.length ? S.events[S.events.length - 1] : null;
    const r = await api("POST", `/v1/games/${S.id}/${action}`);
    const st = r.state || r;
    const k = before && action !== "next" ? st.events.findIndex((e) => JSON.stringify(e) === JSON.stringify(before)) : -1;
    st.events_new = action === "next" ? st.events : st.events.slice(k + 1);
    show(st);
  });
}

function start() {
  act(async () => {
    $("log").replaceChildren();
    $("review-panel").hidden = true;
    const mode = $("cube-mode").value;
    const cube = mode ? { cube: true, match_length: mode === "match" ? Number($("match-length").value) : 0 } : {};
    const st = await api("POST", "/v1/games", { level: $("level").value, colour: $("colour").value,
      opening_roll: $("opening").checked, hint_level: $("hint-level").value, ...cube });
    st.events_new = st.events;
    log(`New game against ${st.level}; you play ${st.colour}. Hints and judgement: ${st.hint_level}.`);
    show(st);
  });
}

function wire() {
  $("board").addEventListener("click", onBoardClick);
  $("new-game").addEventListener("click", start);
  $("undo").addEventListener("click", () => { made.pop(); selected = null; arrows = []; say("Undone."); render(); });
  $("confirm").addEventListener("click", () => act(async () => {
    const play = complete();
    if (!play) return;
    const before = S.events.length ? S.events[S.events.length - 1] : null;
    const st = await api("POST", `/v1/games/${S.id}/play`, { position_id: play.position_id });
    const k = before ? st.events.findIndex((e) => JSON.stringify(e) === JSON.stringify(before)) : -1;
    st.events_new = st.events.slice(k + 1);
    show(st);
  }));
  $("hint").addEventListener("click", () => act(async () => showHints(await api("POST", `/v1/games/${S.id}/hint`, { level: $("hint-level").value, top: 10 }))));
  $("resign").addEventListener("click", () => ask(`Resign a ${$("resign-value").value}?`, () => act(async () => {
    const r = await api("POST", `/v1/games/${S.id}/resign`, { value: $("resign-value").value });
    log(r.reason);
    r.state.events_new = [];
    show(r.state);
    say(r.reason);
  })));
  $("draw").addEventListener("click", () => ask("Offer a draw?", () => act(async () => {
    const r = await api("POST", `/v1/games/${S.id}/draw`);
    log(r.reason);
    r.state.events_new = [];
    show(r.state);
    say(r.reason);
  })));
  for (const a of ["double", "roll", "take", "pass", "beaver"]) $(`cube-${a}`).addEventListener("click", () => cubeAct(a));
  $("next-game").addEventListener("click", () => cubeAct("next"));
  $("cube-mode").addEventListener("change", () => { $("match-label").hidden = $("cube-mode").value !== "match"; });
  $("match-label").hidden = true;
  $("ask-yes").addEventListener("click", () => { $("ask").hidden = true; const f = pending; pending = null; if (f) f(); });
  $("ask-no").addEventListener("click", () => { $("ask").hidden = true; pending = null; say("Cancelled."); });
  $("review").addEventListener("click", () => act(async () => {
    say("Reviewing…");
    showReview(await api("POST", `/v1/games/${S.id}/review`, { level: $("hint-level").value }));
    say("Review ready.");
  }));
}

wire();
// read-only hooks for the browser tests (tests/test_web_browser.py)
window.bgrl = { state: () => S, made: () => made.slice(), targetsFrom: (p) => [...targetsFrom(p)], lastHint: () => lastHint };
levels().then(render).catch((e) => say(e.message));
