// The page: pushed state in, overlay and panels out, taps turned into questions and actions.

import { action, ApiError, getJson, storePin, subscribe } from "./api.js";
import { Labels } from "./labels.js";
import { drawScene, measuringAllowed } from "./overlay.js";
import { drawPlayPanel, initPlay } from "./play.js";
import { initReplay } from "./replay.js";
import { rulesetTools } from "./rulesets.js";
import { initSetup } from "./setup.js";
import { initTable, markersTable } from "./table.js";

const $ = (selector) => document.querySelector(selector);
const svg = $("#overlay");
const scene = $("#layer-scene");

const ctx = {
  live: null, // the newest pushed state
  liveAt: null, // when it came: shown while the rig is not answering
  tools: null, // the live ruleset's templates, deployment kinds and unit types (rulesets.js)
  run: null, // the run of the rig the live state came from (status.run)
  loop: 0, // its looping replay's fresh games (status.loop)
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

function askPin(reason = "") {
  const dialog = $("#pin-dialog");
  const input = $("#pin-input");
  const why = $("#pin-reason");
  input.value = "";
  why.textContent = reason;
  why.hidden = !reason;
  dialog.showModal();
  return new Promise((resolve) => {
    let answered = false;
    const done = (pin) => {
      if (answered) return;
      answered = true;
      $("#pin-form").removeEventListener("submit", onSubmit);
      $("#pin-cancel").removeEventListener("click", onCancel);
      dialog.removeEventListener("close", onClose);
      if (dialog.open) dialog.close();
      resolve(pin);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      done(input.value.trim() || null);
    };
    const onCancel = () => done(null);
    // Escape, or a phone's Back, closes the dialog without Cancel: that is no PIN either. Left
    // waiting, the control went out with the next PIN typed, beside the next one: twice.
    const onClose = () => done(null);
    $("#pin-form").addEventListener("submit", onSubmit);
    $("#pin-cancel").addEventListener("click", onCancel);
    dialog.addEventListener("close", onClose);
  });
}

// What a control that worked says, so every tap gets an answer; callers with more to say
// (who is under a template) say it after.
const DONE = {
  setup: "Game settings applied.", assign: "Models assigned.", terrain: "Terrain saved.",
  objectives: "Objectives saved.", deployment: "Deployment set.", phase: "Phase changed.",
  next_turn: "Next turn.", undo: "Undone: back one phase.", reset_model: "Model put back where the phase began.",
  recalibrate: "Recalibrating on the markers.", template: "Template placed.", clear_templates: "Templates cleared.",
};

async function send(name, payload) {
  show(""); // an old answer must not stand for this one
  try {
    const result = await action(name, payload, askPin);
    // A turn control the game had moved on from (a second tap, another phone's at the same
    // moment) changes nothing: said as it is, not as done.
    show(result && result.applied === false ? result.note : DONE[name] || "Done.");
    return result;
  } catch (error) {
    show(error instanceof ApiError ? error.message : String(error), true);
    return null;
  }
}

// The answer to a tap, in a toast fixed near the bottom of the screen: seen wherever the page
// is scrolled to, and pushing nothing else out of the way.
function show(text, bad = false) {
  const box = $("#message");
  box.textContent = text;
  box.className = bad ? "toast bad" : "toast";
  box.hidden = !text;
  clearTimeout(show.timer);
  if (text) show.timer = setTimeout(() => (box.hidden = true), bad ? 8000 : 4000);
}

function onState(state) {
  const rulesetChanged = !ctx.live || !ctx.tools || ctx.tools.id !== (state.ruleset || {}).id;
  noticeRestart(state);
  ctx.live = state;
  ctx.liveAt = new Date();
  setConnected(true);
  if (rulesetChanged && state.ruleset) loadTools(state.ruleset.id);
  if (!ctx.replay) ctx.followRanges(state); // the ranges shown are the table's as it is now
  if (!ctx.replay) redraw();
  refreshTopdown(state);
}

// A rig restarted (`tablesight serve` or `demo` run again) begins its game again: a phone left
// open saw turn 3 become turn 1 with no word why. Said once, at the new run's first state; and
// so is each new loop of a replay that loops (the demo plays its recorded game over and over).
function noticeRestart(state) {
  const run = state.status && state.status.run;
  const loop = (state.status && state.status.loop) || 0;
  if (!run) return;
  const restarted = ctx.run && run !== ctx.run;
  const looped = ctx.run && !restarted && loop > ctx.loop;
  ctx.run = run;
  ctx.loop = loop;
  if (!restarted && !looped) return;
  // A loop replays the same recording, whose ids name the same pieces: picks and measures stay.
  const cleared = restarted && forgetOldGame() ? " Picks and measures of the old game are cleared." : "";
  if (looped && ctx.onNewGame) ctx.onNewGame();
  show(restarted
    ? `The table was restarted, so the game began again: it is turn ${state.turn}, ${state.phase} now.${cleared}`
    : `The recorded game began again from its start (it replays in a loop): turn ${state.turn}, ${state.phase}.${cleared}`);
}

// What the phone held of the old run's game goes with it: a restarted rig's ids may name other
// pieces, or none, so models picked for Assign stayed picked and a tap on Assign gave them to the wrong
// pieces; ranges and rulers measured pieces that had jumped back. A replay on show keeps its own
// selection and ruler (measured on the recording, not on the live game). Says whether any was held.
function forgetOldGame() {
  const measures = ctx.replay ? {} : { selected: ctx.selected, ranges: ctx.ranges, ruler: ctx.ruler.length };
  const held = ctx.picked.size || ctx.draft.length || Object.values(measures).some(Boolean);
  if (!ctx.replay) {
    Object.assign(ctx, { selected: null, ranges: null, rangesFromUnit: false, ruler: [], rulerResult: null });
  }
  ctx.picked.clear();
  Object.assign(ctx, { draft: [], lasso: null });
  if (ctx.onNewGame) ctx.onNewGame(); // the Setup forms' choices made for the old game
  return Boolean(held);
}

async function loadTools(id) {
  try {
    const tools = await rulesetTools(id);
    if (ctx.live && ctx.live.ruleset && ctx.live.ruleset.id === id) {
      ctx.tools = tools;
      redraw();
    }
  } catch {
    ctx.tools = null; // asked again with the next state
  }
}

const RECONNECT_SAID_MS = 2000;

// A stream that drops and comes back within a few seconds is routine (the rig ends each one
// after 30 s); one that stays down means the table shown is no longer the live one. A phone that
// has just lost its network knows at once (noNetwork), and says so then.
function setConnected(connected, noNetwork = false) {
  if (connected) {
    const wasLost = document.body.classList.contains("offline");
    clearTimeout(setConnected.timer);
    clearTimeout(setConnected.pill);
    setConnected.timer = null;
    document.body.classList.remove("offline");
    $("#offline").hidden = true;
    if (ctx.shown()) drawHeader(ctx.shown()); // the pill says "reconnecting…" no longer
    if (wasLost) pictureBack();
    return;
  }
  if (noNetwork) {
    clearTimeout(setConnected.pill);
    clearTimeout(setConnected.timer);
    setConnected.timer = -1; // said: the routine wait below is not begun again
    lostContact();
    return;
  }
  if (setConnected.timer) {
    // Each failed retry must not put the verdict off again; said again, it no longer blames the
    // phone's network once that is back and only the rig is missing.
    if (document.body.classList.contains("offline")) lostContact();
    return;
  }
  // The browser is back within a second of a stream the rig ended: said at once, that routine
  // reconnect flashed "reconnecting…" twice a minute. Only a reconnect that lingers is said.
  setConnected.pill = setTimeout(() => ($("#status").textContent = "reconnecting…"), RECONNECT_SAID_MS);
  setConnected.timer = setTimeout(lostContact, 3000);
}

function lostContact() {
  document.body.classList.add("offline");
  $("#status").textContent = "offline";
  $("#status").className = "pill bad";
  const when = ctx.liveAt ? ctx.liveAt.toLocaleTimeString() : "never";
  const why = navigator.onLine ? "" : " this phone has no network, so";
  $("#offline").textContent = `Lost contact with the rig:${why} the table shown is as it was at ${when}, not live.`;
  $("#offline").hidden = false;
}

// --- drawing ----------------------------------------------------------------------------

function redraw() {
  const state = ctx.shown();
  if (!state) return;
  const { width_cm: w, depth_cm: d } = state.table;
  const view = ctx.viewBox(state);
  svg.setAttribute("viewBox", view.join(" "));
  svg.classList.toggle("grab", ctx.grabsTouch()); // read by the next finger to land (style.css)
  $("#table-mat").setAttribute("width", w);
  $("#table-mat").setAttribute("height", d);
  // The picture is the markers' table, drawn at its own size whatever the game is set to.
  const [mw, md] = markersTable(state);
  $("#topdown").setAttribute("width", mw);
  $("#topdown").setAttribute("height", md);
  const allowed = measuringAllowed(state);
  const ui = { fontCm: ctx.fontCm(state), showMeasurements: allowed, selected: ctx.selected, picked: ctx.picked,
    labels: new Labels(view), templateSizes: (kind) => templateSize(kind, state) };
  // The scene is drawn anew: a model focused from the keyboard keeps the focus in its new mark.
  const focused = scene.contains(document.activeElement) ? document.activeElement.dataset.id : null;
  drawScene(scene, state, ui);
  if (focused) {
    const again = scene.querySelector(`#pieces [data-id="${CSS.escape(focused)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  ctx.drawTools(ui, state);
  ui.labels.draw($("#layer-labels"));
  drawHeader(state);
  // A replay shows the past: what would change the live game is switched off while it is up.
  for (const control of document.querySelectorAll("[data-live]")) control.disabled = Boolean(ctx.replay);
  markPending(); // a button whose request is on its way stays off through the redraws meanwhile
  $("#replay-note").hidden = !ctx.replay;
  $("#mode-hint").textContent = ctx.modeHint();
  drawPlayPanel(ctx, state, allowed);
  if (!$("#panel-log").hidden) drawEvents(state);
  $("#topdown").style.display = ctx.replay ? "none" : "";
  ctx.onRedraw && ctx.onRedraw(state);
  if (!performance.getEntriesByName("tablesight-first-overlay").length) performance.mark("tablesight-first-overlay");
}

// A strip template's size in cm, from the live ruleset (an entry sent without one).
function templateSize(kind, state) {
  const spec = ctx.tools && ctx.tools.templates.find((t) => t.kind === kind);
  const unitCm = (state.ruleset && state.ruleset.unit_cm) || 1;
  return spec && spec.length ? { length_cm: spec.length * unitCm, width_cm: spec.width * unitCm } : null;
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
  if (document.body.classList.contains("offline")) return;
  if (ctx.replay) {
    pill.textContent = "replay";
    pill.className = "pill";
    $("#status-line").hidden = true;
    return;
  }
  const calibrated = status.calibration && status.calibration.ok;
  // The frame rate is the camera's while it delivers: a lost one kept its last ("lost 3.5 fps").
  const fps = status.camera === "ok" && status.fps ? ` ${status.fps.toFixed(1)} fps` : "";
  const camera = status.camera && status.camera !== "ok" ? `camera ${status.camera}` : status.camera || "?";
  // Hands over the table: positions wait until they leave, which a player otherwise took for a
  // rig that had stopped following the game (`status.settled`, sent and never shown before).
  const hands = status.camera === "ok" && calibrated && status.settled === false ? " · hands" : "";
  pill.textContent = `${camera}${fps}${calibrated ? "" : " · not calibrated"}${hands}`;
  pill.className = status.camera === "ok" && calibrated ? "pill" : "pill bad";
  drawCameraNote(status);
  pill.title = status.message || (hands ? "Hands over the table: the models are measured once they leave." : "");
  // A camera or calibration problem is said in words, not only in a red pill.
  const problem = status.camera !== "ok" || !calibrated || (status.calibration && status.calibration.drift);
  // Advice the game goes on under: the markers laid for another table, and too little detail
  // per pixel for the detector (said as `detect` and `track` say it).
  const advice = calibrated
    ? [tableMismatch(state), status.calibration.detail].filter(Boolean).join(" ")
    : "";
  $("#status-line").hidden = !problem && !advice;
  $("#status-line").textContent = problem
    ? status.message || (calibrated ? `Camera ${status.camera}.` : "Not calibrated: show the camera the markers.")
    : advice;
}

// A game set to another table than the markers are laid for: said, since its edges, zones and
// objectives are drawn on the game's table while the picture is the markers'.
function tableMismatch(state) {
  const [mw, md] = markersTable(state);
  const { width_cm: w, depth_cm: d } = state.table;
  if (Math.abs(mw - w) <= 1 && Math.abs(md - d) <= 1) return "";
  return `The markers are laid out for a ${mw} × ${md} cm table, but the game is set to ${w} × ${d} cm: ` +
    "set the table in Setup to the markers' size, or lay out markers for this table.";
}

// --- the top-down picture and the camera --------------------------------------------------

// The Camera view of a camera that is gone showed an empty black box (or its last frame) and
// nothing more: it says so over the picture.
function drawCameraNote(status) {
  const note = $("#camera-gone");
  const gone = !$("#camera-view").hidden && Boolean(status.camera) && status.camera !== "ok";
  note.hidden = !gone;
  if (gone) note.textContent = `No live picture: the camera is ${status.camera}. ${status.message || ""}`.trim();
}

let topdownAt = -Infinity;
// One photo at a time: on a slow link a new one every 2 s queued behind the last (25 in flight
// after 3 minutes at 50 kbit/s, most of the bytes, the one shown 1.5 minutes old).
let topdownLoader = null;

function refreshTopdown(state) {
  const now = performance.now();
  // Uncalibrated, the rig has no top-down view to give (a 503, and a console error per ask).
  const calibrated = state.status && state.status.calibration && state.status.calibration.ok;
  if (!calibrated || topdownLoader || now - topdownAt < 2000 || $("#table-view").hidden) return;
  topdownAt = now;
  const loader = new Image();
  topdownLoader = loader;
  loader.onload = () => {
    if (topdownLoader !== loader) return; // let go of (pictureBack), and older than the one asked since
    topdownLoader = null;
    $("#topdown").setAttribute("href", loader.src);
  };
  loader.onerror = () => topdownLoader === loader && (topdownLoader = null);
  // The run too: a restarted rig counts versions from 1 again (as the event ids say).
  loader.src = `/topdown.jpg?v=${(state.status && state.status.run) || ""}.${state.version}`;
}

// The rig back after contact was lost: the pictures cut off with it are asked for again. The
// Camera view's stream had ended and waited for its 9-minute renewal; a photo asked as the link
// went could hang for minutes, and no other is asked while one is out.
function pictureBack() {
  if (topdownLoader) topdownLoader.src = "";
  topdownLoader = null;
  if (!$("#camera-view").hidden) watchCamera();
}

function watchCamera() {
  $("#camera").src = `/stream.mjpg?t=${Date.now()}`;
}

function setView(view) {
  for (const button of document.querySelectorAll("[data-view]")) {
    button.setAttribute("aria-pressed", String(button.dataset.view === view));
  }
  $("#table-view").hidden = view !== "table";
  $("#camera-view").hidden = view !== "camera";
  // Zoom is the table's: in camera view it zoomed the hidden table, found zoomed on the way back.
  for (const button of document.querySelectorAll("[data-zoom]")) button.hidden = view !== "table";
  const camera = $("#camera");
  clearInterval(setView.renew);
  if (ctx.live) drawCameraNote(ctx.live.status || {});
  if (view === "camera") {
    watchCamera();
    // The server ends each stream after ten minutes so no phone holds a thread for ever.
    setView.renew = setInterval(watchCamera, 9 * 60 * 1000);
  } else {
    camera.removeAttribute("src"); // closes the stream: no bandwidth for a hidden picture
  }
}

// --- buttons ----------------------------------------------------------------------------

// The turn and phase a turn control is tapped at: the rig applies it only while the game is
// still there, so a double tap (or a second phone's tap) takes one step, not two.
function tappedAt() {
  return ctx.live ? { from: { turn: ctx.live.turn, phase: ctx.live.phase } } : {};
}

// Buttons whose request is on its way (their data-action): a second tap meanwhile is not sent.
// The turn controls are one group: Next phase then Next turn at once would both step.
const pending = new Set();
const TURN_ACTIONS = ["next-phase", "next-turn", "undo", "phase-to"];

function busyKey(name) {
  return TURN_ACTIONS.includes(name) ? "turn" : name;
}

function markPending() {
  for (const button of document.querySelectorAll("button[data-action]")) {
    const busy = pending.has(busyKey(button.dataset.action));
    button.toggleAttribute("aria-busy", busy);
    button.disabled = busy || (button.hasAttribute("data-live") && Boolean(ctx.replay));
  }
}

async function runAction(name) {
  const key = busyKey(name);
  if (pending.has(key)) return;
  pending.add(key);
  markPending();
  try {
    await ctx.actions[name]();
  } finally {
    pending.delete(key);
    markPending();
  }
}

// The picker offers the phase the game is in first: sent, the rig began that phase again and
// its moves' verdicts went (an illegal move forgotten) under "Phase changed.".
function goToPhase() {
  const to = $("#phase-to").value;
  if (ctx.live && to === ctx.live.phase) {
    show(`The game is in the ${to} phase already: pick another phase to go to.`, true);
    return null;
  }
  return send("phase", { to, ...tappedAt() });
}

function wireButtons() {
  const actions = {
    "next-phase": () => send("phase", { to: "next", ...tappedAt() }),
    "next-turn": () => send("next_turn", tappedAt()),
    undo: () => send("undo", tappedAt()),
    "phase-to": goToPhase,
    "clear-templates": () => send("clear_templates", {}),
    recalibrate: () => send("recalibrate", {}),
  };
  ctx.actions = actions;
  document.body.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.mode) ctx.setMode(button.dataset.mode);
    if (button.dataset.view) setView(button.dataset.view);
    if (button.dataset.zoom) ctx.zoomBy({ in: 2, out: 0.5, fit: 0 }[button.dataset.zoom]);
    if (button.dataset.tab) setTab(button.dataset.tab);
    if (button.dataset.action && ctx.actions[button.dataset.action]) runAction(button.dataset.action);
  });
  $("[role=tablist]").addEventListener("keydown", tabKeys);
  $("#message").addEventListener("click", () => show(""));
  $("#pin-button").addEventListener("click", async () => {
    const pin = await askPin();
    if (pin) {
      storePin(pin);
      show("PIN saved for this tab; the rig checks it at the next control you use.");
    }
  });
}

// The tab list as screen readers and keyboards expect it (WAI-ARIA tabs): one stop in the Tab
// order, the arrow keys (and Home, End) move between the tabs and show each one's panel.
function tabKeys(event) {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  const at = tabs.indexOf(document.activeElement);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
  if (at < 0 || to === undefined) return;
  event.preventDefault();
  const tab = tabs[(to + tabs.length) % tabs.length];
  setTab(tab.dataset.tab);
  tab.focus();
}

function setTab(tab) {
  for (const button of document.querySelectorAll("[data-tab]")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === tab));
    button.tabIndex = button.dataset.tab === tab ? 0 : -1; // Tab goes to the panel; arrows pick the tab
  }
  const changed = !$(`#panel-${tab}`) || $(`#panel-${tab}`).hidden;
  for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== `panel-${tab}`;
  // A tool is its panel's: Setup's Pick models left on made Play's taps pick models silently,
  // with no tool button pressed and the table holding the finger. Each tab starts on Ranges.
  if (changed && ctx.mode !== "select") ctx.setMode("select");
  if (tab === "log" && ctx.live) drawEvents(ctx.live);
  ctx.onTab && ctx.onTab(tab);
}

// --- start ------------------------------------------------------------------------------

wireButtons();
initTable(ctx);
initPlay(ctx);
initSetup(ctx);
initReplay(ctx);
subscribe(onState, setConnected);
// The first look may be answered after the stream has pushed a newer state: it must not undo it.
getJson("/api/state")
  .then((state) => (!ctx.live || state.version > ctx.live.version) && onState(state))
  .catch((error) => show(error.message, true));
window.addEventListener("resize", redraw);
window.tablesight = ctx; // for the browser tests and curious players
