// What the pages do differently per game: one module per game (games/<game>.js), each a
// plain object over the defaults below, with its decisions, action bar order, deck and words
// (RU, EN, BG). render.js, protocol.js, fair.js and i18n.js ask `gameOf(name)` or `WORDS` and
// never name a game. Adding a game: its module and one line below (app/i18n.py reads the
// same line to find the module's words).

import classic from "./classic.js";
import shaha36 from "./shaha36.js";
import svara32 from "./svara32.js";

const MODULES = [classic, shaha36, svara32]; // one line per game: its module above

/** What a game does unless its module says otherwise. */
export const DEFAULTS = {
  name: "",
  /** Every event `kind` that is a player's decision (what «последние три решения» lists). */
  decisions: new Set(),
  /** Left to right in the action bar: giving up first, then the cheap, then the dear. */
  barOrder: [],
  /** The deck (fair.js): from the lowest rank up, and whether a joker is in it. */
  deck: { lowest: "6", joker: false },
  /** Its words by language (`{ru: {key: text}, en, bg}`), added to i18n.js's dictionaries. */
  words: {},
  /** Actions answered in a dialog rather than the action bar. */
  dialogDo: new Set(),
  /** The words of an action or event (`a`: {do, to, deal}), or null for `${game}.${do}`. */
  label: () => null,
  /** Whether an action's word already says the level it goes to («Дал 20», C-4.5). */
  wordSaysLevel: false,
  /** Whether a seat shows that its player has looked at his cards (S-1.3). */
  looksMark: false,
  /** Whether the viewer looks by tapping a face-down card (S-1.3, B-4.3). */
  tapToLook: false,
  /** Whether `look` is a button in the action bar. */
  lookButton: true,
  /** Whether a look is a banner for everyone (C-4.11: a duel in front of the table). */
  lookBanner: false,
  /** The game's own dialog for a view: {kind, title, actions} or null (`has(do)`: the
   * legal action of that name, if any). */
  dialog: () => null,
  /** The between-hands answer «Готов» under its game's name (`do`, sent as `ready`). */
  readyDo: "ready",
  /** The between-hands dark button (`info`: the table's info). */
  darkButton: (info) => ({ do: "dark", send: "dark", price: info.rules?.dark_fee }),
};

const GAMES = Object.fromEntries(MODULES.map((g) => [g.name, { ...DEFAULTS, ...g }]));

/** Every game's words by language: what i18n.js adds to its dictionaries. */
export const WORDS = { ru: {}, en: {}, bg: {} };
for (const g of MODULES) for (const [lang, words] of Object.entries(g.words || {})) Object.assign(WORDS[lang], words);

/** The page's module of a game (the defaults for a name it does not know). */
export function gameOf(name) {
  return GAMES[name] || DEFAULTS;
}
