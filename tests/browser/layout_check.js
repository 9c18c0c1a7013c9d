// The layout check of tests/browser/layout.py, run in the page by Playwright: one line per
// fault, naming the texts involved.
() => {
  const SLACK = 2;
  const MODAL = ".panel, .dialog-layer, .toast";
  const vw = document.documentElement.clientWidth, vh = innerHeight;
  const name = (el) => {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join("").trim();
    const text = own || el.getAttribute("aria-label") || el.getAttribute("class") || el.tagName;
    return `«${String(text).replace(/\s+/g, " ").slice(0, 40)}»`;
  };
  const visible = (el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  const box = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
  const meet = (a, b) => a.l + SLACK < b.r && b.l + SLACK < a.r && a.t + SLACK < b.b && b.t + SLACK < a.b;
  const related = (a, b) => a.contains(b) || b.contains(a);
  const modalOf = (el) => el.closest(MODAL);

  // What a player reads: elements with text nodes of their own, and face-up cards.
  const items = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const owners = new Map();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.data.trim()) continue;
    const el = n.parentElement;
    if (!el || el.closest("script, style, title, option, .card, [hidden]")) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5).map(box);
    if (!rects.length || !visible(el)) continue;
    if (!owners.has(el)) owners.set(el, { el, rects: [], words: [] });
    owners.get(el).rects.push(...rects);
    // A word broken over two lines («бай-/ин»).
    for (const m of n.data.matchAll(/\S+/g)) {
      const w = document.createRange();
      w.setStart(n, m.index);
      w.setEnd(n, m.index + m[0].length);
      const tops = new Set([...w.getClientRects()].filter((r) => r.width > 0.5).map((r) => Math.round(r.top)));
      if (tops.size > 1) owners.get(el).words.push(m[0]);
    }
  }
  items.push(...owners.values());
  for (const el of document.querySelectorAll(".card.up")) {
    if (!visible(el) || el.closest("[hidden]")) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1) continue;
    // The corner index (rank and suit), the part of a card a fan leaves in sight.
    items.push({ el, card: true, rects: [{ l: r.left, t: r.top, r: r.left + r.width * 0.34, b: r.top + r.height * 0.3 }] });
  }

  const found = [];
  // Cut: outside the screen, or outside an ancestor that clips, without an ellipsis.
  const clippers = (el) => {
    const out = [];
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== "visible" || s.overflowY !== "visible") out.push([a, s]);
    }
    return out;
  };
  // What a scroller holds beyond its edge is scrolled to, not cut: a list up and down; a row
  // made to scroll sideways (it snaps sideways: the phone's quick phrases) sideways.
  const row = (s) => s.scrollSnapType.startsWith("x");
  const ellipsis = (el) => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.textOverflow === "ellipsis" && s.overflowX !== "visible") return true;
      if (s.display !== "inline" && a !== el) break;
    }
    return false;
  };
  for (const it of items) {
    if (it.card) continue;
    const el = it.el;
    const dotted = ellipsis(el);
    for (const w of it.words) found.push(`${name(el)}: the word «${w}» is broken over two lines`);
    if (!dotted && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && getComputedStyle(el).overflowX !== "visible") {
      found.push(`${name(el)} is cut (scrollWidth ${el.scrollWidth} > ${el.clientWidth}) without an ellipsis`);
    }
    if (dotted) continue;
    const sideways = clippers(el).some(([, s]) => row(s));
    for (const r of it.rects) {
      if (!sideways && (r.l < -1 || r.r > vw + 1)) found.push(`${name(el)} runs off the screen sideways`);
      const scrolls = clippers(el).some(([, s]) => s.overflowY === "auto" || s.overflowY === "scroll");
      const pageScrolls = document.documentElement.scrollHeight > vh + 1;
      if (!scrolls && !pageScrolls && (r.t < -1 || r.b > vh + 1)) found.push(`${name(el)} runs off the screen`);
      for (const [a, s] of clippers(el)) {
        const c = a.getBoundingClientRect();
        const xCut = !row(s) && (r.l < c.left - 1 || r.r > c.right + 1);
        const yCut = (s.overflowY === "hidden" || s.overflowY === "clip") && (r.t < c.top - 1 || r.b > c.bottom + 1);
        if (xCut || yCut) found.push(`${name(el)} is cut by ${a.tagName.toLowerCase()}.${a.className}`);
      }
    }
  }

  // Covered: the topmost element at a few points of each text is the text's own element.
  // Through everything, also what lets taps pass (a banner): it covers all the same. A
  // constructed sheet, which the pages' CSP (style-src 'self') allows.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(":not(svg, svg *) { pointer-events: auto !important; } svg { pointer-events: none !important; }" +
    " svg * { pointer-events: visiblePainted !important; }");
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const seen = (el, r) => {
    let out = { ...r };
    const own = getComputedStyle(el).overflowX !== "visible" ? [[el]] : [];
    for (const [a] of [...own, ...clippers(el)]) {
      const c = a.getBoundingClientRect();
      out = { l: Math.max(out.l, c.left), t: Math.max(out.t, c.top), r: Math.min(out.r, c.right), b: Math.min(out.b, c.bottom) };
    }
    return out.r - out.l > 2 && out.b - out.t > 2 ? out : null;
  };
  for (const it of items) it.shown = it.card ? it.rects : it.rects.map((x) => seen(it.el, x)).filter(Boolean);
  for (const it of items) {
    const el = it.el;
    const mine = modalOf(el);
    for (const r of it.shown) {
      const y = (r.t + r.b) / 2;
      const xs = it.card ? [(r.l + r.r) / 2] : [r.l + 2, (r.l + r.r) / 2, r.r - 2];
      for (const x of xs) {
        if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
        const top = document.elementFromPoint(x, y);
        if (!top || el === top || el.contains(top)) continue;
        const over = modalOf(top);
        if (over && over !== mine) continue; // behind an open dialog or panel
        found.push(`${name(el)} is covered by ${name(top)}`);
      }
    }
  }
  // The page's marks (the shuffle check, the host's pause) cover no seat, panel or dialog: at
  // a grid of points of their common box the topmost element is not the mark's.
  for (const o of document.querySelectorAll(".fair-mark, .host-status")) {
    if (!visible(o)) continue;
    const a = o.getBoundingClientRect();
    for (const u of document.querySelectorAll(".seat, .panel, .dialog, [role=dialog]")) {
      if (!visible(u) || related(o, u)) continue;
      const b = u.getBoundingClientRect();
      const l = Math.max(a.left, b.left), r = Math.min(a.right, b.right);
      const t = Math.max(a.top, b.top), bt = Math.min(a.bottom, b.bottom);
      if (r - l < SLACK || bt - t < SLACK) continue;
      const at = [0.1, 0.3, 0.5, 0.7, 0.9];
      const over = at.some((fx) => at.some((fy) => o.contains(document.elementFromPoint(l + (r - l) * fx, t + (bt - t) * fy))));
      if (over) found.push(`${name(o)} covers ${u.dataset.seat ? `the seat of «${u.dataset.seat}»` : name(u)}`);
    }
  }
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((x) => x !== sheet);

  // Overlap: two texts (or a text and a card's index) on the same layer meet.
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i], b = items[j];
      if (related(a.el, b.el) || modalOf(a.el) !== modalOf(b.el)) continue;
      if (a.shown.some((x) => b.shown.some((y) => meet(x, y)))) found.push(`${name(a.el)} and ${name(b.el)} overlap`);
    }
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) found.push(`the page scrolls sideways (${root.scrollWidth} > ${root.clientWidth})`);
  return [...new Set(found)].sort();
}
