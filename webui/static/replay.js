// The Replay panel: pick a recording, scrub its phases on the table view, export the report.

import { getJson } from "./api.js";

const $ = (selector) => document.querySelector(selector);

export function initReplay(ctx) {
  let timeline = null;
  let timer = null;
  let retry = null; // the next ask for a recording the rig was too busy to replay
  let wanted = null; // the recording picked last: an answer for an earlier pick is not shown

  const showSnapshot = (index) => {
    const snapshot = timeline.snapshots[index];
    if (!snapshot) return;
    $("#scrubber").value = String(index);
    ctx.replay = {
      version: snapshot.index, replay: true, table: timeline.table, terrain: timeline.terrain || [],
      objectives: timeline.objectives || [], deployment: timeline.deployment, deployment_zones: {},
      // Measured in the game's own unit, as it was live (a recording older than that says cm).
      ruleset: { id: timeline.ruleset, premeasure_allowed: true, unit: timeline.unit || "cm",
        unit_cm: timeline.unit_cm || 1 },
      turn: snapshot.turn, phase: snapshot.phase, phases: [...new Set(timeline.snapshots.map((s) => s.phase))], models: snapshot.models || [], vehicles: snapshot.vehicles || [],
      moves: snapshot.moves || {}, check: snapshot.check || {}, templates: [], status: {},
    };
    const frame = snapshot.frame !== undefined ? `, frame ${snapshot.frame}` : "";
    const where = `${timeline.name}: turn ${snapshot.turn}, ${snapshot.phase}${frame} (${index + 1}/${timeline.snapshots.length})`;
    $("#replay-where").textContent = where;
    $("#banner-text").textContent = `Replay of ${where}`;
    $("#banner").hidden = false;
    $("#banner-live").hidden = false;
    ctx.redraw();
  };

  const stop = () => {
    clearInterval(timer);
    timer = null;
    $("#replay-play").textContent = "Play";
  };

  const backToLive = () => {
    stop();
    ctx.replay = null;
    $("#banner").hidden = true;
    $("#replay-controls").hidden = true;
    ctx.redraw();
  };

  // A damaged recording must not pass for a shorter, whole game: say where it stopped and what
  // the replay refused, above the timeline, for as long as it is shown.
  const showDamage = (shown) => {
    const problems = shown.problems || [];
    const parts = [];
    if (shown.stopped) parts.push(`This recording is damaged: it ${shown.stopped}. The replay shows what came before.`);
    if (problems.length) parts.push(`Refused on the way: ${problems.join("; ")}.`);
    $("#replay-damage").textContent = parts.join(" ");
    $("#replay-damage").hidden = !parts.length;
  };

  // A rig replaying other games for other phones answers 503 with when to ask again: said as a
  // wait, not a fault, and asked again then, until the game opens or the player leaves the tab or
  // picks another.
  const open = async (name) => {
    stop();
    clearTimeout(retry);
    retry = null;
    wanted = name;
    ctx.show(`Opening ${name}: the rig replays it the first time, which can take a while.`);
    let opened;
    try {
      opened = await getJson(`/api/recordings/${encodeURIComponent(name)}`);
    } catch (error) {
      if (wanted !== name) return;
      const busy = error.status === 503 && error.retryAfterS > 0;
      ctx.show(error.message, !busy);
      if (busy) retry = setTimeout(() => open(name), error.retryAfterS * 1000);
      return;
    }
    if (wanted !== name) return;
    timeline = opened;
    if (!timeline.snapshots.length) {
      ctx.show(`${name} has no finished phase to show yet.`, true);
      return;
    }
    ctx.show("");  // opened: the wait's toast would lie over the timeline on a small phone
    // The live table's ranges would be drawn on the replayed positions, which they never measured.
    Object.assign(ctx, { selected: null, ranges: null });
    $("#replay-controls").hidden = false;
    showDamage(timeline);
    $("#scrubber").max = String(timeline.snapshots.length - 1);
    $("#replay-report").href = `/api/recordings/${encodeURIComponent(name)}/report`;
    $("#replay-turns").replaceChildren(...timeline.turns.map((turn) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `Turn ${turn.turn}`;
      button.addEventListener("click", () => showSnapshot(turn.index));
      return button;
    }));
    showSnapshot(0);
  };

  const list = async () => {
    const box = $("#recordings");
    try {
      const body = await getJson("/api/recordings");
      box.replaceChildren(...body.recordings.map((recording) => {
        const li = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = `${recording.name} (${new Date(recording.modified * 1000).toLocaleString()})`;
        button.addEventListener("click", () => open(recording.name));
        li.appendChild(button);
        return li;
      }));
      if (!body.recordings.length) box.innerHTML = `<li>${body.message || "No recordings yet."}</li>`;
    } catch (error) {
      ctx.show(error.message, true);
    }
  };

  $("#scrubber").addEventListener("input", () => {
    stop();
    showSnapshot(Number($("#scrubber").value));
  });
  $("#replay-play").addEventListener("click", () => {
    if (timer) return stop();
    $("#replay-play").textContent = "Pause";
    timer = setInterval(() => {
      const next = Number($("#scrubber").value) + 1;
      if (next >= timeline.snapshots.length) stop();
      else showSnapshot(next);
    }, 1200);
  });
  $("#banner-live").addEventListener("click", backToLive);
  const previous = ctx.onTab;
  ctx.onTab = (tab) => {
    previous && previous(tab);
    if (tab === "replay") list();
    else {
      clearTimeout(retry);
      retry = null;
      wanted = null; // an ask still out when the player left is not shown, nor asked again
    }
  };
}
