// Small plane geometry in table cm for drawing and hit-testing; the measuring is the rules core's.

export function dist(a, b) {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

// Andrew's monotone chain: the outline drawn round a coherency group.
export function convexHull(points) {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper = [];
  for (const p of pts.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

export function insidePolygon(point, polygon) {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if (yi > point[1] !== yj > point[1] && point[0] < ((xj - xi) * (point[1] - yi)) / (yj - yi) + xi) {
      inside = !inside;
    }
  }
  return inside;
}

function toSegment(p, a, b) {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const t = dx || dy ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy))) : 0;
  return dist(p, [a[0] + t * dx, a[1] + t * dy]);
}

function toOutline(p, outline) {
  if (outline.length === 1) return dist(p, outline[0]);
  return Math.min(...outline.map((a, i) => toSegment(p, a, outline[(i + 1) % outline.length])));
}

// Edge-to-edge distance of two footprints, each {points, r}: a round base is its centre and
// radius, a vehicle its corners and r 0, a bare point itself. Used where the rules core cannot
// be asked: positions in a replay, which the rig's live scene does not hold.
export function footprintGap(a, b) {
  const inside = (p, outline) => outline.length > 2 && insidePolygon(p, outline);
  if (a.points.some((p) => inside(p, b.points)) || b.points.some((p) => inside(p, a.points))) return 0;
  const core = Math.min(...a.points.map((p) => toOutline(p, b.points)), ...b.points.map((p) => toOutline(p, a.points)));
  return Math.max(0, core - a.r - b.r);
}

// The closest pair of models between two groups: where a broken unit is drawn broken.
export function closestPair(groupA, groupB) {
  let best = null;
  for (const a of groupA) {
    for (const b of groupB) {
      const d = dist(a, b);
      if (!best || d < best.d) best = { a, b, d };
    }
  }
  return best;
}

const NAMED = { red: "#ff5252", blue: "#4aa3ff", green: "#4cd964", yellow: "#ffd54f", black: "#bdbdbd",
  white: "#eeeeee", grey: "#9e9e9e", orange: "#ffa040", purple: "#c792ea" };
const PALETTE = ["#ff5252", "#4aa3ff", "#4cd964", "#c792ea", "#ffa040", "#4dd0e1"];

// A side named after a colour gets that colour; others take the palette in name order.
export function sideColours(sides) {
  const colours = new Map();
  [...new Set(sides.filter(Boolean))].sort().forEach((side, i) => {
    colours.set(side, NAMED[side.toLowerCase()] || PALETTE[i % PALETTE.length]);
  });
  return colours;
}
