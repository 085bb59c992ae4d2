// The table view as a touch surface: zoom and pan, taps on models and points, the tools'
// marks (ranges, ruler, terrain being drawn, lasso) on top of the scene.

import { getJson } from "./api.js";
import { dist, footprintGap } from "./geometry.js";
import { RANGE, RULER } from "./labels.js";
import { el, formatDistance, measuringAllowed, pieces, radiusCm } from "./overlay.js";

const $ = (selector) => document.querySelector(selector);
const svg = $("#overlay");
const tools = $("#layer-tools");
let ctx = null;

export function initTable(context) {
  ctx = context;
  Object.assign(ctx, { zoom: 1, centre: null, fontCm, viewBox, zoomBy: zoom, grabsTouch, drawTools, fetchRanges,
    followRanges, setMode, select, modeHint });
  wirePointer();
}

// Screen pixels per table cm as drawn. The SVG box can be wider than the table it shows (a
// landscape phone: "meet" fits the table into the box's height), so its width alone would
// make every label and every fingertip too small.
function pxPerCm(state) {
  const box = svg.getBoundingClientRect();
  const [, , vw, vh] = viewBox(state);
  return box.width && box.height ? Math.min(box.width / vw, box.height / vh) : 390 / vw;
}

// Labels 17.5 px high on the screen, whatever the zoom and the phone: the smallest (a move's,
// a range's, at 0.8 of it) 14 px, the least the page's own text keeps to (style.css); at 12 px
// a move's and a range's were hard to read on a phone held over the table.
function fontCm(state) {
  return Math.max(0.8, 17.5 / pxPerCm(state));
}

// The part of the table in view: all of it, or a zoomed window a phone can tap bases in.
function viewBox(state) {
  const [w, d] = shownTable(state);
  const vw = w / ctx.zoom;
  const vh = d / ctx.zoom;
  const [cx, cy] = ctx.centre || [w / 2, d / 2];
  const x = Math.min(Math.max(cx - vw / 2, 0), w - vw);
  const y = Math.min(Math.max(cy - vh / 2, 0), d - vh);
  ctx.centre = [x + vw / 2, y + vh / 2];
  return [x, y, vw, vh];
}

// The markers' table, where the top-down picture is drawn: the game's table when nothing is
// calibrated, or when they agree.
export function markersTable(state) {
  const marked = state.status && state.status.calibration && state.status.calibration.table_cm;
  return marked || [state.table.width_cm, state.table.depth_cm];
}

// What the view spans: the game's table and the markers' both. A game set to 122 x 122 on
// markers laid for 183 x 122 squeezed the picture into the square and left the models past
// x = 122 undrawn.
function shownTable(state) {
  const [mw, md] = markersTable(state);
  return [Math.max(state.table.width_cm, mw), Math.max(state.table.depth_cm, md)];
}

// The zoom buttons and a pinch share these limits: the whole table, down to an eighth of it.
function clampZoom(value) {
  return Math.min(8, Math.max(1, value));
}

function zoom(factor) {
  ctx.zoom = factor ? clampZoom(ctx.zoom * factor) : 1;
  ctx.redraw();
}

// Modes whose one-finger drag on the table is their own (the assign lasso), not the page's.
const DRAG_MODES = new Set(["assign"]);

// Whether a finger on the table is this script's: it pans a zoomed table and draws a lasso.
// Otherwise the browser scrolls the page with it, so a phone's player is never stuck on it.
function grabsTouch() {
  return ctx.zoom > 1 || DRAG_MODES.has(ctx.mode);
}

// Marks of the tools; their labels join the scene's in ui.labels, placed by the caller.
function drawTools(ui, state) {
  tools.replaceChildren();
  const byId = new Map(pieces(state).map((p) => [p.id, p]));
  if (ctx.ranges && ui.showMeasurements) {
    const from = byId.get(ctx.ranges.from) || byId.get(ctx.selected);
    for (const target of ctx.ranges.targets || []) {
      const to = byId.get(target.id);
      if (!from || !to) continue;
      el("line", { x1: from.x_cm, y1: from.y_cm, x2: to.x_cm, y2: to.y_cm,
        class: target.weapons.length ? "range-line" : "range-line out", "data-target": target.id }, tools);
      if (target.weapons.length) {
        ui.labels.add(to.x_cm, to.y_cm - radiusCm(to) - 0.5, formatDistance(target.edge_cm, state.ruleset),
          ui.fontCm * 0.8, RANGE);
      }
    }
  }
  if (ctx.ruler.length && ui.showMeasurements) {
    const ends = ctx.ruler.map((end) => end.point);
    for (const p of ends) el("circle", { cx: p[0], cy: p[1], r: 0.8, fill: "#f2cc60" }, tools);
    if (ends.length === 2) {
      el("line", { x1: ends[0][0], y1: ends[0][1], x2: ends[1][0], y2: ends[1][1], class: "ruler" }, tools);
      if (ctx.rulerResult) {
        ui.labels.add((ends[0][0] + ends[1][0]) / 2, (ends[0][1] + ends[1][1]) / 2 - 1,
          formatDistance(ctx.rulerResult.edge_cm, state.ruleset), ui.fontCm, RULER);
      }
    }
  }
  if (ctx.draft.length) {
    el(ctx.draft.length > 2 ? "polygon" : "polyline", { points: ctx.draft.map((p) => p.join(",")).join(" "), class: "draft" }, tools);
    for (const p of ctx.draft) el("circle", { cx: p[0], cy: p[1], r: 0.8, fill: "#58a6ff" }, tools);
  }
  if (ctx.lasso) el("polygon", { points: ctx.lasso.map((p) => p.join(",")).join(" "), class: "lasso" }, tools);
}

function tablePoint(event) {
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const p = point.matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y];
}

// A fingertip covers about this many screen pixels round where it lands (40 across, the
// smallest tap target a phone is designed for); the nearest piece within it is the one tapped.
const FINGER_PX = 20;

function pieceAt(point) {
  const state = ctx.shown();
  const slack = FINGER_PX / pxPerCm(state); // a fingertip is wider than a 32 mm base on a phone
  let best = null;
  for (const piece of pieces(state)) {
    const d = dist(point, [piece.x_cm, piece.y_cm]) - radiusCm(piece);
    if (d <= slack && (!best || d < best.d)) best = { piece, d };
  }
  return best && best.piece;
}

const HINTS = { select: "Tap a model for its ranges.", ruler: "Tap two models or points.",
  template: "Tap where the template goes.",
  assign: "Tap models, or drag a loop round them.", terrain: "Tap the corners, then Finish shape.",
  objective: "Tap to place an objective." };
// A replay has no ranges (the rules core measures the live table) and its taps change nothing:
// only the ruler works there, and the hint must not promise more.
// Orders under a ruleset that forbids pre-measuring: no ranges and no ruler to tap for.
const HIDDEN_HINT = "Distances are hidden until the orders are given.";
const REPLAY_HINTS = { select: "Replay: tap Ruler, then two models or points, to measure.",
  ruler: HINTS.ruler };

function modeHint() {
  if (!measuringAllowed(ctx.shown()) && ["select", "ruler"].includes(ctx.mode)) return HIDDEN_HINT;
  if (!ctx.replay) return HINTS[ctx.mode] || "";
  return REPLAY_HINTS[ctx.mode] || "Replay: this tool waits until Back to live.";
}

function setMode(mode) {
  ctx.mode = ctx.mode === mode && mode !== "select" ? "select" : mode;
  for (const button of document.querySelectorAll("[data-mode]")) {
    button.setAttribute("aria-pressed", String(button.dataset.mode === ctx.mode));
  }
  // A measure left from the ruler would stay listed under the template's or the ranges' taps.
  if (ctx.mode !== "ruler") Object.assign(ctx, { ruler: [], rulerResult: null });
  // The ruler's taps measure, so a model's ranges picked before would stay up, stale, over them.
  if (ctx.mode === "ruler") Object.assign(ctx, { selected: null, ranges: null });
  ctx.redraw();
}

// A tap at `point`, or a model picked from the keyboard (`piece`, where the finger's nearest
// might be a bigger base beside it).
async function onTap(point, piece = pieceAt(point)) {
  if (ctx.replay && !["select", "ruler"].includes(ctx.mode)) return;
  switch (ctx.mode) {
    case "select":
      await selectPiece(piece);
      break;
    case "ruler":
      await rulerTap(piece, point);
      break;
    case "template":
      await placeTemplate(point);
      break;
    case "assign":
      if (piece) ctx.picked.has(piece.id) ? ctx.picked.delete(piece.id) : ctx.picked.add(piece.id);
      break;
    case "terrain":
      ctx.draft.push(point.map((v) => Math.round(v * 10) / 10));
      break;
    // The objective alone: the rig adds it to the list as it stands and names it. The list this
    // phone was shown, sent whole, wiped out one another phone had placed a moment before. The
    // answer names it ("Objectives saved." said neither which one nor what to call it).
    case "objective": {
      const placed = await ctx.send("objectives", { add: { x_cm: Math.round(point[0] * 10) / 10,
        y_cm: Math.round(point[1] * 10) / 10, diameter_mm: 40 } });
      if (placed && placed.added) ctx.show(`Objective ${placed.added} placed.`);
      break;
    }
    default:
      break;
  }
  ctx.redraw();
}

async function selectPiece(piece) {
  ctx.rulerResult = null;
  if (!piece || !piece.side || ctx.selected === piece.id) {
    ctx.selected = null;
    ctx.ranges = null;
    if (piece && !piece.side) ctx.show(`${piece.id} has no side yet: assign it in Setup.`, true);
    return;
  }
  ctx.selected = piece.id;
  ctx.rangesFromUnit = false;
  if (ctx.replay) {
    // The rules core knows ranges for the live table only; a replayed position it never saw.
    ctx.ranges = null;
    ctx.show("Ranges are for the live table. In a replay, measure with the Ruler.");
    return;
  }
  await fetchRanges();
}

// The ruleset's own template (Setup's ruleset decides which there are), at its seed's size;
// a blast the seed gives no radius takes the one typed in (in the ruleset's unit).
async function placeTemplate(point) {
  const spec = ctx.currentTemplate();
  if (!spec) return;
  const unitCm = (ctx.live.ruleset && ctx.live.ruleset.unit_cm) || 1;
  const payload = { kind: spec.kind, x_cm: point[0], y_cm: point[1] };
  if (spec.shape === "circle" && spec.radius == null) {
    // The field's bounds are in the ruleset's unit (play.js radiusInUnits); the browser only marks
    // a value outside them, so 0.3 mm would drop a blast nobody could see.
    const field = $("#template-radius");
    const radius = Number(field.value);
    const [min, max] = [Number(field.min), Number(field.max)];
    if (field.value === "" || !(radius >= min && radius <= max)) {
      ctx.show(`A blast radius is ${field.min} to ${field.max} ${field.dataset.unit}.`, true);
      return;
    }
    payload.radius_cm = radius * unitCm;
  }
  if (spec.shape === "strip") {
    // A number field holds "" for what is no number ("abc"): that was sent as 0 without a word.
    const field = $("#template-heading");
    const heading = Number(field.value);
    if (field.value.trim() === "" || !Number.isFinite(heading)) {
      ctx.show("Type the heading in degrees (0 to 359; -90 is 270): nothing was placed.", true);
      return;
    }
    Object.assign(payload, { length_cm: spec.length * unitCm, width_cm: spec.width * unitCm,
      heading_deg: ((heading % 360) + 360) % 360 }); // angles are in [0, 360): -90 is 270
  }
  const result = await ctx.send("template", payload);
  if (result && result.template) {
    const under = result.template.under || [];
    ctx.show(`Under the ${spec.kind}: ${under.length ? under.join(", ") : "nobody"}.`);
  }
}

// Select a model named in a list: centre it when zoomed in, and ask for its ranges.
async function select(id) {
  const piece = pieces(ctx.shown()).find((p) => p.id === id);
  if (!piece) return;
  ctx.selected = null;
  if (ctx.zoom > 1) ctx.centre = [piece.x_cm, piece.y_cm];
  await selectPiece(piece);
  ctx.redraw();
}

// The ranges shown are asked for again whenever the table they were measured on changes (a
// model moved, assigned, a new turn or phase): tapped once, a list showed the pre-move range for
// as long as it stayed up. At most one question a second and one at a time, so a phone on a
// busy table is not flooded; the last change is always asked about.
const RANGES_EVERY_MS = 1000;
const follow = { key: null, at: -Infinity, busy: false, timer: null };

function tableKey(state) {
  const ruleset = state.ruleset || {};
  return JSON.stringify([state.turn, state.phase, ruleset.id, ruleset.unit_cm,
    pieces(state).map((p) => [p.id, p.x_cm, p.y_cm, p.heading_deg, p.side, p.unit, p.type, p.weapons])]);
}

function followRanges(state) {
  if (!ctx.selected) return;
  const picked = pieces(state).find((p) => p.id === ctx.selected);
  if (!picked || !picked.side) {
    // Taken off the table, or left without a side: its ranges were of a model no longer in play.
    const why = picked ? "has no side now" : "is no longer on the table";
    ctx.show(`${ctx.selected} ${why}: its ranges are gone.`);
    Object.assign(ctx, { selected: null, ranges: null });
    return;
  }
  if (follow.busy || follow.timer || tableKey(state) === follow.key || !measuringAllowed(state)) return;
  follow.timer = setTimeout(async () => {
    follow.timer = null;
    if (!ctx.selected || ctx.replay) return;
    await fetchRanges({ quiet: true });
    ctx.redraw();
    if (ctx.live) followRanges(ctx.live); // changed again while asked
  }, Math.max(0, follow.at + RANGES_EVERY_MS - performance.now()));
}

async function fetchRanges({ quiet = false } = {}) {
  const piece = pieces(ctx.live).find((p) => p.id === ctx.selected);
  if (!piece || ctx.replay || !measuringAllowed(ctx.live)) return;
  const from = ctx.rangesFromUnit && piece.unit ? piece.unit : piece.id;
  const asked = { id: piece.id, fromUnit: ctx.rangesFromUnit };
  Object.assign(follow, { key: tableKey(ctx.live), at: performance.now(), busy: true });
  try {
    const ranges = await getJson(`/api/ranges?from=${encodeURIComponent(from)}`);
    // Another model (or its unit) picked meanwhile: this answer is not for what is shown.
    if (ctx.selected === asked.id && ctx.rangesFromUnit === asked.fromUnit) ctx.ranges = ranges;
  } catch (error) {
    if (ctx.selected === asked.id) ctx.ranges = null;
    if (!quiet) ctx.show(error.message, true);
  } finally {
    follow.busy = false;
  }
}

async function rulerTap(piece, point) {
  if (ctx.ruler.length === 2) {
    ctx.ruler = [];
    ctx.rulerResult = null;
  }
  ctx.ruler.push(piece ? { id: piece.id, point: [piece.x_cm, piece.y_cm] } : { point });
  if (ctx.ruler.length < 2) return;
  if (ctx.replay) {
    // The rig would measure the live table: a replay is measured where it is drawn.
    const [a, b] = ctx.ruler.map((end) => footprint(end, ctx.replay));
    ctx.rulerResult = { edge_cm: footprintGap(a, b), centre_cm: dist(ctx.ruler[0].point, ctx.ruler[1].point) };
    return;
  }
  const end = (e) => e.id || `${e.point[0].toFixed(1)},${e.point[1].toFixed(1)}`;
  try {
    ctx.rulerResult = await getJson(`/api/measure?a=${encodeURIComponent(end(ctx.ruler[0]))}&b=${encodeURIComponent(end(ctx.ruler[1]))}`);
  } catch (error) {
    ctx.rulerResult = null;
    ctx.show(error.message, true);
  }
}

// A ruler end as geometry.footprintGap takes it: a round base, a vehicle's corners, or a point.
function footprint(end, state) {
  const piece = end.id && pieces(state).find((p) => p.id === end.id);
  if (!piece) return { points: [end.point], r: 0 };
  return piece.corners_cm ? { points: piece.corners_cm, r: 0 } : { points: [[piece.x_cm, piece.y_cm]], r: radiusCm(piece) };
}

// Enter or Space on a focused model mark does what a tap on it does.
function onKey(event) {
  const id = event.target.dataset && event.target.dataset.id;
  if (!id || !event.target.closest("#pieces") || !["Enter", " "].includes(event.key)) return;
  event.preventDefault(); // Space would scroll the page
  const piece = pieces(ctx.shown()).find((p) => p.id === id);
  if (piece) onTap([piece.x_cm, piece.y_cm], piece);
}

// Fingers now on the table (pointer id -> client x, y): two at once are a pinch.
const fingers = new Map();
let down = null; // the one finger that may make a tap, a lasso or a pan
let pinch = null; // the zoom and finger spread a pinch began with, and the table point under it

function wirePointer() {
  svg.addEventListener("keydown", onKey);
  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", onPointerCancel);
  // Unzoomed, the table lets the browser scroll the page (touch-action: pan-y); a second finger
  // makes a pinch of the pair, which the browser must not take for a scroll of its own.
  svg.addEventListener("touchstart", (event) => {
    if (event.touches.length > 1) event.preventDefault();
  }, { passive: false });
}

function onPointerDown(event) {
  if (!ctx.shown()) return;
  fingers.set(event.pointerId, [event.clientX, event.clientY]);
  svg.setPointerCapture(event.pointerId);
  if (fingers.size === 2) startPinch();
  if (fingers.size > 1) return;
  down = { moved: false, x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY };
  if (ctx.mode === "assign") ctx.lasso = [tablePoint(event)];
}

function onPointerMove(event) {
  if (!fingers.has(event.pointerId)) return;
  fingers.set(event.pointerId, [event.clientX, event.clientY]);
  if (pinch) pinchMove();
  else if (down) dragMove(event);
}

function dragMove(event) {
  const point = tablePoint(event);
  // A finger wobbles: only a slide of more than 8 px is a drag rather than a tap.
  if (Math.hypot(event.clientX - down.startX, event.clientY - down.startY) > 8) down.moved = true;
  if (ctx.lasso && down.moved) {
    ctx.lasso.push(point);
    drawTools({ fontCm: fontCm(ctx.shown()), showMeasurements: measuringAllowed(ctx.shown()),
      labels: { add() {} } }, ctx.shown()); // the labels already drawn stay as they are
  } else if (!ctx.lasso && ctx.zoom > 1 && down.moved) {
    // Drag to pan a zoomed table: screen pixels to table cm at the current scale.
    const cmPerPixel = 1 / pxPerCm(ctx.shown());
    ctx.centre = [ctx.centre[0] - (event.clientX - down.x) * cmPerPixel,
      ctx.centre[1] - (event.clientY - down.y) * cmPerPixel];
    down.x = event.clientX;
    down.y = event.clientY;
    ctx.redraw();
  }
}

function onPointerUp(event) {
  fingers.delete(event.pointerId);
  if (pinch) {
    // The finger left after a pinch is no tap and no pan: it stays idle until lifted.
    if (!fingers.size) pinch = null;
    return;
  }
  if (!down) return;
  const { moved } = down;
  down = null;
  if (ctx.mode === "assign" && moved && ctx.lasso && ctx.lasso.length > 2) {
    ctx.onLasso(ctx.lasso);
    ctx.lasso = null;
    ctx.redraw();
    return;
  }
  ctx.lasso = null;
  if (!moved) onTap(tablePoint(event));
}

function onPointerCancel(event) {
  fingers.delete(event.pointerId);
  if (!fingers.size) pinch = null;
  down = null;
  ctx.lasso = null;
}

function midpoint([a, b]) {
  return { clientX: (a[0] + b[0]) / 2, clientY: (a[1] + b[1]) / 2 };
}

function spread([a, b]) {
  return Math.max(1, Math.hypot(b[0] - a[0], b[1] - a[1]));
}

// The second finger turns the first one's tap, lasso or pan into a pinch.
function startPinch() {
  const pair = [...fingers.values()];
  down = null;
  ctx.lasso = null;
  pinch = { zoom: ctx.zoom, spread: spread(pair), anchor: tablePoint(midpoint(pair)) };
  ctx.redraw(); // a lasso begun by the first finger goes
}

// Zoom by how far the fingers have spread, and keep the table point that was first between
// them there (as far as the table's edges allow): the player zooms into what they pinch.
function pinchMove() {
  const pair = [...fingers.values()];
  ctx.zoom = clampZoom(pinch.zoom * spread(pair) / pinch.spread);
  svg.setAttribute("viewBox", viewBox(ctx.shown()).join(" ")); // the new scale, for tablePoint
  const [x, y] = tablePoint(midpoint(pair));
  ctx.centre = [ctx.centre[0] + pinch.anchor[0] - x, ctx.centre[1] + pinch.anchor[1] - y];
  ctx.redraw();
}
