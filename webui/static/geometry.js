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
