// The board as SVG, drawn from the player's side in the player's numbering.
// board: 26 ints, the player's view (1..24 points, + = the player's checkers,
// 25 = the player's bar, 0 = the computer's bar as a negative count).
const NS = "http://www.w3.org/2000/svg";
const W = 50, LEFT = 20, RIGHT = 380, TOP = 24, BOTTOM = 446, TRI = 175, R = 22;
export const BAR_X = 350, TRAY_X = 735;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// x centre and whether the point is in the top row
export function pointX(p) {
  if (p >= 1 && p <= 6) return [RIGHT + (6 - p) * W + W / 2, false];
  if (p <= 12) return [LEFT + (12 - p) * W + W / 2, false];
  if (p <= 18) return [LEFT + (p - 13) * W + W / 2, true];
  return [RIGHT + (p - 19) * W + W / 2, true];
}

// where a checker at stack height k (0 = the edge) of point p sits
function slot(p, k) {
  const [x, top] = pointX(p);
  const kk = Math.min(k, 4);
  return [x, top ? TOP + R + kk * 2 * R * 0.95 : BOTTOM - R - kk * 2 * R * 0.95];
}

// centre of the place a step starts from or lands on: a point, a bar or a tray
export function anchor(board, p, mine, end) {
  if (p === 25) return mine ? [BAR_X, 300] : [BAR_X, 170];
  if (p === 0) return mine ? [TRAY_X, 400] : [TRAY_X, 70];
  const n = Math.abs(board[p]);
  return slot(p, end ? Math.max(0, Math.min(n, 5) - (mine ? 0 : 0)) : Math.max(0, Math.min(n, 5) - 1));
}

export function drawBoard(svg, board, opts = {}) {
  const me = opts.colour || "white", them = me === "white" ? "black" : "white";
  const targets = opts.targets || new Set();
  svg.replaceChildren();
  const defs = el("defs", {}, svg);
  for (const [id, colour] of [["head-hint", "#1e88e5"], ["head-comp", "#e53935"]]) {
    const m = el("marker", { id, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }, m);
  }
  el("rect", { class: "frame", x: 0, y: 0, width: 800, height: 470 }, svg);
  el("rect", { class: "felt", x: LEFT, y: TOP, width: 300, height: BOTTOM - TOP }, svg);
  el("rect", { class: "felt", x: RIGHT, y: TOP, width: 300, height: BOTTOM - TOP }, svg);
  el("rect", { class: "bar", x: 320, y: TOP, width: 60, height: BOTTOM - TOP }, svg);
  el("rect", { class: "tray", x: 700, y: TOP, width: 70, height: BOTTOM - TOP }, svg);
  for (let p = 1; p <= 24; p++) {
    const [x, top] = pointX(p);
    const y0 = top ? TOP : BOTTOM, y1 = top ? TOP + TRI : BOTTOM - TRI;
    el("polygon", { class: `tri ${p % 2 ? "tri-a" : "tri-b"}${targets.has(p) ? " target" : ""}`, "data-point": p,
      points: `${x - W / 2 + 1},${y0} ${x + W / 2 - 1},${y0} ${x},${y1}` }, svg);
    const t = el("text", { class: "num", x, y: top ? TOP - 8 : BOTTOM + 17 }, svg);
    t.textContent = p;
  }
  const chk = (x, y, colour, cls = "") => el("circle", { class: `chk chk-${colour} ${cls}`, cx: x, cy: y, r: R }, svg);
  const count = (x, y, n, colour) => {
    const t = el("text", { class: "count", x, y, fill: colour === "white" ? "#000" : "#fff" }, svg);
    t.textContent = n;
  };
  for (let p = 1; p <= 24; p++) {
    const v = board[p];
    if (!v) continue;
    const colour = v > 0 ? me : them, n = Math.abs(v);
    for (let k = 0; k < Math.min(n, 5); k++) {
      const [x, y] = slot(p, k);
      const sel = opts.selected === p && k === Math.min(n, 5) - 1 && v > 0;
      const c = chk(x, y, colour, sel ? "selected" : "");
      c.setAttribute("data-point", p);
    }
    if (n > 5) { const [x, y] = slot(p, 4); count(x, y, n, colour); }
  }
  // bars: the player's checkers below the middle, the computer's above
  const bars = [[board[25], me, 300, true], [-board[0], them, 170, false]];
  for (const [n, colour, y, mine] of bars) {
    if (n > 0) {
      const c = chk(BAR_X, y, colour, opts.selected === 25 && mine ? "selected" : "");
      c.setAttribute("data-bar", mine ? "you" : "computer");
      if (n > 1) count(BAR_X, y, n, colour);
    }
  }
  // trays: borne-off checkers as thin bars, the player's at the bottom
  const off = opts.off || { you: 0, computer: 0 };
  if (targets.has(0)) el("rect", { class: "tray-target", x: 702, y: 250, width: 66, height: BOTTOM - 250 - 2, "data-point": 0 }, svg);
  for (const [n, colour, mine] of [[off.you, me, true], [off.computer, them, false]]) {
    for (let k = 0; k < n; k++) {
      const y = mine ? BOTTOM - 6 - k * 12 : TOP + 4 + k * 12;
      el("rect", { class: `chk chk-${colour}`, x: 710, y, width: 50, height: 10, rx: 2 }, svg);
    }
  }
  // pips: the player's at the bottom of the bar, the computer's at the top
  if (opts.pips) {
    const a = el("text", { class: "pips", x: BAR_X, y: BOTTOM - 6, id: "pip-you" }, svg); a.textContent = `${opts.pips.you}`;
    const b = el("text", { class: "pips", x: BAR_X, y: TOP + 16, id: "pip-computer" }, svg); b.textContent = `${opts.pips.computer}`;
    const c = el("text", { class: "pips", x: BAR_X, y: 238 }, svg); c.textContent = "pips";
  }
  // click areas, on top: one per point, the bar and the tray
  for (let p = 1; p <= 24; p++) {
    const [x, top] = pointX(p);
    el("rect", { class: `hit${opts.sources && opts.sources.has(p) ? " source" : ""}`, "data-hit": p, x: x - W / 2, y: top ? TOP : BOTTOM - 205, width: W, height: 205 }, svg);
  }
  el("rect", { class: `hit${opts.sources && opts.sources.has(25) ? " source" : ""}`, "data-hit": 25, x: 320, y: 250, width: 60, height: 120 }, svg);
  el("rect", { class: "hit", "data-hit": 0, x: 700, y: 250, width: 70, height: BOTTOM - 250 }, svg);
  // arrows
  const g = el("g", { id: "arrows" }, svg);
  for (const a of opts.arrows || []) drawArrow(g, board, a);
}

function drawArrow(g, board, a) {
  const mine = a.mine !== false;
  const [x1, y1] = anchor(board, a.from, mine, false);
  const [x2, y2] = anchor(board, a.to, mine, true);
  el("line", { class: `arrow ${a.cls || ""}`, x1, y1, x2, y2, "data-from": a.from, "data-to": a.to }, g);
}
