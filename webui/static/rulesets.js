// What each ruleset offers the page: its templates, deployment kinds and unit types, from
// the rig's `rules show` (GET /api/rulesets/ID). Asked once per ruleset and kept: they only
// change when the rig is given a new ruleset file, and it restarts for that.

import { getJson } from "./api.js";

const asked = new Map();

export function rulesetTools(id) {
  if (!asked.has(id)) {
    asked.set(id, getJson(`/api/rulesets/${encodeURIComponent(id)}`).catch((error) => {
      asked.delete(id); // asked again next time: the rig may have been down
      throw error;
    }));
  }
  return asked.get(id);
}
