// Visible text whose contrast with its background is under WCAG AA (4.5:1): [text, ratio] pairs.
() => {
  const rgb = (colour) => (colour.match(/[\d.]+/g) || []).map(Number);
  const channel = (v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || c[3] > 0.5) return c;
    }
    return [255, 255, 255];
  };
  const hasText = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  return [...document.querySelectorAll("body *:not(svg *)")]
    .filter((e) => e.offsetParent !== null && hasText(e))
    .map((e) => {
      const a = luminance(rgb(getComputedStyle(e).color));
      const b = luminance(background(e));
      return [e.textContent.trim().slice(0, 30), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
    })
    .filter(([, ratio]) => ratio < 4.5);
}
