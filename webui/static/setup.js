// The Setup panel: game settings, calibration, assigning models, terrain, deployment, objectives.
// Unit types and deployment kinds are the ruleset's own (rulesets.js); the session checks the
// rest against the ruleset and says what is wrong.

import { getJson } from "./api.js";
import { insidePolygon } from "./geometry.js";
import { pieces } from "./overlay.js";
import { rulesetTools } from "./rulesets.js";

const $ = (selector) => document.querySelector(selector);

const TERRAIN_KINDS = ["forest", "ruins", "building", "wall", "fence", "hedge", "trench", "water", "hill", "road",
  "impassable"];
const EDGES = ["left", "right", "top", "bottom"];
const QUARTERS = ["top-left", "top-right", "bottom-left", "bottom-right"];

function mm(value) {
  return typeof value === "number" ? `${value.toFixed(2)} mm` : "? mm";
}

function options(select, values, current) {
  select.replaceChildren(...values.map((value) => new Option(value, value, false, value === current)));
}

function datalist(list, values) {
  list.replaceChildren(...[...new Set(values.filter(Boolean))].sort().map((value) => new Option(value)));
}

// Where a side may deploy under a kind: a strip along the edges it allows (short or long ones
// of this table), or a quarter's corner.
function places(spec, table) {
  if (spec.shape !== "edge_strip") return QUARTERS;
  if (spec.edges === "any" || table.width_cm === table.depth_cm) return EDGES;
  const leftRightShort = table.depth_cm < table.width_cm;
  return (spec.edges === "short") === leftRightShort ? ["left", "right"] : ["top", "bottom"];
}

// How far a point stands from a place: from an edge, or from the middle of a quarter.
function awayFrom(place, [x, y], table) {
  const { width_cm: w, depth_cm: d } = table;
  const edges = { left: x, right: w - x, top: y, bottom: d - y };
  if (place in edges) return edges[place];
  const [row, column] = place.split("-");
  return Math.hypot(x - (column === "left" ? w / 4 : 3 * w / 4), y - (row === "top" ? d / 4 : 3 * d / 4));
}

// The place each side is offered: the one the game gave it where the kind has it, else the free
// place nearest where its models stand (by their middle). Offered in the order of the sides'
// names, red standing on the left got the right edge, and a player who took the form as it came
// swapped the zones. A place goes to two sides only when there are more sides than places.
function placesOffered(sides, where, given, state) {
  const offered = Object.fromEntries(sides.filter((side) => where.includes(given[side]))
    .map((side) => [side, given[side]]));
  const choices = sides.filter((side) => !(side in offered)).flatMap((side) => {
    const own = pieces(state).filter((p) => p.side === side);
    const middle = [0, 1].map((i) => own.reduce((sum, p) => sum + [p.x_cm, p.y_cm][i], 0) / own.length);
    return where.map((place) => ({ side, place, away: awayFrom(place, middle, state.table) }));
  }).sort((a, b) => a.away - b.away);
  for (const free of [true, false]) {
    for (const { side, place } of choices) {
      if (!(side in offered) && (!free || !Object.values(offered).includes(place))) offered[side] = place;
    }
  }
  return offered;
}

const NOT_DEPLOYING = "";

// The Assign panel's fields (#assign-...), named as the state's models and the assign control
// name them; the lists are typed comma-separated. Side, unit and type left out keep each model's.
const ASSIGN_FIELDS = ["side", "unit", "type", "chassis", "role", "weapons", "flags", "order"];
const IDENTITY = ["side", "unit", "type"];
const KIND = ["chassis", "role", "weapons"]; // what a model is in the ruleset: set anew with side, unit and type
const LISTS = ["weapons", "flags"];
const ON_THE_TABLE = ["flags", "order", "wounded"]; // a model's state as the game goes
const DIFFER = "differs: each keeps its own";

const listed = (value) => (Array.isArray(value) ? value.join(", ") : value || "");
const typedList = (text) => text.split(",").map((name) => name.trim()).filter(Boolean);

export function initSetup(ctx) {
  let sidesShown = "";
  // The places the last deployment gave: after Clear deployment they are still the game's sides.
  let sidesGiven = {};
  let rulesetShown = null;
  let tableShown = null; // the game's table the Game form was last filled with
  let orphansTold = null; // the ruleset and models last warned of: a second Apply unassigns them
  let installed = [];
  let pickShown = null; // the picked models the Assign fields were last filled from
  let shown = {}; // what each field was filled with (null: the picked models differ)
  for (const field of ASSIGN_FIELDS) $(`#assign-${field}`).dataset.hint = $(`#assign-${field}`).placeholder;
  getJson("/api/rulesets")
    .then((body) => {
      installed = body.rulesets;
      rulesetShown = null;
      ctx.redraw();
    })
    .catch(() => {}); // the live ruleset stays offered
  options($("#terrain-kind"), TERRAIN_KINDS, "forest");

  const syncStep = () => {
    const chosen = installed.find((r) => r.id === $("#ruleset").value);
    $("#step-field").hidden = !chosen || chosen.unit !== "step";
  };
  $("#ruleset").addEventListener("change", syncStep);
  // The field shows the game's step, not a built-in 5 that the next Apply sent back as the step.
  let stepShown = null;
  const showStep = (ruleset) => {
    const step = ruleset && ruleset.unit === "step" ? `${ruleset.id}|${ruleset.unit_cm}` : null;
    if (!step || step === stepShown) return;
    stepShown = step;
    $("#step-cm").value = ruleset.unit_cm;
  };
  $("#table-size").addEventListener("change", () => {
    $("#custom-size").hidden = $("#table-size").value !== "custom";
  });

  const deploymentKinds = () => (ctx.tools && ctx.tools.deployment_kinds) || [];

  const drawDeployment = (state) => {
    const kinds = deploymentKinds();
    const select = $("#deployment-kind");
    const offered = kinds.map((k) => k.kind).join(",");
    if (select.dataset.kinds !== offered) {
      select.dataset.kinds = offered;
      options(select, kinds.map((k) => k.kind), (state.deployment && state.deployment.kind) || select.value);
    }
    $("#deployment-form").hidden = !kinds.length;
    $("#no-deployment").hidden = !ctx.tools || Boolean(kinds.length);
    $("#no-deployment").textContent = `${(state.ruleset && state.ruleset.title) || "This ruleset"} defines no deployment kinds.`;
    const spec = kinds.find((k) => k.kind === select.value);
    const sides = [...new Set(pieces(state).map((p) => p.side).filter(Boolean))].sort();
    // The game's deployment is in it: one set from another phone is the one offered here.
    const key = `${sides.join(",")}|${select.value}|${state.table.width_cm}x${state.table.depth_cm}|` +
      JSON.stringify(state.deployment);
    // A game begun again (a restart, another ruleset) has no places given any more.
    sidesGiven = state.deployment ? state.deployment.sides || {} : {};
    if (!spec || key === sidesShown) return;
    sidesShown = key;
    const where = places(spec, state.table);
    const placed = placesOffered(sides, where, sidesGiven, state);
    // Under a kind only some sides use, a side the game's deployment of that kind leaves out does
    // not deploy by it: offered a place, Apply would have made it deploy so.
    const leftOut = spec.one_sided && state.deployment && state.deployment.kind === spec.kind
      ? sides.filter((side) => !(side in sidesGiven)) : [];
    $("#deployment-sides").replaceChildren(...sides.map((side) => {
      const label = document.createElement("label");
      label.textContent = `${side} deploys at`;
      const select = document.createElement("select");
      select.dataset.side = side;
      // Some kinds only some sides use (Tankomaster's ambush is the defender's).
      options(select, spec.one_sided ? [NOT_DEPLOYING, ...where] : where,
        leftOut.includes(side) ? NOT_DEPLOYING : placed[side]);
      if (spec.one_sided) select.options[0].textContent = "does not deploy this way";
      label.appendChild(select);
      return label;
    }));
  };
  $("#deployment-kind").addEventListener("change", () => ctx.live && drawDeployment(ctx.live));

  ctx.onRedraw = (state) => {
    if (ctx.replay) return;
    const ruleset = state.ruleset || {};
    // The Game form follows the game: a table another phone set, left out of the form, went back
    // to the old one with this phone's next Apply. A ruleset chosen here stays while only the
    // table changes.
    const table = `${state.table.width_cm}x${state.table.depth_cm}`;
    if (rulesetShown !== ruleset.id || tableShown !== table) {
      if (rulesetShown !== ruleset.id) {
        const ids = [...new Set([...installed.map((r) => r.id), ruleset.id].filter(Boolean))];
        options($("#ruleset"), ids, ruleset.id);
      }
      rulesetShown = ruleset.id;
      tableShown = table;
      const size = `${Math.round(state.table.width_cm)}x${Math.round(state.table.depth_cm)}`;
      const known = [...$("#table-size").options].some((o) => o.value === size);
      $("#table-size").value = known ? size : "custom";
      $("#custom-size").hidden = known;
      $("#table-width").value = state.table.width_cm;
      $("#table-depth").value = state.table.depth_cm;
      syncStep();
    }
    showStep(state.ruleset);
    $("#game-now").textContent = `Now playing ${ruleset.title || ruleset.id || "?"} on a ` +
      `${state.table.width_cm} × ${state.table.depth_cm} cm table.`;
    const calibration = (state.status && state.status.calibration) || {};
    $("#calibration").textContent = calibration.ok
      ? `Calibrated on markers ${(calibration.marker_ids || []).join(", ")}: ${mm(calibration.rms_mm)} rms, ` +
        `${mm(calibration.max_mm)} worst.${calibration.drift ? " The camera has moved: recalibrate." : ""}`
      : "Not calibrated: the camera must see at least two markers.";
    $("#calibration").className = calibration.ok && !calibration.drift ? "note" : "note illegal";
    const all = pieces(state);
    datalist($("#side-names"), ["red", "blue", ...all.map((p) => p.side)]);
    datalist($("#unit-names"), all.map((p) => p.unit));
    datalist($("#type-names"), ctx.tools ? ctx.tools.unit_types : all.map((p) => p.type));
    // Ids in the order a player counts them: m2 before m10.
    const counted = [...ctx.picked].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    $("#picked").textContent = ctx.picked.size ? `Picked: ${counted.join(", ")}` : "No models picked.";
    showPicked(all);
    drawDeployment(state);
  };

  // The Assign fields show what the picked models are and how they stand (flags, order, wounded),
  // so a player marks a model prone, or moves it to another unit, by changing that field alone:
  // only what was changed is sent, and the rig keeps the rest (docs/webui.md). A field the models
  // differ in is left empty and kept for each unless typed. Models not yet assigned have no state,
  // and Side, Unit and Type stay as typed, for the next models of the same side.
  const showPicked = (all) => {
    const key = [...ctx.picked].sort().join(" ");
    if (key === pickShown) return;
    pickShown = key;
    const picked = all.filter((p) => ctx.picked.has(p.id));
    const assigned = picked.length > 0 && picked.every((p) => p.side);
    const filled = shown;
    shown = {};
    for (const field of [...ASSIGN_FIELDS, "wounded"]) {
      const input = $(`#assign-${field}`);
      if (!assigned && !ON_THE_TABLE.includes(field)) {
        if (field in filled && input.value.trim() === (filled[field] ?? "")) input.value = ""; // not typed here
        input.placeholder = input.dataset.hint;
        continue;
      }
      const values = new Set(picked.map((p) => (field === "wounded" ? Boolean(p.wounded) : listed(p[field]))));
      const value = values.size > 1 ? null : values.size ? [...values][0] : field === "wounded" ? false : "";
      shown[field] = value;
      // Typed over what the last pick filled in: kept, and sent as a change for the new pick too
      // (tapping one more model wiped what had been typed for the first).
      const typed = field in filled && (field === "wounded"
        ? !input.indeterminate && input.checked !== (filled.wounded === true)
        : input.value.trim() !== (filled[field] ?? ""));
      if (typed) continue;
      if (field === "wounded") {
        Object.assign(input, { checked: value === true, indeterminate: value === null });
      } else {
        Object.assign(input, { value: value ?? "", placeholder: value === null ? DIFFER : input.dataset.hint });
      }
    }
  };

  // A new game (the rig restarted, the demo looped) is shown as it is set: the forms' choices
  // made for the old one (a ruleset, a table, a deployment not applied) would go to it with the
  // next Apply, and a warning given in the old game would let that tap unassign models unwarned.
  ctx.onNewGame = () => {
    orphansTold = null;
    pickShown = null;
    rulesetShown = null;
    tableShown = null;
    sidesShown = "";
    $("#deployment-kind").dataset.kinds = "";
  };

  ctx.onLasso = (loop) => {
    for (const piece of pieces(ctx.shown())) {
      if (insidePolygon([piece.x_cm, piece.y_cm], loop)) ctx.picked.add(piece.id);
    }
  };

  // A number typed into a field, within the bounds the rig takes; null, said in a toast, when it
  // is empty or outside. The field's bounds and its rule's words (min, max, data-rule, data-fix)
  // are the rig's own (webui/actions.py), so the toast is the refusal the rig would send.
  const typedNumber = (id) => {
    const field = $(id);
    const value = Number(field.value);
    const empty = field.value.trim() === "";
    if (!empty && Number.isFinite(value) && value >= Number(field.min) && value <= Number(field.max)) {
      return value;
    }
    // "-" or "." alone shows in the field but reads as "" (the browser keeps it from the page).
    const typed = field.validity.badInput ? "and what is typed is not one" : `not ${empty ? "empty" : value}`;
    ctx.show(`${field.dataset.rule}, ${typed}. ${field.dataset.fix}.`, true);
    field.focus();
    return null;
  };

  Object.assign(ctx.actions, {
    // Only what the player changed is sent: a setting left as the game has it is filled in by the
    // rig from the game as it stands (webui/settings.py), so a change another phone made a moment
    // before, not yet shown here, is not undone.
    setup: async () => {
      const live = ctx.live;
      const chosen = $("#ruleset").value;
      const payload = chosen === live.ruleset.id ? {} : { ruleset: chosen };
      const size = $("#table-size").value;
      let [w, d] = size === "custom" ? [null, null] : size.split("x").map(Number);
      if (size === "custom") {
        w = typedNumber("#table-width");
        d = w === null ? null : typedNumber("#table-depth");
        if (d === null) return;
      }
      if (w !== live.table.width_cm || d !== live.table.depth_cm) payload.table = { width_cm: w, depth_cm: d };
      if (!$("#step-field").hidden) {
        const step = typedNumber("#step-cm");
        if (step === null) return;
        if (payload.ruleset || step !== live.ruleset.unit_cm) payload.step_cm = step;
      }
      const tools = payload.ruleset ? await rulesetTools(payload.ruleset).catch(() => null) : null;
      // Models of a type the new ruleset lacks make the rig refuse the change: say which, and
      // what to do, before the PIN is asked for.
      // Tapping Apply again unassigns them instead, for a ruleset that shares no type with
      // this one (Mobile Infantry's troopers and bugs): they can't take its types before it.
      const strangers = tools ? pieces(ctx.live).filter((p) => p.type && !tools.unit_types.includes(p.type)) : [];
      const strangerIds = strangers.map((p) => p.id).join(", ");
      const types = [...new Set(strangers.map((p) => p.type))];
      if (strangers.length && orphansTold !== `${payload.ruleset}:${strangerIds}`) {
        orphansTold = `${payload.ruleset}:${strangerIds}`;
        ctx.show(`${payload.ruleset} has no ${types.join(", ")}: under Assign models, give ${strangerIds} ` +
          `one of its types (${tools.unit_types.join(", ")}) first, then apply again; ` +
          "or tap Apply again now to unassign them.", true);
        return; // the chosen ruleset stays selected, so Apply again sends it
      }
      orphansTold = null;
      if (strangers.length) payload.retype = Object.fromEntries(types.map((type) => [type, null]));
      // A deployment kind the new ruleset lacks would make the rig refuse the change too: it
      // goes with it, and the player is told to set a new one.
      const deployment = ctx.live.deployment;
      let dropped = null;
      if (tools && deployment && !tools.deployment_kinds.some((k) => k.kind === deployment.kind)) {
        payload.deployment = null;
        dropped = deployment.kind;
      }
      if (await ctx.send("setup", payload)) {
        const told = [];
        if (dropped) told.push(`${payload.ruleset} has no ${dropped} deployment, so it was cleared: set a new one under Deployment.`);
        if (payload.retype) told.push(`${strangerIds} unassigned: give them types of ${payload.ruleset} under Assign models.`);
        if (told.length) ctx.show(`Game settings applied. ${told.join(" ")}`);
      }
      // Refused, the form keeps what was typed, to be put right and sent again: it jumped back to
      // the live settings, custom size and step hidden, so all of it was typed again. What the
      // game is really played with is said under the form (#game-now).
    },
    "clear-picked": () => {
      ctx.picked.clear();
      ctx.redraw();
    },
    assign: async () => {
      if (!ctx.picked.size) {
        ctx.show("Pick some models first: Pick models, then tap or loop them.", true);
        return;
      }
      const payload = { model_ids: [...ctx.picked].sort() };
      for (const field of ASSIGN_FIELDS) {
        const text = $(`#assign-${field}`).value.trim();
        const value = LISTS.includes(field) ? typedList(text) : text;
        const now = listed(value);
        if (!(field in shown)) {
          if (now) payload[field] = value; // typed for models not yet assigned
        } else if (now !== (shown[field] ?? "") && (now || !IDENTITY.includes(field))) {
          // Emptied: cleared; an emptied Weapons is the unit type's own, as its placeholder says.
          payload[field] = now ? value : field === "flags" ? [] : null;
        }
      }
      // Side, unit and type sent together assign the models anew, with only the chassis, role and
      // weapons sent: those shown, and left as they were, go with them (a model moved to another
      // side lost its weapons and role without a word).
      if (IDENTITY.every((field) => field in payload)) {
        for (const field of KIND) {
          if (field in payload || !(field in shown) || shown[field] === "") continue;
          if (shown[field] === null) {
            ctx.show(`${field[0].toUpperCase()}${field.slice(1)} differs among the picked models: type it, or ` +
              "change side, unit and type for each alone.", true);
            return;
          }
          payload[field] = LISTS.includes(field) ? typedList(shown[field]) : shown[field];
        }
      }
      const wounded = $("#assign-wounded");
      if (!wounded.indeterminate && wounded.checked !== shown.wounded) payload.wounded = wounded.checked;
      if (Object.keys(payload).length === 1 && "side" in shown) { // models not yet assigned: the rig asks for a side
        ctx.show("Nothing to change: the fields say what the picked models already are. Change one, then tap Assign.", true);
        return;
      }
      if (await ctx.send("assign", payload)) {
        ctx.show(`Assigned ${payload.model_ids.join(", ")}.`);
        // What was sent is what the fields were filled with now: not typed over, so the next pick
        // fills them afresh rather than sending them again for other models.
        for (const field of Object.keys(payload)) if (field in shown) shown[field] = field === "wounded" ? payload.wounded : listed(payload[field]);
        ctx.picked.clear();
        ctx.redraw();
      }
    },
    "terrain-finish": async () => {
      if (ctx.draft.length < 3) {
        ctx.show("A terrain piece needs at least three corners: tap them on the table.", true);
        return;
      }
      // The piece alone, added by the rig to the terrain as it stands and named by it (as an
      // objective: table.js).
      const placed = await ctx.send("terrain", { add: { kind: $("#terrain-kind").value, polygon_cm: ctx.draft } });
      if (placed) {
        if (placed.added) ctx.show(`Terrain piece ${placed.added} placed.`);
        ctx.draft = [];
        ctx.redraw();
      }
    },
    // A clear is said as one: "Terrain saved." for a table left with none read as if nothing went.
    "terrain-clear": async () => {
      ctx.draft = [];
      if (await ctx.send("terrain", { terrain: [] })) ctx.show("Terrain cleared.");
    },
    deployment: async () => {
      const sides = {};
      for (const select of document.querySelectorAll("#deployment-sides select")) {
        if (select.value !== NOT_DEPLOYING) sides[select.dataset.side] = select.value;
      }
      await ctx.send("deployment", { kind: $("#deployment-kind").value, sides });
    },
    // A deployment names its sides, and the rig refuses a model of any other: without a way to
    // drop it, a game could never take a third side. The session contract clears a deployment
    // only through setup (deployment: null); the rig keeps the game's other settings as they are
    // (webui/settings.py). Sent from here, as this phone was shown them, they undid another
    // phone's change of a moment before.
    "deployment-clear": async () => {
      if (!ctx.live.deployment) {
        ctx.show("No deployment is set: there is nothing to clear.");
        return;
      }
      if (await ctx.send("setup", { deployment: null })) ctx.show("Deployment cleared: models can now be given any side.");
    },
    "objectives-clear": async () => {
      if (await ctx.send("objectives", { objectives: [] })) ctx.show("Objectives cleared.");
    },
  });
}
