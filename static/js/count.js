// The automatic count (C-3.9) from the viewer's own cards only. The points come from the
// engine's own scoring table (served as /scores/<game>.json), so the browser never restates
// a rule: a hand of three distinct deck cards is looked up by its combination index.

/** `data`: {deck: [card…], keys: [score key per combination in colex order], labels: {i: name}}. */
export function makeScorer(data) {
  const index = new Map(data.deck.map((c, i) => [c, i]));
  const binom = (n, k) => (k === 1 ? n : k === 2 ? (n * (n - 1)) / 2 : (n * (n - 1) * (n - 2)) / 6);
  return (cards) => {
    if (!cards || cards.length !== 3 || cards.some((c) => !index.has(c))) return null;
    const [a, b, c] = cards.map((x) => index.get(x)).sort((x, y) => x - y);
    if (a === b || b === c) return null;
    const i = binom(a, 1) + binom(b, 2) + binom(c, 3);
    const key = data.keys[i];
    const absolute = key >= data.absolute_key;
    return { points: absolute ? null : key / 2, absolute, label: data.labels[i] ?? null };
  };
}

const cache = new Map();

/** The scorer of a game, fetched once (the service worker keeps it for offline use). */
export function loadScorer(game) {
  if (!cache.has(game)) {
    cache.set(
      game,
      fetch(`/scores/${encodeURIComponent(game)}.json`)
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.statusText))))
        .then(makeScorer),
    );
  }
  return cache.get(game);
}
