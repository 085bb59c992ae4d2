// Every text on the overlay is placed here, together, so no label prints over another: the
// scene (terrain, objectives, broken units, moves) and the tools (ranges, ruler) share one
// list. The most important are placed first; a label with no free spot near its anchor is
// left out, and what it said is in the lists below the table.

// Priorities: what a player must not miss wins the spot near its anchor.
export const RULER = 5;
export const ILLEGAL = 4;
export const RANGE = 3;
export const MOVE = 2;
export const OBJECTIVE = 1;
export const TERRAIN = 0;

// Where a label may stand against its anchor: lines below and above it, and beside it to the right
// and left (then the label's near end is half a line from the anchor). Tried nearest first: with
// only lines above and below, 14 px labels of three models side by side left one out.
const LINES = [0, 1, -1, 2, -2];
const SIDES = [0, 1, -1];

function spots(width, height) {
  return LINES.flatMap((line) => SIDES.map((side) => [side * (width + height) / 2, line * height]))
    .sort((a, b) => Math.hypot(...a) - Math.hypot(...b));
}

// A text's width as the page draws it, in the units of its size. Estimated at 0.6 em a character,
// digits (1.06 times that in the page's font) ran past the box kept for them: zoomed in on a 360 px
// phone, two ranges side by side printed 3 px into each other. Measured at 100 px, where a canvas
// does not round to whole pixels as at a zoomed label's 3-4.
const pen = document.createElement("canvas").getContext("2d");

// The labels' font (style.css's .label) at 100 px, read off a text in `parent` as the page styles it.
function labelFont(parent) {
  const probe = document.createElementNS("http://www.w3.org/2000/svg", "text");
  probe.setAttribute("class", "label");
  parent.appendChild(probe);
  const style = getComputedStyle(probe); // live: read while the probe is in the page
  const font = { font: `${style.fontStyle} ${style.fontWeight} 100px ${style.fontFamily}`,
    halo: parseFloat(style.strokeWidth) || 0 };
  probe.remove();
  return font;
}

export class Labels {
  // view: the part of the table drawn, [x, y, width, height] in cm. A label is kept inside it: by a
  // table edge (a model in its deployment strip, an objective near the edge) it printed past the
  // picture, "16.2 cm / 15.0 cm ✗" starting 54 px left of a 360 px phone's screen.
  constructor(view) {
    this.queue = [];
    this.view = view;
  }

  add(x, y, text, size, priority, bad = false) {
    this.queue.push({ x, y, text, size, priority, bad, order: this.queue.length });
  }

  draw(parent) {
    parent.replaceChildren();
    const { font, halo } = labelFont(parent);
    pen.font = font;
    const placed = [];
    const queue = [...this.queue].sort((a, b) => b.priority - a.priority || a.order - b.order);
    for (const label of queue) {
      // The halo (a stroke around the text) is part of what prints: it too is kept clear.
      const width = pen.measureText(label.text).width * label.size / 100 + halo;
      const height = label.size * 1.3;  // bold text in a halo: a little air between lines
      // Boxes are kept by their middles: a text's baseline y lies 0.35 of its size below its
      // middle. (A candidate's baseline against the placed middles let two lines touch.)
      const middle = (y) => y - label.size * 0.35;
      const [vx, vy, vw, vh] = this.view;
      if (label.x < vx || label.x > vx + vw) continue; // its anchor is out of view (zoomed in)
      const inView = (y) => middle(y) - height / 2 >= vy && middle(y) + height / 2 <= vy + vh;
      const free = ([x, y]) => inView(y) && placed.every((p) => Math.abs(p.x - x) * 2 >= p.width + width
        || Math.abs(p.y - middle(y)) * 2 >= p.height + height);
      const spot = spots(width, height)
        .map(([dx, dy]) => [Math.min(Math.max(label.x + dx, vx + width / 2), vx + vw - width / 2), label.y + dy])
        .find(free);
      if (spot === undefined) continue;
      const [x, y] = spot;
      placed.push({ x, y: middle(y), width, height });
      const text = document.createElementNS("http://www.w3.org/2000/svg", "text");
      const attrs = { x, y, class: label.bad ? "label bad" : "label", "font-size": label.size,
        "text-anchor": "middle", "data-priority": label.priority };
      for (const [key, value] of Object.entries(attrs)) text.setAttribute(key, value);
      text.textContent = label.text;
      parent.appendChild(text);
    }
  }
}
