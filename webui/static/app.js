// The page: pushed state in, overlay and panels out, taps turned into questions and actions.

import { action, ApiError, getJson, storePin, subscribe } from "./api.js";
import { drawScene, measuringAllowed } from "./overlay.js";
import { drawPlayPanel } from "./play.js";
import { initReplay } from "./replay.js";
import { initSetup } from "./setup.js";
import { initTable } from "./table.js";

const $ = (selector) => document.querySelector(selector);
const svg = $("#overlay");
const scene = $("#layer-scene");

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
  shown() {
    return this.replay || this.live;
  },
  redraw,
  send,
  show,
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

function redraw() {
  const state = ctx.shown();
  if (!state) return;
  const { width_cm: w, depth_cm: d } = state.table;
  svg.setAttribute("viewBox", ctx.viewBox(state).join(" "));
  for (const id of ["#table-mat", "#topdown"]) {
    $(id).setAttribute("width", w);
    $(id).setAttribute("height", d);
  }
  const allowed = measuringAllowed(state);
  const ui = { fontCm: ctx.fontCm(state), showMeasurements: allowed, selected: ctx.selected, picked: ctx.picked };
  drawScene(scene, state, ui);
  ctx.drawTools(ui, state);
  drawHeader(state);
  drawPlayPanel(ctx, state, allowed);
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

// --- buttons ----------------------------------------------------------------------------

function wireButtons() {
  const actions = {
    "next-phase": () => send("phase", { to: "next" }),
    "next-turn": () => send("next_turn", {}),
    undo: () => send("undo", {}),
    "phase-to": () => send("phase", { to: $("#phase-to").value }),
    "clear-templates": () => send("clear_templates", {}),
    recalibrate: async () => {
      if (await send("recalibrate", {})) show("Recalibrating on the markers.");
    },
  };
  ctx.actions = actions;
  document.body.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.mode) ctx.setMode(button.dataset.mode);
    if (button.dataset.view) setView(button.dataset.view);
    if (button.dataset.zoom) ctx.zoomBy({ in: 2, out: 0.5, fit: 0 }[button.dataset.zoom]);
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
initTable(ctx);
initSetup(ctx);
initReplay(ctx);
subscribe(onState, (connected) => {
  if (!connected) $("#status").textContent = "reconnecting…";
});
getJson("/api/state").then(onState).catch((error) => show(error.message, true));
window.addEventListener("resize", redraw);
window.tablesight = ctx; // for the browser tests and curious players
