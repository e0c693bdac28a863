// The web board: a game against a level through /v1/games (docs/web.md).
import { drawBoard } from "./board.js";

const $ = (id) => document.getElementById(id);
let S = null;          // the session state from the server
let made = [];         // steps [from, to] made this turn
let selected = null;   // the point whose top checker is picked up
let arrows = [];       // arrows drawn on the board
let pending = null;    // the action waiting for a confirmation
let busy = false;
let animating = null;  // the computer's play being stepped on the board: {steps, shown}
let lastAnimation = null;
let drag = null;       // a checker being dragged: {from, x, y, moving}
let suppressClick = false;
let reviewView = null; // the review on show: {viewer colour}
let editing = null;    // the board being edited (26 ints, the player's view, the player on roll), or null

// One request to the server. The player token travels as the HttpOnly cookie bgrl_player
// (set by POST /v1/games, sent back by the browser on same-origin requests): the page never
// sees it. An error answer throws an Error with the server's message, its status and code.
async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  // a command on the game shown names the version it was made on: a stale tab gets 409 and reads the game again
  if (method === "POST" && S && S.id && S.version != null && path.startsWith(`/v1/games/${encodeURIComponent(S.id)}/`)) {
    headers["If-Match"] = String(S.version);
  }
  const r = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let j = null;
  try { j = await r.json(); } catch (e) { j = null; }
  if (!r.ok) {
    const err = new Error((j && j.message) || `${r.status} ${r.statusText}`);
    err.status = r.status;
    err.code = j && j.code;
    throw err;
  }
  return j;
}

// ---- the current game, remembered across reloads (and server restarts: games are kept in the store)
const GAME_KEY = "bgrl.game";
function remember(id) { try { if (id) localStorage.setItem(GAME_KEY, id); else localStorage.removeItem(GAME_KEY); } catch (e) { /* no storage */ } }
function remembered() { try { return localStorage.getItem(GAME_KEY); } catch (e) { return null; } }

function say(text) { $("message").textContent = text || ""; }

function log(text) {
  if (!text) return;
  const li = document.createElement("li");
  li.textContent = text;
  $("log").prepend(li);
}

// the board after the steps made so far (hits move the computer's blot to its bar)
function current() {
  if (!S) return { b: START.slice(), off: { you: 0, computer: 0 } };  // before any game: the start position
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

// ---- the board editor: click points to add or remove checkers, then play or analyse from it
const START = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];

function onBoard(b, side) {  // checkers of a side on the board and the bar
  let n = 0;
  for (let p = 0; p <= 25; p++) if (side === "you" ? b[p] > 0 : b[p] < 0) n += Math.abs(b[p]);
  return n;
}

function editClick(p) {
  const b = editing, tool = $("edit-tool").value;
  if (p === 0) return;  // the trays hold what is not on the board
  if (tool === "remove") {
    if (p === 25) { if (b[25] > 0) b[25] -= 1; else if (b[0] < 0) b[0] += 1; }
    else if (b[p] > 0) b[p] -= 1; else if (b[p] < 0) b[p] += 1;
  } else if (tool === "you") {
    if (onBoard(b, "you") >= 15) { say("All 15 of your checkers are on the board: remove one first."); return; }
    if (p === 25) b[25] += 1;
    else if (b[p] < 0) { say(`Point ${p} holds the computer's checkers: remove them first.`); return; }
    else b[p] += 1;
  } else {
    if (onBoard(b, "computer") >= 15) { say("All 15 of the computer's checkers are on the board: remove one first."); return; }
    if (p === 25) b[0] -= 1;  // the bar area: the computer's bar
    else if (b[p] > 0) { say(`Point ${p} holds your checkers: remove them first.`); return; }
    else b[p] -= 1;
  }
  say(`Editing: ${onBoard(b, "you")} of your checkers and ${onBoard(b, "computer")} of the computer's on the board; the rest are borne off.`);
  render();
}

function setEditing(on) {
  editing = on ? (S ? current().b.slice() : START.slice()) : null;
  $("edit-board").setAttribute("aria-pressed", on ? "true" : "false");
  $("edit-board").textContent = on ? "Stop editing" : "Edit board";
  $("edit-tools").hidden = !on;
  arrows = [];
  say(on ? "Editing the board: click a point (or the bar) to add or remove a checker; then Play from here or Analyse." : "");
  render();
}

function render() {
  if (animating) return;  // the computer's play is being stepped: the last frame stays until it ends
  if (editing) {
    const off = { you: 15 - onBoard(editing, "you"), computer: 15 - onBoard(editing, "computer") };
    drawBoard($("board"), editing, { colour: $("colour").value, off, pips: pips(editing), targets: new Set(), arrows: [] });
    document.body.dataset.state = "editing";
    return;
  }
  const { b, off } = current();
  const playing = S && S.dice && !S.over;
  const targets = playing && selected !== null ? targetsFrom(selected) : new Set();
  drawBoard($("board"), b, { colour: S ? S.colour : "white", off, pips: pips(b), selected, targets,
    sources: playing ? sources() : new Set(), arrows });
  $("dice").textContent = S && S.dice ? `Your roll: ${S.dice[0]}-${S.dice[1]}` : "";
  $("undo").disabled = !playing || made.length === 0;
  $("confirm").disabled = !playing || !complete();
  $("hint").disabled = busy || !(playing || cubeDecision());
  $("resign").disabled = !S || !!S.over;
  $("resign-value").disabled = !S || !!S.over;
  $("draw").hidden = !!(S && S.cube && S.cube.match_length > 0);  // no draws in a match
  $("draw").disabled = !S || !S.may_draw;
  $("review").disabled = !S || !S.over || !(S.turns > 0 || (S.cube && S.cube.game > 1));
  renderCube();
  $("pid").value = S ? S.position_id : "";
  $("xgid").value = S && S.xgid ? S.xgid : "";
  document.body.dataset.state = !S ? "setup" : S.over ? "over" : playing ? "your-turn" : "waiting";
}

// a cube decision of the player: before the roll (Double or Roll) or facing the computer's double (Take or Pass)
function cubeDecision() {
  const c = S && S.cube;
  return !!(c && !S.over && (c.awaiting === "cube" || c.may_answer));
}

function show(state, notes = true, animateIt = true) {
  S = state;
  remember(state.id);
  made = []; selected = null;
  arrows = [];
  if (notes) for (const e of state.events_new || []) log(e.note);
  const last = state.last_computer;
  if (last && last.steps && last.steps.length && !state.over) arrows = last.steps.map(([f, t]) => ({ from: f, to: t, cls: "comp", mine: false }));
  const cube = state.cube;
  if (state.over) say(state.over.text + (cube ? (cube.match_over ? " The match is over." : " Next game when you are ready.") : ""));
  else if (cube && cube.awaiting === "cube") say(`${last && last.note ? last.note + " " : ""}Your turn: Double, or Roll.`);
  else if (cube && cube.awaiting === "answer") say(`The computer doubles to ${2 * cube.value}: Take or Pass?`);
  else if (state.dice) say(last ? `${last.note} Your turn.` : "Your turn: click or drag a checker to a highlighted point.");
  $("downloads").hidden = !(state.turns || (state.cube && state.cube.game > 1));
  $("dl-bgrl").href = `/v1/games/${state.id}/record?format=bgrl`;
  $("dl-mat").href = `/v1/games/${state.id}/record?format=mat`;
  $("dl-mat-part").hidden = !!state.set_up;  // .mat always starts from the opening position (no dangling separator)
  $("hints").hidden = true;
  render();
  const fresh = (state.events_new || []).filter((e) => e.who === "computer" && e.steps && e.steps.length && e.before);
  if (notes && animateIt && fresh.length) animate(fresh[fresh.length - 1]);
  if (!$("games-panel").hidden) loadGames();
}

// the game in the store: read it again and show it (on load, after a conflict, from My games)
async function resume(id, quiet = false) {
  const st = await api("GET", `/v1/games/${encodeURIComponent(id)}`);
  if (editing) setEditing(false);
  $("log").replaceChildren();
  $("review-panel").hidden = true;
  st.events_new = st.events;
  show(st, true, false);
  for (const [sel, v] of [["level", st.level], ["colour", st.colour], ["hint-level", st.hint_level]]) if (v) $(sel).value = v;
  // the set-up bar shows the kind of the game resumed (its cube and match length), as when it was started
  const c = st.cube;
  $("cube-mode").value = !c ? "" : (c.match_length ? "match" : "money");
  if (c && c.match_length) $("match-length").value = c.match_length;
  $("match-label").hidden = $("cube-mode").value !== "match";
  if (!quiet) log(`Game ${st.id} continued: you play ${st.colour} against ${st.level}.`);
  return st;
}

// The computer's play stepped checker by checker on the board, in the player's numbering:
// from the board before it (ev.before, the player's view), one step [from, to, hit] at a
// time (25 = the computer's bar, 0 = borne off, as seen by the computer), each with its arrow.
const STEP_MS = 450;
function stepBoard(b, off, [f, t]) {
  if (f === 25) b[0] += 1; else b[f] += 1;            // the computer's checkers are negative in the player's view
  if (t === 0) { off.computer += 1; return; }
  if (b[t] === 1) { b[t] = 0; b[25] += 1; }           // a hit: the player's blot goes to the bar
  b[t] -= 1;
}

async function animate(ev) {
  const b = ev.before.slice();
  let onBoard = 0;
  for (let p = 0; p <= 24; p++) if (b[p] < 0) onBoard -= b[p];
  const off = { you: S.board.off.you, computer: 15 - onBoard };
  const me = S.colour;
  const frames = [];
  const draw = (k) => {
    const arrowsNow = ev.steps.slice(0, k).map(([f, t]) => ({ from: f, to: t, cls: "comp", mine: false }));
    drawBoard($("board"), b, { colour: me, off, pips: pips(b), arrows: arrowsNow, targets: new Set() });
    frames.push(b.slice());
  };
  animating = { steps: ev.steps };
  document.body.dataset.animating = "1";
  try {
    draw(0);
    for (let k = 0; k < ev.steps.length; k++) {
      await new Promise((r) => setTimeout(r, window.bgrlStepMs ?? STEP_MS));
      stepBoard(b, off, ev.steps[k]);
      draw(k + 1);
    }
    await new Promise((r) => setTimeout(r, window.bgrlStepMs ?? STEP_MS));
  } finally {
    animating = null;
    delete document.body.dataset.animating;
    lastAnimation = { steps: ev.steps, frames };
    render();
  }
}

async function act(fn) {
  if (busy) return;
  busy = true;
  try {
    await fn();
  } catch (e) {
    say(e.message);
    if (e.code === "conflict" && S) {  // another tab or request changed the game: show it as stored
      try { await resume(S.id, true); say(`${e.message} The game was read again.`); } catch (e2) { say(e2.message); }
    }
  } finally { busy = false; render(); }
}

function moveSelectedTo(p) {
  made.push([selected, p]);
  selected = null;
  arrows = [];
  const done = complete();
  say(done ? `${done.play}: confirm, or undo.` : "Next checker.");
  // one checker left to move with only one choice of source: keep it picked up
  const srcs = sources();
  if (!done && srcs.size === 1) selected = [...srcs][0];
}

const canMove = () => S && S.dice && !S.over && !busy && !animating;

// drag: press on a checker that can move, move the pointer, release on a highlighted point
function pointAt(x, y) {
  const e = document.elementFromPoint(x, y);
  const hit = e && e.closest ? e.closest("#board [data-hit]") : null;
  return hit ? Number(hit.dataset.hit) : null;
}

function onPointerDown(ev) {
  suppressClick = false;
  if (editing || !canMove()) return;
  const hit = ev.target.closest("[data-hit]");
  if (!hit) return;
  const p = Number(hit.dataset.hit);
  if (targetsFrom(p).size) drag = { from: p, x: ev.clientX, y: ev.clientY, moving: false };
}

function onPointerMove(ev) {
  if (!drag) return;
  if (!drag.moving && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 8) {
    drag.moving = true;
    selected = drag.from;
    render();
  }
}

function onPointerUp(ev) {
  const d = drag;
  drag = null;
  if (!d || !d.moving) return;
  suppressClick = true;
  const p = pointAt(ev.clientX, ev.clientY);
  if (p !== null && p !== d.from && targetsFrom(d.from).has(p)) {
    selected = d.from;
    moveSelectedTo(p);
  } else {
    if (p !== null && p !== d.from) say(`${p === 0 ? "off" : p === 25 ? "the bar" : p} is not a legal landing point for that checker.`);
    selected = null;
  }
  render();
}

function onBoardClick(ev) {
  if (suppressClick) { suppressClick = false; return; }
  if (editing) { const h = ev.target.closest("[data-hit]"); if (h) editClick(Number(h.dataset.hit)); return; }
  if (!canMove()) return;
  const hit = ev.target.closest("[data-hit]");
  if (!hit) return;
  const p = Number(hit.dataset.hit);
  if (selected !== null && targetsFrom(selected).has(p)) {
    moveSelectedTo(p);
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
  // the hint level defaults to the judge (bgrl.agents.levels.JUDGE_LEVEL: world-class, the strongest 1-ply level)
  const judge = names.includes("world-class") ? "world-class" : names[names.length - 1];
  for (const [sel, def] of [[$("level"), "beginner"], [$("hint-level"), judge]]) {
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
  // in a match the plays are ranked by match winning chances, with the cube by cubeful equity
  const first = h.plays[0] || {};
  const byMwc = first.mwc !== undefined, byCubeful = !byMwc && first.cubeful_equity !== undefined;
  title.textContent = `Hints: level ${h.level} (${h.ply}-ply), ${h.legal_plays} legal plays` + (h.ranked_by ? `, ranked by ${h.ranked_by}` : "");
  box.appendChild(title);
  const t = document.createElement("table");
  t.id = "hint-table";
  t.appendChild(thead(["#", "play", "ply", byMwc ? "MWC" : byCubeful ? "cubeful equity" : "equity", "vs best", "win / gammon / lose gammon"]));
  const tb = document.createElement("tbody");
  h.plays.forEach((r, i) => {
    const p = r.probabilities;
    const w = p.win - p.win_gammon, wg = p.win_gammon, lg = p.lose_gammon, l = 1 - p.win - p.lose_gammon;
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    const bars = node("div", { class: "bars", title: `win ${pct(p.win)}, gammon ${pct(p.win_gammon)}, lose gammon ${pct(p.lose_gammon)}` });
    for (const [cls, x] of [["b-wg", wg], ["b-w", w], ["b-l", l], ["b-lg", lg]]) {
      const b = node("span", { class: cls });
      b.style.width = `${100 * x}%`;  // CSSOM, not a style attribute: allowed by the page's CSP (style-src 'self')
      bars.appendChild(b);
    }
    const chart = document.createDocumentFragment();
    chart.append(bars, node("span", { class: "pct" }, `${pct(p.win)} / ${pct(p.win_gammon)} / ${pct(p.lose_gammon)}`));
    const value = byMwc ? pct(r.mwc) : byCubeful ? fmt(r.cubeful_equity) : fmt(r.equity);
    const loss = !i ? "" : byMwc ? `${(100 * (r.mwc - first.mwc)).toFixed(1)}%` : byCubeful ? fmt(-r.cubeful_loss) : fmt(-r.equity_loss);
    const tr = row([r.rank, r.play, r.ply, value, loss, chart]);
    tr.dataset.row = i;
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

// The cube hint (POST .../hint at a cube decision): the advice and the cubeful equities
// behind it, from the player's side; in a match the match winning chances (MWC) too.
const CUBE_ROWS = { "no double": "no_double", "too good to double": "no_double", "double, take": "double_take", "double, pass": "double_pass" };
function showCubeHint(h) {
  lastHint = h;
  const c = h.cube, box = $("hints"), match = !!c.mwc;
  box.hidden = false;
  box.replaceChildren();
  box.appendChild(node("h3", {}, `Cube hint: level ${h.level} (${h.ply}-ply), ` +
    (c.match_length ? `${c.match_length}-point match` : "money play") + (c.role === "answer" ? ", the computer's double" : ", before your roll")));
  box.appendChild(node("p", { id: "cube-advice", "data-advice": c.advice }, c.text));
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const t = node("table", { id: "cube-hint-table", "data-role": c.role });
  t.appendChild(node("caption", {}, `Your cubeful equity per unit of the stake now (the cube at ${c.cube_value})` + (match ? ", and your match winning chance" : "")));
  t.appendChild(thead(match ? ["action", "your equity", "your MWC"] : ["action", "your equity"]));
  const tb = document.createElement("tbody");
  const rows = c.role === "answer"
    // the computer doubled: its figures negated are the player's
    ? [["take", "Take", -c.equities.double_take, match ? 1 - c.mwc.double_take : null],
       ["pass", "Pass", -c.equities.double_pass, match ? 1 - c.mwc.double_pass : null]]
    : [["no_double", "No double: roll", c.equities.no_double, match ? c.mwc.no_double : null],
       ["double_take", "Double, the computer takes", c.equities.double_take, match ? c.mwc.double_take : null],
       ["double_pass", "Double, the computer passes", c.equities.double_pass, match ? c.mwc.double_pass : null]];
  const advised = c.role === "answer" ? (c.advice === "pass" ? "pass" : "take") : CUBE_ROWS[c.decision];
  for (const [key, label, eq, mwc] of rows) {
    const tr = row(match ? [label, fmt(eq), pct(mwc)] : [label, fmt(eq)]);
    tr.dataset.key = key;
    if (key === advised) tr.classList.add("advised");
    tb.appendChild(tr);
  }
  t.appendChild(tb);
  box.appendChild(t);
  if (c.role === "answer") {
    const e = c.equities;
    box.appendChild(node("p", { id: "cube-doubler" }, `The computer's side (the doubler): no double ${fmt(e.no_double)}, double/take ${fmt(e.double_take)}, ` +
      `double/pass ${fmt(e.double_pass)}` + (match ? `; MWC ${pct(c.mwc.no_double)}, ${pct(c.mwc.double_take)}, ${pct(c.mwc.double_pass)}` : "") +
      `: ${c.decision}.`));
  }
  arrows = [];
  render();
}

function showReview(rv, title = null, before = null) {
  const box = $("review-panel");
  box.hidden = false;
  box.replaceChildren();
  reviewView = { viewer: rv.viewer || (S ? S.colour : "white") };
  if (before) box.appendChild(before);
  const h = document.createElement("h3");
  h.textContent = title || `Review by ${rv.judge} (${rv.ply}-ply): your equity after each turn`;
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
    const c = mk("circle", { class: `pt ${t.mine ? "you" : "computer"}${t.mark ? " mark mark-" + t.mark.replace(" ", "-") : ""}`, cx: X(i), cy: Y(t.equity), r: t.mark ? 7 : 4, "data-turn": t.turn });
    const tip = document.createElementNS(NS, "title");
    tip.textContent = `turn ${t.turn} (${t.player}) ${t.dice[0]}-${t.dice[1]}: ${t.play || "no play"}` + (t.mark ? ` — ${t.mark}, best ${t.best} (−${t.equity_loss.toFixed(3)})` : "");
    c.appendChild(tip);
    c.addEventListener("click", () => showTurn(t));
  });
  box.appendChild(svg);
  const legend = document.createElement("p");
  legend.className = "legend";
  const names = S && rv.viewer === undefined ? ["your turn", "the computer's"]
    : [`${rv.viewer === "black" ? rv.black : rv.white} (${rv.viewer})`, `${rv.viewer === "black" ? rv.white : rv.black}`];
  for (const [colour, text] of [["#1e88e5", names[0]], ["#888", names[1]], ["#fbc02d", "doubtful"], ["#fb8c00", "bad"], ["#d32f2f", "very bad"]]) {
    const sw = node("i", { class: "sw" });
    sw.style.background = colour;
    const item = node("span");
    item.append(sw, String(text));  // a player's name from an uploaded file: text, never markup
    legend.appendChild(item);
  }
  box.appendChild(legend);
  const tab = document.createElement("table");
  tab.id = "review-summary";
  tab.appendChild(thead(["player", "decisions", "error rate (mpp)", "rating", "doubtful", "bad", "very bad"]));
  const tb = document.createElement("tbody");
  for (const [who, s] of Object.entries(rv.players)) {
    tb.appendChild(row([who, s.decisions, s.error_rate === null ? "-" : s.error_rate.toFixed(1), s.rating || "-",
      s.marks.doubtful, s.marks.bad, s.marks["very bad"]]));
  }
  tab.appendChild(tb);
  box.appendChild(tab);
  const info = document.createElement("p");
  info.id = "turn-info";
  info.textContent = "Click a point of the chart to see that turn: the play made in red, the best play in blue.";
  box.appendChild(info);
  const why = document.createElement("ul");
  why.id = "turn-why";
  box.appendChild(why);
}

// Elements built from data: every text from the server (player names from uploaded files
// included) goes in as a text node, never parsed as HTML (no innerHTML anywhere on the page).
function node(tag, attrs = {}, text = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = String(text);
  return e;
}

function thead(names) {
  const h = document.createElement("thead");
  const tr = document.createElement("tr");
  for (const n of names) tr.appendChild(node("th", {}, n));
  h.appendChild(tr);
  return h;
}

// a table row: each cell a text, or a node (a fragment) put in as it is
function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? "" : String(c);
    tr.appendChild(td);
  }
  return tr;
}

function showTurn(t) {
  const mine = t.mine;
  const b = t.board;
  arrows = t.play_steps.map(([f, to]) => ({ from: f, to, cls: "played", mine }))
    .concat(t.best && t.best !== t.play ? t.best_steps.map(([f, to]) => ({ from: f, to, cls: "hint", mine })) : []);
  drawBoard($("board"), b, { colour: reviewView ? reviewView.viewer : S.colour, off: t.off, pips: pips(b), arrows, targets: new Set() });
  const ul = $("turn-why");
  ul.replaceChildren();
  for (const s of t.why || []) { const li = document.createElement("li"); li.textContent = s; ul.appendChild(li); }
  $("turn-info").textContent = `Turn ${t.turn} (${t.player}), ${t.dice[0]}-${t.dice[1]}: played ${t.play || "no play"}` +
    (t.best && t.best !== t.play ? `; best ${t.best}, loss ${t.equity_loss.toFixed(3)}${t.mark ? " (" + t.mark + ")" : ""}` : "") + ".";
}

// the doubling cube (docs/cube.md): buttons, its line of text and the cube drawn in the tray
function signed(x) { return x > 0 ? `+${x}` : x < 0 ? `\u2212${-x}` : "0"; }

// the score of a cube session: match points (never above the match length), or the money won
function scoreText(c) {
  if (c.match_length) {
    const stage = c.crawford ? ", the Crawford game" : c.post_crawford ? ", post-Crawford" : "";
    const end = c.match_over ? ` The match is over: ${c.match_winner === "you" ? "you win" : "the computer wins"}.` : "";
    return `Score: you ${c.score.you}, the computer ${c.score.computer} (${c.match_length}-point match, game ${c.game}${stage}).${end}`;
  }
  return `Money session, game ${c.game}: you ${signed(c.score.you)}, the computer ${signed(c.score.computer)} points.`;
}

function renderCube() {
  const c = S && S.cube;
  $("cube-buttons").hidden = !c;  // a cubeless game has no cube buttons ([hidden] wins over .buttons' display)
  $("cube-text").textContent = c ? c.text : "";
  $("score").hidden = !c;
  $("score").textContent = c ? scoreText(c) : "";
  const svg = $("board");
  const old = svg.querySelector("#cube");
  if (old) old.remove();
  if (!c) return;
  $("cube-double").disabled = busy || !c.may_double;
  $("cube-roll").disabled = busy || c.awaiting !== "cube";  // awaiting is null once the game is over
  $("cube-take").disabled = busy || !c.may_answer;
  $("cube-pass").disabled = busy || !c.may_answer;
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

// the Cube menu: no cube, money play with the cube, or a match to N points
function cubeOptions() {
  const mode = $("cube-mode").value;
  return mode ? { cube: true, match_length: mode === "match" ? Number($("match-length").value) : 0 } : {};
}

function start() {
  act(async () => {
    if (editing) setEditing(false);
    $("log").replaceChildren();
    $("review-panel").hidden = true;
    const st = await api("POST", "/v1/games", { level: $("level").value, colour: $("colour").value,
      opening_roll: $("opening").checked, hint_level: $("hint-level").value, ...cubeOptions() });
    st.events_new = st.events;
    log(`New game against ${st.level}; you play ${st.colour}. Hints: ${st.hint_level}; resignations and draws are judged by world-class.`);
    show(st);
  });
}

// ---- position entry: paste a Position ID or an XGID, play or analyse from it; copy either form
function startFrom(analyse) {
  act(async () => {
    const text = $("pos-input").value.trim();
    if (!text && !editing) { say("Paste a Position ID or an XGID first (you are on roll in it), or edit the board."); return; }
    const dice = $("pos-dice").value.replace(/[^1-6]/g, "");
    const body = { level: $("level").value, colour: $("colour").value, hint_level: $("hint-level").value, ...cubeOptions() };
    if (editing) body.board = editing.slice(); else body.position = text;
    if (dice.length === 2) body.dice = [Number(dice[0]), Number(dice[1])];
    else if ($("pos-dice").value.trim()) { say("Dice: two digits 1-6, e.g. 31 (or leave empty)."); return; }
    $("log").replaceChildren();
    $("review-panel").hidden = true;
    const st = await api("POST", "/v1/games", body);
    if (editing) setEditing(false);
    st.events_new = st.events;
    log(`Position ${st.position_id} set up; you play ${st.colour} against ${st.level}` +
      (st.cube ? (st.cube.match_length ? `, a ${st.cube.match_length}-point match.` : ", money play with the cube.") : "."));
    show(st);
    if (analyse && st.dice && st.plays.length) showHints(await api("POST", `/v1/games/${st.id}/hint`, { level: $("hint-level").value, top: 10 }));
  });
}

async function copyText(id, what) {
  const box = $(id);
  if (!box.value) return;
  try {
    await navigator.clipboard.writeText(box.value);
  } catch (e) {  // no clipboard API (a page not on localhost or https): select it for Ctrl-C
    box.select();
    try { document.execCommand("copy"); } catch (e2) { /* selected: the user copies */ }
  }
  box.select();
  say(`${what} copied: ${box.value}`);
}

// ---- review of an uploaded bgrl record or .mat file
function uploadReview() {
  const f = $("upload-file").files[0];
  if (!f) return;
  act(async () => {
    say(`Reviewing ${f.name}…`);
    const text = await f.text();
    const rv = await api("POST", "/v1/review/upload", { text, name: f.name, viewer: $("upload-viewer").value });
    lastUpload = rv;
    showUploadGame(rv, 0);
    say(`Review of ${f.name} ready: ${rv.games.length} game(s).`);
  });
}

// the cube decisions of a game: of an uploaded .mat game the actual ones and the close ones,
// as bgrl review lists them; of the player's own session (all: true) every one judged
function showCubeReview(g, all = false) {
  const box = $("review-panel");
  const h = document.createElement("h4");
  h.textContent = all ? "Cube decisions, judged (cubeful equities of the doubler per unit of the stake; in a match at the score)"
    : "Cube decisions (cubeful equities of the doubler per unit of the stake; actual or close ones)";
  const tab = document.createElement("table");
  tab.id = "cube-review";
  tab.appendChild(thead(["turn", "player", "action", "right", "no double", "double/take", "double/pass", "loss", "error"]));
  const tb = document.createElement("tbody");
  const shown = { double: (c) => `doubles to ${2 * c.cube.value}`, "no double": () => "does not double", take: () => "takes", pass: () => "passes" };
  for (const c of g.cube) {
    if (!all && !c.close && !c.error) continue;
    const what = (shown[c.action] || (() => c.action))(c);
    const e = c.equities;
    const tr = row([c.turn, c.player, what, c.right, fmt(e.no_double, 3), fmt(e.double_take, 3), fmt(e.double_pass, 3), c.loss.toFixed(3),
      c.error ? c.error + (c.mark ? ` (${c.mark})` : "") : ""]);
    if (c.error) tr.className = "cube-error";
    tr.dataset.action = c.action;
    tr.dataset.player = c.player;
    tb.appendChild(tr);
  }
  tab.appendChild(tb);
  const sum = document.createElement("table");
  sum.id = "cube-summary";
  sum.appendChild(thead(["player", "cube decisions", "cube error rate (mpp)", "rating"]));
  const sb = document.createElement("tbody");
  for (const [who, s] of Object.entries(g.cube_players || {})) {
    sb.appendChild(row([who, s.decisions, s.error_rate === null || s.error_rate === undefined ? "-" : s.error_rate.toFixed(1), s.rating || "-"]));
  }
  sum.appendChild(sb);
  const h2 = document.createElement("h4");
  h2.textContent = all ? "Cube error rates, all games of the session" : "Cube error rates, this game";
  box.append(h, tab, h2, sum);
}

let lastUpload = null;
function showUploadGame(rv, i) {
  const g = rv.games[i];
  let picker = null;
  if (rv.games.length > 1) {
    picker = document.createElement("label");
    picker.textContent = "Game ";
    const sel = document.createElement("select");
    sel.id = "upload-game";
    rv.games.forEach((x, k) => { const o = document.createElement("option"); o.value = k; o.textContent = `${k + 1}: ${x.white} vs ${x.black}`; if (k === i) o.selected = true; sel.appendChild(o); });
    sel.addEventListener("change", () => showUploadGame(rv, Number(sel.value)));
    picker.appendChild(sel);
  }
  showReview(g, `Review of ${rv.name}, game ${g.game}: ${g.white} (White) vs ${g.black} (Black), by ${rv.judge} (${rv.ply}-ply); ${g.viewer}'s equity after each turn`, picker);
  if (g.cube && g.cube.length) showCubeReview(g);
  if (rv.games.length > 1) {
    const tab = document.createElement("table");
    tab.id = "upload-summary";
    tab.appendChild(thead(["player, all games", "decisions", "error rate (mpp)", "rating"]));
    const tb = document.createElement("tbody");
    for (const [who, s] of Object.entries(rv.summary)) {
      tb.appendChild(row([who, s.decisions, s.error_rate === null ? "-" : s.error_rate.toFixed(1), s.rating || "-"]));
    }
    tab.appendChild(tb);
    $("review-panel").appendChild(tab);
  }
  if (g.turns.length) showTurn(g.turns[0]);
}

// ---- the review of the player's own session: each game's turns, every cube action judged, the match points
let lastReview = null;
const RESULT_NAMES = { 1: "single", 2: "gammon", 3: "backgammon" };
const HOW = { "bear-off": "bearing off", resign: "resignation", pass: "double passed", draw: "draw" };

function showSessionReview(rv, k = null) {
  lastReview = rv;
  const games = rv.games && rv.games.length ? rv.games : [rv];
  const i = k === null ? games.length - 1 : k;
  const g = games[i];
  let picker = null;
  if (games.length > 1) {
    picker = node("label", {}, "Game ");
    const sel = node("select", { id: "review-game" });
    games.forEach((x, n) => {
      const o = node("option", { value: n }, `${n + 1} of ${games.length} (${x.turns.length} turns)`);
      if (n === i) o.selected = true;
      sel.appendChild(o);
    });
    sel.addEventListener("change", () => showSessionReview(rv, Number(sel.value)));
    picker.appendChild(sel);
  }
  showReview(g, `Review by ${rv.judge} (${rv.ply}-ply)${games.length > 1 ? `, game ${i + 1} of ${games.length}` : ""}: your equity after each turn`, picker);
  if (g.cube) showCubeReview({ cube: g.cube, cube_players: rv.cube_summary || {} }, true);
  if (rv.match) showMatchReview(rv.match);
}

function showMatchReview(m) {
  const box = $("review-panel");
  const h = node("h4", { id: "match-score" }, m.match_length
    ? `${m.match_length}-point match: you ${m.score.you}, the computer ${m.score.computer} (match points)`
    : `Money session: you ${signed(m.score.you)}, the computer ${signed(m.score.computer)} points`);
  const tab = node("table", { id: "match-review" });
  tab.appendChild(thead(["game", "winner", "how", "result", "cube", "points"]));
  const tb = document.createElement("tbody");
  for (const x of m.games) {
    const tr = row([x.game, x.winner === null ? "nobody" : x.winner === "you" ? "you" : "the computer", HOW[x.how] || x.how,
      RESULT_NAMES[x.result] || x.result, x.cube, x.points]);
    tr.dataset.winner = x.winner === null ? "" : x.winner;
    tb.appendChild(tr);
  }
  tab.appendChild(tb);
  box.append(h, tab);
}

// ---- My games: the player's games in the store (GET /v1/games), newest first
function togglePanel(id, button, load) {
  const p = $(id);
  p.hidden = !p.hidden;
  $(button).setAttribute("aria-expanded", p.hidden ? "false" : "true");
  if (!p.hidden) load();
}

function gameKind(g) {
  return !g.cube ? "money, no cube" : g.match_length ? `${g.match_length}-point match` : "money, with the cube";
}

function when(epoch) {
  const d = new Date(epoch * 1000);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString();
}

let gamesLoading = null;
async function loadGames() {
  if (gamesLoading) return gamesLoading;
  gamesLoading = (async () => {
    const note = $("games-note"), tb = $("games-table").querySelector("tbody");
    try {
      const j = await api("GET", "/v1/games");
      tb.replaceChildren();
      note.textContent = j.games.length
        ? `${j.games.length} game${j.games.length > 1 ? "s" : ""}, newest first, kept on the server for this browser (its player cookie).`
        : "No games yet: start one with New game.";
      for (const g of j.games) tb.appendChild(gameRow(g));
    } catch (e) {
      note.textContent = `My games: ${e.message}`;
    } finally {
      gamesLoading = null;
    }
  })();
  return gamesLoading;
}

function gameRow(g) {
  const id = encodeURIComponent(g.id);
  const acts = document.createDocumentFragment();
  const open = node("button", { class: "small resume" }, g.finished ? "Show" : "Resume");
  open.addEventListener("click", () => act(async () => { await resume(g.id); $("play").scrollIntoView({ block: "start" }); }));
  if (!g.finished && g.served_here === false) {  // a terminal game against random, pubeval, a checkpoint...
    open.disabled = true;
    open.title = `Against ${g.level}: continue it in the terminal with bgrl play --resume ${g.id}`;
  }
  const rv = node("button", { class: "small review" }, "Review");
  rv.disabled = !g.turns;
  if (g.damaged) {  // its row in the store cannot be read (GET /v1/games: damaged, reason): it can only be deleted
    open.disabled = rv.disabled = true;
    open.title = rv.title = `Damaged in the store: ${g.reason}`;
  }
  rv.addEventListener("click", () => act(async () => {
    await resume(g.id, true);
    say("Reviewing…");
    showSessionReview(await api("POST", `/v1/games/${id}/review`, {}));
    say("Review ready.");
    $("review-panel").scrollIntoView({ block: "start" });
  }));
  const mat = node("a", { class: "dl-mat", href: `/v1/games/${id}/record?format=mat`, download: `bgrl-${g.id}.mat` }, ".mat");
  const rec = node("a", { class: "dl-bgrl", href: `/v1/games/${id}/record?format=bgrl`, download: `bgrl-${g.id}.jsonl` }, "bgrl record");
  for (const a of [mat, rec]) a.addEventListener("click", (ev) => { ev.preventDefault(); download(a); });
  const del = node("button", { class: "small delete" }, "Delete");
  del.addEventListener("click", () => {
    if (!del.classList.contains("armed")) {  // the first click asks, the second deletes
      del.classList.add("armed");
      del.textContent = "Delete: sure?";
      setTimeout(() => { del.classList.remove("armed"); del.textContent = "Delete"; }, 5000);
      return;
    }
    act(async () => {
      await api("DELETE", `/v1/games/${id}`);
      if (S && S.id === g.id) { S = null; remember(null); $("log").replaceChildren(); $("hints").hidden = true; $("review-panel").hidden = true; $("downloads").hidden = true; }
      say("Game deleted.");
      await loadGames();
    });
  });
  acts.append(open, rv, mat, rec, del);
  const tr = row([when(g.created_at), g.level, g.damaged ? "" : gameKind(g), g.turns,
    g.damaged ? "damaged" : g.finished ? "finished" : "in progress",
    g.result === null || g.result === undefined ? "" : signed(g.result), g.score ? `${g.score.you}\u2013${g.score.computer}` : "", acts]);
  tr.dataset.id = g.id;
  if (g.finished) tr.classList.add("finished");
  if (S && S.id === g.id) tr.classList.add("current");
  return tr;
}

// a record download through fetch: an error (e.g. .mat of a game from a set-up position) is
// said on the page instead of being saved as a file
async function download(a) {
  try {
    const r = await fetch(a.getAttribute("href"));
    if (!r.ok) {
      let msg = `${r.status} ${r.statusText}`;
      try { msg = (await r.json()).message || msg; } catch (e) { /* not JSON */ }
      say(`Download: ${msg}`);
      return;
    }
    const url = URL.createObjectURL(await r.blob());
    const tmp = node("a", { href: url, download: a.getAttribute("download") });
    document.body.appendChild(tmp);
    tmp.click();
    tmp.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) {
    say(`Download: ${e.message}`);
  }
}

// ---- Statistics (GET /v1/games/stats): error rates per finished game over time, results per level
let lastStats = null;
async function loadStats() {
  const note = $("stats-note");
  note.textContent = "Judging your finished games…";
  try {
    const j = await api("GET", "/v1/games/stats");
    lastStats = j;
    drawStats(j);
  } catch (e) {
    note.textContent = `Statistics: ${e.message}`;
  }
}

function drawStats(j) {
  const games = j.games || [];
  $("stats-note").textContent = games.length
    ? `${games.length} finished game${games.length > 1 ? "s" : ""}, oldest first, judged by ${j.judge}: error rates in millipoints per decision (mpp; lower is better).`
    : "No finished games yet: finish a game to see its error rates here.";
  const NS = "http://www.w3.org/2000/svg";
  const svg = $("stats-chart");
  svg.replaceChildren();
  const Wd = 800, Ht = 240, ML = 46, MR = 16, MT = 14, MB = 30;
  const mk = (name, attrs, parent = svg) => { const e = document.createElementNS(NS, name); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); parent.appendChild(e); return e; };
  const vals = games.flatMap((g) => [g.error_rate, g.cube_error_rate]).filter((v) => v !== null && v !== undefined);
  const step = 10;
  const top = Math.max(step, Math.ceil(Math.max(0, ...vals) / step) * step);
  const n = games.length;
  const X = (i) => (n > 1 ? ML + (i * (Wd - ML - MR)) / (n - 1) : (ML + Wd - MR) / 2);
  const Y = (v) => MT + (1 - v / top) * (Ht - MT - MB);
  for (const v of [0, top / 2, top]) {
    mk("line", { class: v ? "grid" : "axis", x1: ML, x2: Wd - MR, y1: Y(v), y2: Y(v) });
    mk("text", { class: "axis-text", x: 4, y: Y(v) + 4 }).textContent = `${v % 1 ? v.toFixed(1) : v} mpp`;
  }
  const every = Math.max(1, Math.ceil(n / 12));
  games.forEach((g, i) => { if (i % every === 0 || i === n - 1) mk("text", { class: "axis-text", x: X(i) - 4, y: Ht - 10 }).textContent = String(i + 1); });
  for (const [key, cls, label] of [["error_rate", "error", "error rate"], ["cube_error_rate", "cube", "cube error rate"]]) {
    // a line through the games that have the figure (a game without cube decisions has none)
    const pts = games.map((g, i) => [i, g[key]]).filter(([, v]) => v !== null && v !== undefined);
    if (pts.length > 1) mk("polyline", { class: `sline ${cls}`, "data-series": cls, points: pts.map(([i, v]) => `${X(i)},${Y(v)}`).join(" ") });
    for (const [i, v] of pts) {
      const g = games[i];
      const c = mk("circle", { class: `spt ${cls}`, "data-series": cls, "data-game": g.id, cx: X(i), cy: Y(v), r: 4 });
      mk("title", {}, c).textContent = `game ${i + 1} (${(g.date || "").slice(0, 10)}, against ${g.level}, result ${g.result === null ? "-" : signed(g.result)}): ${label} ${v.toFixed(1)} mpp`;
    }
  }
  const tb = $("stats-levels").querySelector("tbody");
  tb.replaceChildren();
  for (const [lv, r] of Object.entries(j.levels || {})) {
    const tr = row([lv, r.games, r.won, r.lost, signed(r.points)]);
    tr.dataset.level = lv;
    tb.appendChild(tr);
  }
}

// a resignation is worth the result times the cube (in a match, at most the points the computer needs)
function resignText(value) {
  const mult = { single: 1, gammon: 2, backgammon: 3 }[value] || 1;
  const cube = S && S.cube ? S.cube.value : 1;
  const pts = mult * cube;
  return `Resign a ${value}: ${pts} point${pts > 1 ? "s" : ""}${cube > 1 ? ` (${mult} \u00d7 the cube at ${cube})` : ""}?`;
}

function wire() {
  $("board").addEventListener("click", onBoardClick);
  $("board").addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  $("pos-play").addEventListener("click", () => startFrom(false));
  $("pos-analyse").addEventListener("click", () => startFrom(true));
  $("pos-input").addEventListener("keydown", (e) => { if (e.key === "Enter") startFrom(false); });
  $("copy-pid").addEventListener("click", () => copyText("pid", "Position ID"));
  $("copy-xgid").addEventListener("click", () => copyText("xgid", "XGID"));
  $("upload-file").addEventListener("change", uploadReview);
  $("edit-board").addEventListener("click", () => setEditing(!editing));
  $("edit-clear").addEventListener("click", () => { if (editing) { editing = Array(26).fill(0); render(); } });
  $("edit-start").addEventListener("click", () => { if (editing) { editing = START.slice(); render(); } });
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
  $("hint").addEventListener("click", () => act(async () => {
    const h = await api("POST", `/v1/games/${S.id}/hint`, { level: $("hint-level").value, top: 10 });
    if (h.cube) showCubeHint(h); else showHints(h);  // at Double/Roll and at Take/Pass: the cube advice
  }));
  $("resign").addEventListener("click", () => ask(resignText($("resign-value").value), () => act(async () => {
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
    showSessionReview(await api("POST", `/v1/games/${S.id}/review`, {}));  // the judge: the strongest level
    say("Review ready.");
  }));
  $("show-games").addEventListener("click", () => togglePanel("games-panel", "show-games", loadGames));
  $("show-stats").addEventListener("click", () => togglePanel("stats-panel", "show-stats", loadStats));
  $("games-refresh").addEventListener("click", () => loadGames());
  $("stats-refresh").addEventListener("click", () => loadStats());
}

wire();
// read-only hooks for the browser tests (tests/test_web_browser.py)
window.bgrl = { state: () => S, made: () => made.slice(), targetsFrom: (p) => [...targetsFrom(p)], lastHint: () => lastHint,
  lastAnimation: () => lastAnimation, lastUpload: () => lastUpload, animating: () => !!animating,
  lastReview: () => lastReview, lastStats: () => lastStats,
  editing: () => (editing ? editing.slice() : null) };
// start: the levels, then the game this browser played last, read again from the server's store
// (it survives a reload and a server restart); a game that is gone is forgotten
async function startup() {
  await levels();
  render();
  const id = remembered();
  if (id) {
    await act(async () => {
      try {
        await resume(id, true);
        log(`Game ${id} continued.`);
      } catch (e) {
        if (e.status !== 404) throw e;
        remember(null);
        say("Your last game is no longer kept on the server: start a new one.");
      }
    });
  }
}
startup().catch((e) => say(e.message)).finally(() => { document.body.dataset.ready = "1"; });
