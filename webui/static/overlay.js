// The overlay, drawn from the JSON state into an SVG whose user units are table centimetres.
// Nothing here is burned into video: the phone redraws it crisp at any zoom.

import { closestPair, convexHull, sideColours } from "./geometry.js";
import { ILLEGAL as ILLEGAL_LABEL, MOVE, OBJECTIVE, TERRAIN } from "./labels.js";

const SVG = "http://www.w3.org/2000/svg";
const ILLEGAL = "#ff6b6b";
const TERRAIN_FILL = { forest: "#2e7d32", ruins: "#8d6e63", building: "#795548", wall: "#9e9e9e",
  fence: "#bcaaa4", hedge: "#558b2f", trench: "#5d4037", water: "#1e88e5", hill: "#a1887f",
  road: "#bdbdbd", impassable: "#212121" };

export function el(name, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

export function pieces(state) {
  return [...(state.models || []), ...(state.vehicles || [])];
}

export function colourMap(state) {
  return sideColours(pieces(state).map((p) => p.side));
}

export function radiusCm(piece) {
  return piece.corners_cm ? Math.max(piece.length_cm || 0, piece.width_cm || 0) / 2 : (piece.diameter_mm || 32) / 20;
}

export function formatDistance(cm, ruleset) {
  const unitCm = (ruleset && ruleset.unit_cm) || 1;
  const unit = (ruleset && ruleset.unit) || "cm";
  const value = cm / unitCm;
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${unit}`;
}

// How far a model moved against how far it may: a move the rules core could not judge by
// distance (no allowance: a type the seed gives no move of its own, and no `speed`) shows its
// distance alone, where a null allowance printed as "0.0" beside a green "legal".
export function moveDistances(verdict, ruleset) {
  const moved = formatDistance(verdict.moved_cm, ruleset);
  return verdict.allowance_cm == null ? moved : `${moved} / ${formatDistance(verdict.allowance_cm, ruleset)}`;
}

// What a move that broke no rule is called: "legal", or, with no allowance to judge it by,
// "distance not judged" (the rules core's allowance_notes say what to give).
export function unbrokenVerdict(verdict) {
  return verdict.allowance_cm == null ? "distance not judged" : "legal";
}

// ui: {fontCm, showMeasurements, selected, picked:Set, labels: Labels (drawn by the caller, last)}
export function drawScene(layer, state, ui) {
  layer.replaceChildren();
  const colours = colourMap(state);
  const byId = new Map(pieces(state).map((p) => [p.id, p]));
  drawZones(el("g", { id: "zones" }, layer), state, colours);
  drawTerrain(el("g", { id: "terrain" }, layer), state, ui);
  drawObjectives(el("g", { id: "objectives" }, layer), state, colours, ui);
  drawCoherency(el("g", { id: "coherency" }, layer), state, byId, colours, ui);
  drawMoves(el("g", { id: "moves-layer" }, layer), state, byId, colours, ui);
  drawTemplates(el("g", { id: "templates" }, layer), state, ui);
  drawPieces(el("g", { id: "pieces" }, layer), state, colours, ui);
}

function drawZones(g, state, colours) {
  for (const [side, polygons] of Object.entries(state.deployment_zones || {})) {
    const colour = colours.get(side) || "#9e9e9e";
    for (const polygon of polygons) {
      el("polygon", { points: polygon.map((p) => p.join(",")).join(" "), class: "zone", fill: colour,
        "fill-opacity": 0.12, stroke: colour, "data-side": side }, g);
    }
  }
}

function drawTerrain(g, state, ui) {
  for (const piece of state.terrain || []) {
    const fill = TERRAIN_FILL[piece.kind] || "#607d8b";
    const polygon = el("polygon", { points: piece.polygon_cm.map((p) => p.join(",")).join(" "), class: "terrain",
      fill, "fill-opacity": 0.45, stroke: fill, "data-id": piece.id }, g);
    el("title", {}, polygon, `${piece.kind} ${piece.id}`);
    const cx = piece.polygon_cm.reduce((s, p) => s + p[0], 0) / piece.polygon_cm.length;
    const cy = piece.polygon_cm.reduce((s, p) => s + p[1], 0) / piece.polygon_cm.length;
    ui.labels.add(cx, cy, piece.kind, ui.fontCm * 0.85, TERRAIN);
  }
}

function drawObjectives(g, state, colours, ui) {
  const verdicts = (state.check && state.check.objectives) || {};
  for (const objective of state.objectives || []) {
    const verdict = verdicts[objective.id] || {};
    const owner = verdict.controlled_by;
    const colour = verdict.contested ? "#f2cc60" : owner ? colours.get(owner) || "#fff" : "#e0e0e0";
    const r = (objective.diameter_mm || 40) / 20;
    el("circle", { cx: objective.x_cm, cy: objective.y_cm, r, class: "objective", stroke: colour,
      "stroke-dasharray": owner || verdict.contested ? null : "1 0.7", "data-id": objective.id,
      "data-controlled-by": owner || "" }, g);
    const who = verdict.contested ? "contested" : owner ? owner : "nobody";
    ui.labels.add(objective.x_cm, objective.y_cm + r + ui.fontCm, `${objective.id}: ${who}`, ui.fontCm * 0.85, OBJECTIVE);
  }
}

function drawCoherency(g, state, byId, colours, ui) {
  const units = (state.check && state.check.units) || {};
  for (const [unit, verdict] of Object.entries(units)) {
    const groups = (verdict.groups || []).map((ids) =>
      ids.map((id) => byId.get(id)).filter(Boolean).map((p) => [p.x_cm, p.y_cm]));
    const side = (byId.get((verdict.groups || [[]])[0][0]) || {}).side;
    const colour = verdict.coherent === false ? ILLEGAL : colours.get(side) || "#fff";
    for (const group of groups) {
      if (group.length < 2) continue;
      const hull = convexHull(group);
      el(hull.length > 2 ? "polygon" : "polyline", { points: hull.map((p) => p.join(",")).join(" "),
        class: verdict.coherent === false ? "hull bad" : "hull", stroke: colour, "data-unit": unit }, g);
    }
    if (verdict.coherent === false && groups.length > 1) {
      for (let i = 1; i < groups.length; i += 1) {
        const pair = closestPair(groups[0], groups[i]);
        if (!pair) continue;
        el("line", { x1: pair.a[0], y1: pair.a[1], x2: pair.b[0], y2: pair.b[1], class: "break", "data-unit": unit }, g);
        ui.labels.add((pair.a[0] + pair.b[0]) / 2, (pair.a[1] + pair.b[1]) / 2 - 1, `${unit} broken`, ui.fontCm * 0.85,
          ILLEGAL_LABEL, true);
      }
    }
  }
}

function drawMoves(g, state, byId, colours, ui) {
  const verdicts = (state.moves && state.moves.models) || {};
  for (const [id, verdict] of Object.entries(verdicts)) {
    const piece = byId.get(id);
    if (!piece || piece.start_x_cm === undefined) continue;
    const bad = verdict.legal === false;
    const colour = bad ? ILLEGAL : colours.get(piece.side) || "#fff";
    const path = el("line", { x1: piece.start_x_cm, y1: piece.start_y_cm, x2: piece.x_cm, y2: piece.y_cm,
      class: bad ? "path bad" : "path", stroke: colour, "data-id": id, "data-legal": String(!bad) }, g);
    const reasons = (verdict.reasons || []).map((r) => (ui.showMeasurements ? r.detail || r.code : r.code)).join("; ");
    el("title", {}, path, `${id}: ${bad ? reasons : unbrokenVerdict(verdict)}`);
    el("circle", { cx: piece.start_x_cm, cy: piece.start_y_cm, r: 0.6, fill: colour }, g);
    if (ui.showMeasurements && (bad || ui.selected === id)) {
      const distances = moveDistances(verdict, state.ruleset);
      const text = bad ? `${distances} ✗` : distances;
      const size = ui.fontCm * 0.8;
      const x = (piece.start_x_cm + piece.x_cm) / 2;
      ui.labels.add(x, (piece.start_y_cm + piece.y_cm) / 2 - ui.fontCm * 0.4, text, size, bad ? ILLEGAL_LABEL : MOVE, bad);
    }
  }
}

// A circle for a blast (radius_cm from the rules core), a strip for smoke: its size is the
// ruleset's, sent with the action by the page (ui.templateSizes when an older entry lacks it).
function drawTemplates(g, state, ui) {
  for (const t of state.templates || []) {
    if (t.radius_cm > 0) {
      el("circle", { cx: t.x_cm, cy: t.y_cm, r: t.radius_cm, class: "template", "data-kind": t.kind }, g);
      continue;
    }
    const size = (ui.templateSizes && ui.templateSizes(t.kind)) || {};
    const length = t.length_cm || size.length_cm;
    const width = t.width_cm || size.width_cm;
    if (!length || !width) continue;
    el("rect", { x: t.x_cm - length / 2, y: t.y_cm - width / 2, width: length, height: width, class: "template",
      "data-kind": t.kind, transform: `rotate(${t.heading_deg || 0} ${t.x_cm} ${t.y_cm})` }, g);
  }
}

function drawPieces(g, state, colours, ui) {
  for (const piece of pieces(state)) {
    const colour = colours.get(piece.side);
    const classes = ["model"];
    if (!piece.side) classes.push("unassigned");
    if (piece.visible === false) classes.push("hidden");
    if (ui.picked && ui.picked.has(piece.id)) classes.push("picked");
    if (ui.selected === piece.id) classes.push("selected");
    // A button for the keyboard and screen readers: Tab to it, Enter or Space picks it (table.js).
    const who = piece.side ? [piece.side, piece.unit, piece.type].filter(Boolean).join(" ") : "unassigned";
    const attrs = { class: classes.join(" "), stroke: colour, fill: colour ? colour + "55" : null,
      "data-id": piece.id, "data-side": piece.side || "", tabindex: 0, role: "button", "aria-label": `${piece.id}, ${who}` };
    const shape = piece.corners_cm
      ? el("polygon", { ...attrs, points: piece.corners_cm.map((p) => p.join(",")).join(" ") }, g)
      : el("circle", { ...attrs, cx: piece.x_cm, cy: piece.y_cm, r: radiusCm(piece) }, g);
    el("title", {}, shape, `${piece.id} ${piece.unit || "unassigned"} ${piece.type || ""}`);
  }
}

// False while orders are given in a ruleset that forbids pre-measuring (mobile-infantry).
export function measuringAllowed(state) {
  if (!state) return false;
  if ("measuring_allowed" in state) return Boolean(state.measuring_allowed);
  const premeasure = !state.ruleset || state.ruleset.premeasure_allowed !== false;
  return premeasure || !String(state.phase || "").includes("order");
}
