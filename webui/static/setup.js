// The Setup panel: game settings, calibration, assigning models, terrain, deployment, objectives.
// Names come from CONTRACTS.md; the session checks them against the ruleset and says what is wrong.

import { getJson } from "./api.js";
import { insidePolygon } from "./geometry.js";
import { pieces } from "./overlay.js";

const $ = (selector) => document.querySelector(selector);

const RULESETS = {
  "world-at-fire": ["infantry", "cavalry", "motorbike", "heavy_gun", "vehicle", "aircraft"],
  "mobile-infantry": ["trooper", "bug"],
  "combined-arms": ["infantry", "vehicle", "gun", "aircraft"],
  tankomaster: ["infantry", "heavy_gun", "vehicle"],
  bronepehota: ["infantry", "vehicle", "gun"],
};
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

export function initSetup(ctx) {
  let sidesShown = "";
  let rulesetShown = null;
  let installed = Object.keys(RULESETS).map((id) => ({ id, title: id }));
  getJson("/api/rulesets")
    .then((body) => {
      installed = body.rulesets;
      rulesetShown = null;
      ctx.redraw();
    })
    .catch(() => {}); // the contract's five ids stay offered
  options($("#terrain-kind"), TERRAIN_KINDS, "forest");

  const syncStep = () => {
    $("#step-field").hidden = $("#ruleset").value !== "bronepehota";
  };
  $("#ruleset").addEventListener("change", syncStep);
  $("#table-size").addEventListener("change", () => {
    $("#custom-size").hidden = $("#table-size").value !== "custom";
  });

  const drawSides = (state) => {
    const sides = [...new Set(pieces(state).map((p) => p.side).filter(Boolean))].sort();
    const kind = $("#deployment-kind").value;
    const key = `${sides.join(",")}|${kind}`;
    if (key === sidesShown) return;
    sidesShown = key;
    const current = (state.deployment && state.deployment.sides) || {};
    const places = kind === "diversion" ? QUARTERS : EDGES;
    $("#deployment-sides").replaceChildren(...sides.map((side, i) => {
      const label = document.createElement("label");
      label.textContent = `${side} deploys at`;
      const select = document.createElement("select");
      select.dataset.side = side;
      options(select, places, current[side] || places[i % places.length]);
      label.appendChild(select);
      return label;
    }));
  };
  $("#deployment-kind").addEventListener("change", () => ctx.live && drawSides(ctx.live));

  ctx.onRedraw = (state) => {
    if (ctx.replay) return;
    const ruleset = state.ruleset || {};
    if (rulesetShown !== ruleset.id) {
      rulesetShown = ruleset.id;
      const ids = [...new Set([...installed.map((r) => r.id), ruleset.id].filter(Boolean))];
      options($("#ruleset"), ids, ruleset.id);
      const size = `${Math.round(state.table.width_cm)}x${Math.round(state.table.depth_cm)}`;
      const known = [...$("#table-size").options].some((o) => o.value === size);
      $("#table-size").value = known ? size : "custom";
      $("#custom-size").hidden = known;
      $("#table-width").value = state.table.width_cm;
      $("#table-depth").value = state.table.depth_cm;
      syncStep();
    }
    const calibration = (state.status && state.status.calibration) || {};
    $("#calibration").textContent = calibration.ok
      ? `Calibrated on markers ${(calibration.marker_ids || []).join(", ")}: ${mm(calibration.rms_mm)} rms, ` +
        `${mm(calibration.max_mm)} worst.${calibration.drift ? " The camera has moved: recalibrate." : ""}`
      : "Not calibrated: the camera must see at least two markers.";
    $("#calibration").className = calibration.ok && !calibration.drift ? "note" : "note illegal";
    const all = pieces(state);
    datalist($("#side-names"), ["red", "blue", ...all.map((p) => p.side)]);
    datalist($("#unit-names"), all.map((p) => p.unit));
    datalist($("#type-names"), RULESETS[ruleset.id] || all.map((p) => p.type));
    $("#picked").textContent = ctx.picked.size ? `Picked: ${[...ctx.picked].sort().join(", ")}` : "No models picked.";
    drawSides(state);
  };

  ctx.onLasso = (loop) => {
    for (const piece of pieces(ctx.shown())) {
      if (insidePolygon([piece.x_cm, piece.y_cm], loop)) ctx.picked.add(piece.id);
    }
  };

  Object.assign(ctx.actions, {
    setup: async () => {
      const payload = { ruleset: $("#ruleset").value };
      const size = $("#table-size").value;
      const [w, d] = size === "custom"
        ? [Number($("#table-width").value), Number($("#table-depth").value)]
        : size.split("x").map(Number);
      payload.table = { width_cm: w, depth_cm: d };
      if (payload.ruleset === "bronepehota") payload.step_cm = Number($("#step-cm").value);
      if (await ctx.send("setup", payload)) ctx.show("Game settings applied.");
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
      for (const field of ["side", "unit", "type", "chassis", "role"]) {
        const value = $(`#assign-${field}`).value.trim();
        if (value) payload[field] = value;
      }
      const weapons = $("#assign-weapons").value.split(",").map((w) => w.trim()).filter(Boolean);
      if (weapons.length) payload.weapons = weapons;
      if (await ctx.send("assign", payload)) {
        ctx.show(`Assigned ${payload.model_ids.join(", ")}.`);
        ctx.picked.clear();
        ctx.redraw();
      }
    },
    "terrain-finish": async () => {
      if (ctx.draft.length < 3) {
        ctx.show("A terrain piece needs at least three corners: tap them on the table.", true);
        return;
      }
      const terrain = [...(ctx.live.terrain || [])];
      let n = terrain.length + 1;
      while (terrain.some((t) => t.id === `terrain${n}`)) n += 1;
      terrain.push({ id: `terrain${n}`, kind: $("#terrain-kind").value, polygon_cm: ctx.draft });
      if (await ctx.send("terrain", { terrain })) {
        ctx.draft = [];
        ctx.redraw();
      }
    },
    "terrain-clear": async () => {
      ctx.draft = [];
      await ctx.send("terrain", { terrain: [] });
    },
    deployment: async () => {
      const sides = {};
      for (const select of document.querySelectorAll("#deployment-sides select")) sides[select.dataset.side] = select.value;
      if (await ctx.send("deployment", { kind: $("#deployment-kind").value, sides })) ctx.show("Deployment set.");
    },
    "objectives-clear": () => ctx.send("objectives", { objectives: [] }),
  });
}
