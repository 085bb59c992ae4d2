// The Play panel: what moved and whether it was legal, unit coherency, and what a tap asked.

import { formatDistance, moveDistances, pieces, unbrokenVerdict } from "./overlay.js";

const $ = (selector) => document.querySelector(selector);

export function initPlay(ctx) {
  ctx.currentTemplate = () => ((ctx.tools && ctx.tools.templates) || []).find((t) => t.kind === $("#template-kind").value);
  $("#template-kind").addEventListener("change", () => ctx.redraw());
}

export function drawPlayPanel(ctx, state, allowed) {
  const phases = state.phases || [];
  const select = $("#phase-to");
  if (select.dataset.phases !== phases.join(",") || select.dataset.current !== state.phase) {
    select.dataset.phases = phases.join(",");
    select.dataset.current = state.phase;
    select.replaceChildren(...phases.map((phase) => new Option(phase, phase, false, phase === state.phase)));
  }
  $("#premeasure-note").hidden = allowed;
  for (const mode of ["select", "ruler"]) {
    $(`[data-mode="${mode}"]`).hidden = !allowed;
  }
  if (!allowed) forgetDistances(ctx);
  drawTemplateTools(ctx, state);
  const moves = document.createElement("ul");
  const verdicts = (state.moves && state.moves.models) || {};
  for (const [id, verdict] of troubleFirst(verdicts, (v) => v.legal === false)) {
    const li = document.createElement("li");
    const bad = verdict.legal === false;
    li.className = bad ? "illegal" : "legal";
    li.dataset.id = id;
    const distance = allowed ? ` ${moveDistances(verdict, state.ruleset)}` : "";
    // While distances are secret, say what rule broke but not by how much.
    const reasons = (verdict.reasons || [])
      .map((r) => (allowed ? r.detail || r.code : r.code.replaceAll("_", " ")))
      .join("; ");
    li.textContent = `${id}${distance}: ${bad ? `illegal, ${reasons}` : unbrokenVerdict(verdict)}`;
    li.title = (verdict.allowance_notes || []).join(" ");
    li.tabIndex = 0;
    li.addEventListener("click", () => ctx.select(id)); // find it on the table
    li.addEventListener("keydown", (event) => event.key === "Enter" && ctx.select(id));
    moves.appendChild(li);
  }
  if (!moves.children.length) moves.innerHTML = "<li>No model has moved this phase.</li>";
  renew($("#moves"), moves);
  const units = document.createElement("ul");
  const unitVerdicts = (state.check && state.check.units) || {};
  for (const [unit, verdict] of troubleFirst(unitVerdicts, (v) => v.coherent === false)) {
    const li = document.createElement("li");
    li.className = verdict.coherent === false ? "illegal" : "";
    li.textContent = verdict.coherent === false
      ? `${unit}: out of coherency (${verdict.groups.map((g) => g.join(" ")).join(" | ")})`
      : `${unit}: coherent`;
    units.appendChild(li);
  }
  renew($("#units"), units);
  drawInfo(ctx, state, allowed);
}

// The panel is drawn anew with each state (about each second). A box whose content is the same
// is left as it is: the answers' box is a live region, which a screen reader read out again each
// time, and a control focused from the keyboard lost the focus to the page. One whose content
// changed gives the focus to its control that stands for the same thing (its id, or its model's).
function renew(box, drawn) {
  if (box.innerHTML === drawn.innerHTML) return false;
  const focused = box.contains(document.activeElement) ? document.activeElement : null;
  const same = focused && (focused.id ? `#${CSS.escape(focused.id)}`
    : focused.dataset.id ? `[data-id="${CSS.escape(focused.dataset.id)}"]` : null);
  box.replaceChildren(...drawn.childNodes);
  const again = same && box.querySelector(same);
  if (again) again.focus({ preventScroll: true });
  return true;
}

// What a player must put right comes first (an illegal move, a unit out of coherency), the
// rest by id as a person counts (m2 before m11).
function troubleFirst(verdicts, broken) {
  return Object.entries(verdicts).sort(
    ([a, va], [b, vb]) => broken(vb) - broken(va) || a.localeCompare(b, undefined, { numeric: true }),
  );
}

// A distance measured before orders began would stay up under the note that they are hidden,
// and a hidden Ruler button would leave its taps measuring nothing.
function forgetDistances(ctx) {
  Object.assign(ctx, { ranges: null, ruler: [], rulerResult: null });
  if (ctx.mode === "ruler") ctx.setMode("select");
}

// The template tool offers the live ruleset's own templates only (a World at Fire table has
// none), so a tap never asks for the PIN for something the rig must refuse.
function drawTemplateTools(ctx, state) {
  const templates = (ctx.tools && ctx.tools.templates) || [];
  const unit = (state.ruleset && state.ruleset.unit) || "cm";
  const select = $("#template-kind");
  // Two rulesets may name the same templates at other sizes (Mobile Infantry's grenade and
  // Bronepehota's): the labels are the ruleset's, not only the names'.
  const shown = `${ctx.tools && ctx.tools.id}|${unit}|${templates.map((t) => t.kind).join(",")}`;
  if (select.dataset.shown !== shown) {
    select.dataset.shown = shown;
    const size = (t) => (t.shape === "strip" ? `${t.length} × ${t.width} ${unit} strip`
      : t.radius != null ? `${t.radius} ${unit} radius` : "radius below");
    select.replaceChildren(...templates.map((t) => new Option(`${t.kind} (${size(t)})`, t.kind)));
  }
  const none = !templates.length;
  $("[data-mode='template']").hidden = none;
  $("#template-size").hidden = none && !(state.templates || []).length;
  $("#template-pick").hidden = none;
  $("#no-templates").hidden = !ctx.tools || !none;
  const spec = ctx.currentTemplate();
  $("#template-radius-field").hidden = !spec || spec.shape !== "circle" || spec.radius != null;
  radiusInUnits(state.ruleset);
  $("#template-heading-field").hidden = !spec || spec.shape !== "strip";
  if (none && ctx.mode === "template") ctx.setMode("select");
}

// The radius typed for a blast the seed gives no size is in the ruleset's unit, as every other
// distance on the page (Mobile Infantry's grenade: mm); placeTemplate sends it in cm.
function radiusInUnits(ruleset) {
  const unit = (ruleset && ruleset.unit) || "cm";
  const input = $("#template-radius");
  if (input.dataset.unit === unit) return;
  input.dataset.unit = unit;
  $("#template-radius-unit").textContent = unit;
  const inUnits = (cm, digits) => String(Number((cm / ((ruleset && ruleset.unit_cm) || 1)).toPrecision(digits)));
  Object.assign(input, { min: inUnits(0.5, 1), max: inUnits(50, 2), step: inUnits(0.5, 1), value: inUnits(5, 2) });
}

// A template in the list, its size and place in the ruleset's unit, as the ranges and ruler say;
// while distances are hidden its size and place would give them away, so only who is under it.
function templateLine(t, ruleset, allowed) {
  const under = t.under.length ? t.under.join(", ") : "nobody";
  if (!allowed) return `${t.kind}: ${under} under it.`;
  const d = (cm) => formatDistance(cm, ruleset);
  const size = t.radius_cm > 0 ? ` (${d(t.radius_cm)} radius)`
    : t.length_cm && t.width_cm ? ` (${d(t.length_cm)} × ${d(t.width_cm)} strip)` : "";
  return `${t.kind}${size} at ${d(t.x_cm)} across, ${d(t.y_cm)} down: ${under} under it.`;
}

function drawInfo(ctx, state, allowed) {
  const info = document.createElement("div");
  const scrolled = rangesScroll();
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
    // The box scrolls (style.css): a keyboard reaches it to scroll it with the arrow keys.
    list.tabIndex = 0;
    list.setAttribute("aria-label", `Ranges from ${ctx.ranges.from}`);
    for (const t of ctx.ranges.targets || []) {
      const li = document.createElement("li");
      li.dataset.id = t.id;
      const weapons = t.weapons.length ? t.weapons.join(", ") : "nothing reaches";
      li.textContent = `${t.id} (${t.unit}) ${formatDistance(t.edge_cm, state.ruleset)}: ${weapons}`;
      list.appendChild(li);
    }
    list.dataset.from = ctx.ranges.from;
    info.appendChild(list);
    const piece = pieces(state).find((p) => p.id === ctx.selected);
    if (piece && piece.unit) {
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.id = "ranges-scope";
      toggle.textContent = ctx.rangesFromUnit ? `Ranges from ${piece.id} only` : `Ranges from all of ${piece.unit}`;
      toggle.addEventListener("click", async () => {
        ctx.rangesFromUnit = !ctx.rangesFromUnit;
        await ctx.fetchRanges();
        ctx.redraw();
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
    button.addEventListener("click", () => ctx.send("reset_model", { model_id: ctx.selected }));
    info.appendChild(button);
  }
  if (ctx.rulerResult) {
    line(`Ruler: ${formatDistance(ctx.rulerResult.edge_cm, state.ruleset)} edge to edge, ` +
      `${formatDistance(ctx.rulerResult.centre_cm, state.ruleset)} centre to centre.`).id = "ruler-result";
  }
  for (const t of state.templates || []) line(templateLine(t, state.ruleset, allowed));
  if (!renew($("#info"), info)) return;
  // A list drawn anew starts at its top: a long one scrolled down was unreadable.
  const list = $("#ranges");
  if (list && scrolled.from === list.dataset.from) list.scrollTop = scrolled.top;
}

// Where the player has scrolled the ranges list to, and whose ranges it holds.
function rangesScroll() {
  const list = $("#ranges");
  return list ? { from: list.dataset.from, top: list.scrollTop } : {};
}
