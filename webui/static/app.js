// The page: pushed state in, overlay and panels out, taps turned into questions and actions.

import { action, ApiError, getJson, storePin, subscribe } from "./api.js";
import { dist } from "./geometry.js";
import { drawScene, el, formatDistance, pieces, radiusCm } from "./overlay.js";
import { initReplay } from "./replay.js";
import { initSetup } from "./setup.js";

const $ = (selector) => document.querySelector(selector);
const svg = $("#overlay");
const scene = $("#layer-scene");
const tools = $("#layer-tools");

const ctx = {
  live: null, // the newest pushed state
  replay: null, // a replay snapshot shown instead of the live table, or null
  mode: "select",
  selected: null,
  ranges: null,
  ruler: [],
  rulerResult: null,
  picked: new Set(),
  draft: [], // terrain vertices being drawn
  lasso: null,
  zoom: 1,
  centre: null,
  shown() {
    return this.replay || this.live;
  },
  redraw,
  send,
  show,
  setMode,
};

// --- talking to the rig -----------------------------------------------------------------

function askPin() {
  const dialog = $("#pin-dialog");
  const input = $("#pin-input");
  input.value = "";
  dialog.showModal();
  return new Promise((resolve) => {
    const done = (pin) => {
      dialog.close();
      $("#pin-form").removeEventListener("submit", onSubmit);
      $("#pin-cancel").removeEventListener("click", onCancel);
      resolve(pin);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      done(input.value.trim() || null);
    };
    const onCancel = () => done(null);
    $("#pin-form").addEventListener("submit", onSubmit);
    $("#pin-cancel").addEventListener("click", onCancel);
  });
}

async function send(name, payload) {
  try {
    const result = await action(name, payload, askPin);
    return result;
  } catch (error) {
    show(error instanceof ApiError ? error.message : String(error), true);
    return null;
  }
}

function show(text, bad = false) {
  const box = $("#message");
  box.textContent = text;
  box.className = bad ? "message" : "message ok";
  box.hidden = !text;
  clearTimeout(show.timer);
  if (text) show.timer = setTimeout(() => (box.hidden = true), bad ? 8000 : 4000);
}

function onState(state) {
  ctx.live = state;
  if (!ctx.replay) redraw();
  refreshTopdown(state);
}

// --- drawing ----------------------------------------------------------------------------

export function measuringAllowed(state) {
  if (!state) return false;
  if ("measuring_allowed" in state) return Boolean(state.measuring_allowed);
  const premeasure = !state.ruleset || state.ruleset.premeasure_allowed !== false;
  return premeasure || !String(state.phase || "").includes("order");
}

function fontCm(state) {
  const width = svg.getBoundingClientRect().width || 390;
  return Math.max(0.8, (13 / width) * (state.table.width_cm / ctx.zoom));
}

// The part of the table in view: all of it, or a zoomed window a phone can tap bases in.
function viewBox(state) {
  const { width_cm: w, depth_cm: d } = state.table;
  const vw = w / ctx.zoom;
  const vh = d / ctx.zoom;
  const [cx, cy] = ctx.centre || [w / 2, d / 2];
  const x = Math.min(Math.max(cx - vw / 2, 0), w - vw);
  const y = Math.min(Math.max(cy - vh / 2, 0), d - vh);
  ctx.centre = [x + vw / 2, y + vh / 2];
  return [x, y, vw, vh];
}

function zoom(factor) {
  ctx.zoom = factor ? Math.min(8, Math.max(1, ctx.zoom * factor)) : 1;
  redraw();
}

function redraw() {
  const state = ctx.shown();
  if (!state) return;
  const { width_cm: w, depth_cm: d } = state.table;
  svg.setAttribute("viewBox", viewBox(state).join(" "));
  for (const id of ["#table-mat", "#topdown"]) {
    $(id).setAttribute("width", w);
    $(id).setAttribute("height", d);
  }
  const allowed = measuringAllowed(state);
  const ui = { fontCm: fontCm(state), showMeasurements: allowed, selected: ctx.selected, picked: ctx.picked };
  drawScene(scene, state, ui);
  drawTools(ui, state);
  drawHeader(state);
  drawPlayPanel(state, allowed);
  if (!$("#panel-log").hidden) drawEvents(state);
  $("#topdown").style.display = ctx.replay ? "none" : "";
  ctx.onRedraw && ctx.onRedraw(state);
  if (!performance.getEntriesByName("tablesight-first-overlay").length) performance.mark("tablesight-first-overlay");
}

function drawEvents(state) {
  const box = $("#events");
  box.replaceChildren(...[...(state.events || [])].reverse().map((event) => {
    const li = document.createElement("li");
    li.textContent = `T${event.turn} ${event.phase}: ${event.detail || event.kind}`;
    return li;
  }));
  if (!box.children.length) box.innerHTML = "<li>Nothing has happened yet.</li>";
}

function drawHeader(state) {
  $("#turn").textContent = `Turn ${state.turn ?? "–"} · ${state.phase || "–"}`;
  const status = state.status || {};
  const pill = $("#status");
  if (ctx.replay) {
    pill.textContent = "replay";
    pill.className = "pill";
    $("#status-line").hidden = true;
    return;
  }
  const calibrated = status.calibration && status.calibration.ok;
  pill.textContent = `${status.camera || "?"}${status.fps ? ` ${status.fps.toFixed(1)} fps` : ""}${calibrated ? "" : " · not calibrated"}`;
  pill.className = status.camera === "ok" && calibrated ? "pill" : "pill bad";
  pill.title = status.message || "";
  // A camera or calibration problem is said in words, not only in a red pill.
  const problem = status.camera !== "ok" || !calibrated || (status.calibration && status.calibration.drift);
  $("#status-line").hidden = !problem;
  $("#status-line").textContent = problem
    ? status.message || (calibrated ? `Camera ${status.camera}.` : "Not calibrated: show the camera the markers.")
    : "";
}

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
        el("text", { x: to.x_cm, y: to.y_cm - radiusCm(to) - 0.5, class: "label", "font-size": ui.fontCm * 0.8,
          "text-anchor": "middle" }, tools, formatDistance(target.edge_cm, state.ruleset));
      }
    }
  }
  if (ctx.ruler.length && ui.showMeasurements) {
    const ends = ctx.ruler.map((end) => end.point);
    for (const p of ends) el("circle", { cx: p[0], cy: p[1], r: 0.8, fill: "#f2cc60" }, tools);
    if (ends.length === 2) {
      el("line", { x1: ends[0][0], y1: ends[0][1], x2: ends[1][0], y2: ends[1][1], class: "ruler" }, tools);
      if (ctx.rulerResult) {
        el("text", { x: (ends[0][0] + ends[1][0]) / 2, y: (ends[0][1] + ends[1][1]) / 2 - 1, class: "label",
          "font-size": ui.fontCm, "text-anchor": "middle" }, tools, formatDistance(ctx.rulerResult.edge_cm, state.ruleset));
      }
    }
  }
  if (ctx.draft.length) {
    el(ctx.draft.length > 2 ? "polygon" : "polyline", { points: ctx.draft.map((p) => p.join(",")).join(" "), class: "draft" }, tools);
    for (const p of ctx.draft) el("circle", { cx: p[0], cy: p[1], r: 0.8, fill: "#58a6ff" }, tools);
  }
  if (ctx.lasso) el("polygon", { points: ctx.lasso.map((p) => p.join(",")).join(" "), class: "lasso" }, tools);
}

function drawPlayPanel(state, allowed) {
  $("#premeasure-note").hidden = allowed;
  for (const mode of ["select", "ruler"]) {
    $(`[data-mode="${mode}"]`).hidden = !allowed;
  }
  if (!allowed && (ctx.mode === "select" || ctx.mode === "ruler")) {
    ctx.ranges = null;
    ctx.ruler = [];
  }
  const moves = $("#moves");
  moves.replaceChildren();
  const verdicts = (state.moves && state.moves.models) || {};
  for (const [id, verdict] of Object.entries(verdicts)) {
    const li = document.createElement("li");
    const bad = verdict.legal === false;
    li.className = bad ? "illegal" : "legal";
    li.dataset.id = id;
    const distance = allowed
      ? ` ${formatDistance(verdict.moved_cm, state.ruleset)} / ${formatDistance(verdict.allowance_cm, state.ruleset)}`
      : "";
    // While distances are secret, say what rule broke but not by how much.
    const reasons = (verdict.reasons || [])
      .map((r) => (allowed ? r.detail || r.code : r.code.replaceAll("_", " ")))
      .join("; ");
    li.textContent = `${id}${distance}: ${bad ? `illegal, ${reasons}` : "legal"}`;
    moves.appendChild(li);
  }
  if (!moves.children.length) moves.innerHTML = "<li>No model has moved this phase.</li>";
  const units = $("#units");
  units.replaceChildren();
  for (const [unit, verdict] of Object.entries((state.check && state.check.units) || {})) {
    const li = document.createElement("li");
    li.className = verdict.coherent === false ? "illegal" : "";
    li.textContent = verdict.coherent === false
      ? `${unit}: out of coherency (${verdict.groups.map((g) => g.join(" ")).join(" | ")})`
      : `${unit}: coherent`;
    units.appendChild(li);
  }
  drawInfo(state);
}

function drawInfo(state) {
  const info = $("#info");
  info.replaceChildren();
  const line = (text, cls) => {
    const p = document.createElement("p");
    p.textContent = text;
    if (cls) p.className = cls;
    info.appendChild(p);
    return p;
  };
  if (ctx.ranges) {
    line(`Ranges from ${ctx.ranges.from}:`);
    const list = document.createElement("ul");
    list.className = "list";
    list.id = "ranges";
    for (const t of ctx.ranges.targets || []) {
      const li = document.createElement("li");
      li.dataset.id = t.id;
      const weapons = t.weapons.length ? t.weapons.join(", ") : "nothing reaches";
      li.textContent = `${t.id} (${t.unit}) ${formatDistance(t.edge_cm, state.ruleset)}: ${weapons}`;
      list.appendChild(li);
    }
    info.appendChild(list);
    const piece = pieces(state).find((p) => p.id === ctx.selected);
    if (piece && piece.unit) {
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.id = "ranges-scope";
      toggle.textContent = ctx.rangesFromUnit ? `Ranges from ${piece.id} only` : `Ranges from all of ${piece.unit}`;
      toggle.addEventListener("click", async () => {
        ctx.rangesFromUnit = !ctx.rangesFromUnit;
        await fetchRanges();
        redraw();
      });
      info.appendChild(toggle);
    }
  }
  const moved = ctx.selected && !ctx.replay && state.moves && state.moves.models && state.moves.models[ctx.selected];
  if (moved) {
    const button = document.createElement("button");
    button.type = "button";
    button.id = "reset-model";
    button.textContent = `Put ${ctx.selected} back where the phase began`;
    button.addEventListener("click", () => send("reset_model", { model_id: ctx.selected }));
    info.appendChild(button);
  }
  if (ctx.rulerResult) {
    line(`Ruler: ${formatDistance(ctx.rulerResult.edge_cm, state.ruleset)} edge to edge, ` +
      `${formatDistance(ctx.rulerResult.centre_cm, state.ruleset)} centre to centre.`).id = "ruler-result";
  }
  for (const t of state.templates || []) {
    line(`${t.kind} at ${t.x_cm.toFixed(0)},${t.y_cm.toFixed(0)}: ${t.under.length ? t.under.join(", ") : "nobody"} under it.`);
  }
}

// --- the top-down picture and the camera --------------------------------------------------

let topdownAt = -Infinity;
function refreshTopdown(state) {
  const now = performance.now();
  if (now - topdownAt < 2000 || $("#table-view").hidden) return;
  topdownAt = now;
  const loader = new Image();
  loader.onload = () => $("#topdown").setAttribute("href", loader.src);
  loader.src = `/topdown.jpg?v=${state.version}`;
}

function setView(view) {
  for (const button of document.querySelectorAll("[data-view]")) {
    button.setAttribute("aria-pressed", String(button.dataset.view === view));
  }
  $("#table-view").hidden = view !== "table";
  $("#camera-view").hidden = view !== "camera";
  const camera = $("#camera");
  clearInterval(setView.renew);
  if (view === "camera") {
    camera.src = `/stream.mjpg?t=${Date.now()}`;
    // The server ends each stream after ten minutes so no phone holds a thread for ever.
    setView.renew = setInterval(() => (camera.src = `/stream.mjpg?t=${Date.now()}`), 9 * 60 * 1000);
  } else {
    camera.removeAttribute("src"); // closes the stream: no bandwidth for a hidden picture
  }
}

// --- taps on the table ------------------------------------------------------------------

function tablePoint(event) {
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const p = point.matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y];
}

function pieceAt(point) {
  const state = ctx.shown();
  const slack = fontCm(state) * 0.8; // a fingertip is wider than a 32 mm base on a phone
  let best = null;
  for (const piece of pieces(state)) {
    const d = dist(point, [piece.x_cm, piece.y_cm]) - radiusCm(piece);
    if (d <= slack && (!best || d < best.d)) best = { piece, d };
  }
  return best && best.piece;
}

function setMode(mode) {
  ctx.mode = ctx.mode === mode && mode !== "select" ? "select" : mode;
  for (const button of document.querySelectorAll("[data-mode]")) {
    button.setAttribute("aria-pressed", String(button.dataset.mode === ctx.mode));
  }
  const hints = { select: "Tap a model for its ranges.", ruler: "Tap two models or points.",
    blast: "Tap where the blast lands.", smoke: "Tap where the smoke goes.",
    assign: "Tap models, or drag a loop round them.", terrain: "Tap the corners, then Finish shape.",
    objective: "Tap to place an objective." };
  $("#mode-hint").textContent = hints[ctx.mode] || "";
  if (ctx.mode !== "ruler") ctx.ruler = [];
  redraw();
}

async function onTap(point) {
  const state = ctx.shown();
  const piece = pieceAt(point);
  if (ctx.replay && !["select", "ruler"].includes(ctx.mode)) return;
  switch (ctx.mode) {
    case "select":
      await selectPiece(piece);
      break;
    case "ruler":
      await rulerTap(piece, point);
      break;
    case "blast": {
      const result = await send("template", { kind: "blast", x_cm: point[0], y_cm: point[1],
        radius_cm: Number($("#blast-radius").value) || 5 });
      if (result) show(`Under the blast: ${result.under && result.under.length ? result.under.join(", ") : "nobody"}.`);
      break;
    }
    case "smoke": {
      const result = await send("template", { kind: "smoke", x_cm: point[0], y_cm: point[1],
        length_cm: Number($("#smoke-length").value) || 15, width_cm: 5,
        heading_deg: (Number($("#smoke-heading").value) || 0) % 360 });
      if (result) show(`Under the smoke: ${result.under && result.under.length ? result.under.join(", ") : "nobody"}.`);
      break;
    }
    case "assign":
      if (piece) ctx.picked.has(piece.id) ? ctx.picked.delete(piece.id) : ctx.picked.add(piece.id);
      break;
    case "terrain":
      ctx.draft.push(point.map((v) => Math.round(v * 10) / 10));
      break;
    case "objective": {
      const objectives = [...(state.objectives || [])];
      let n = objectives.length + 1;
      while (objectives.some((o) => o.id === `obj${n}`)) n += 1;
      objectives.push({ id: `obj${n}`, x_cm: Math.round(point[0] * 10) / 10, y_cm: Math.round(point[1] * 10) / 10,
        diameter_mm: 40 });
      await send("objectives", { objectives });
      break;
    }
    default:
      break;
  }
  redraw();
}

async function selectPiece(piece) {
  ctx.rulerResult = null;
  if (!piece || !piece.side || ctx.selected === piece.id) {
    ctx.selected = null;
    ctx.ranges = null;
    if (piece && !piece.side) show(`${piece.id} has no side yet: assign it in Setup.`, true);
    return;
  }
  ctx.selected = piece.id;
  ctx.rangesFromUnit = false;
  await fetchRanges();
}

async function fetchRanges() {
  const piece = pieces(ctx.live).find((p) => p.id === ctx.selected);
  if (!piece || ctx.replay || !measuringAllowed(ctx.live)) return;
  const from = ctx.rangesFromUnit && piece.unit ? piece.unit : piece.id;
  try {
    ctx.ranges = await getJson(`/api/ranges?from=${encodeURIComponent(from)}`);
  } catch (error) {
    ctx.ranges = null;
    show(error.message, true);
  }
}

async function rulerTap(piece, point) {
  if (ctx.ruler.length === 2) {
    ctx.ruler = [];
    ctx.rulerResult = null;
  }
  ctx.ruler.push(piece ? { id: piece.id, point: [piece.x_cm, piece.y_cm] } : { point });
  if (ctx.ruler.length < 2) return;
  const end = (e) => e.id || `${e.point[0].toFixed(1)},${e.point[1].toFixed(1)}`;
  try {
    ctx.rulerResult = await getJson(`/api/measure?a=${encodeURIComponent(end(ctx.ruler[0]))}&b=${encodeURIComponent(end(ctx.ruler[1]))}`);
  } catch (error) {
    ctx.rulerResult = null;
    show(error.message, true);
  }
}

function wirePointer() {
  let down = null;
  svg.addEventListener("pointerdown", (event) => {
    if (!ctx.shown()) return;
    down = { point: tablePoint(event), moved: false, x: event.clientX, y: event.clientY,
      startX: event.clientX, startY: event.clientY };
    if (ctx.mode === "assign") ctx.lasso = [down.point];
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", (event) => {
    if (!down) return;
    const point = tablePoint(event);
    // A finger wobbles: only a slide of more than 8 px is a drag rather than a tap.
    if (Math.hypot(event.clientX - down.startX, event.clientY - down.startY) > 8) down.moved = true;
    if (ctx.lasso && down.moved) {
      ctx.lasso.push(point);
      drawTools({ fontCm: fontCm(ctx.shown()), showMeasurements: measuringAllowed(ctx.shown()) }, ctx.shown());
    } else if (!ctx.lasso && ctx.zoom > 1 && down.moved) {
      // Drag to pan a zoomed table: screen pixels to table cm at the current scale.
      const cmPerPixel = ctx.shown().table.width_cm / ctx.zoom / svg.getBoundingClientRect().width;
      ctx.centre = [ctx.centre[0] - (event.clientX - down.x) * cmPerPixel,
        ctx.centre[1] - (event.clientY - down.y) * cmPerPixel];
      down.x = event.clientX;
      down.y = event.clientY;
      redraw();
    }
  });
  const finish = (event) => {
    if (!down) return;
    const { point, moved } = down;
    down = null;
    if (ctx.mode === "assign" && moved && ctx.lasso && ctx.lasso.length > 2) {
      ctx.onLasso(ctx.lasso);
      ctx.lasso = null;
      redraw();
      return;
    }
    ctx.lasso = null;
    if (!moved) onTap(event.type === "pointerup" ? tablePoint(event) : point);
  };
  svg.addEventListener("pointerup", finish);
  svg.addEventListener("pointercancel", () => {
    down = null;
    ctx.lasso = null;
  });
}

// --- buttons ----------------------------------------------------------------------------

function wireButtons() {
  const actions = {
    "next-phase": () => send("phase", { to: "next" }),
    "next-turn": () => send("next_turn", {}),
    undo: () => send("undo", {}),
    "clear-templates": () => send("clear_templates", {}),
    recalibrate: async () => {
      if (await send("recalibrate", {})) show("Recalibrating on the markers.");
    },
  };
  ctx.actions = actions;
  document.body.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.mode) setMode(button.dataset.mode);
    if (button.dataset.view) setView(button.dataset.view);
    if (button.dataset.zoom) zoom({ in: 2, out: 0.5, fit: 0 }[button.dataset.zoom]);
    if (button.dataset.tab) setTab(button.dataset.tab);
    if (button.dataset.action && ctx.actions[button.dataset.action]) ctx.actions[button.dataset.action]();
  });
  $("#pin-button").addEventListener("click", async () => {
    const pin = await askPin();
    if (pin) {
      storePin(pin);
      show("PIN saved for this tab.");
    }
  });
}

function setTab(tab) {
  for (const button of document.querySelectorAll("[data-tab]")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === tab));
  }
  for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== `panel-${tab}`;
  if (tab === "log" && ctx.live) drawEvents(ctx.live);
  ctx.onTab && ctx.onTab(tab);
}

// --- start ------------------------------------------------------------------------------

wireButtons();
wirePointer();
initSetup(ctx);
initReplay(ctx);
subscribe(onState, (connected) => {
  if (!connected) $("#status").textContent = "reconnecting…";
});
getJson("/api/state").then(onState).catch((error) => show(error.message, true));
window.addEventListener("resize", redraw);
window.tablesight = ctx; // for the browser tests and curious players
