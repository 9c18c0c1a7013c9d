// What the table page does differently per game: one module per game (games/<game>.js),
// each a plain object over the defaults below. render.js and protocol.js ask `gameOf(name)`
// and never test a game's name. Adding a game: its module and one line in GAMES.

import classic from "./classic.js";
import shaha36 from "./shaha36.js";
import svara32 from "./svara32.js";

/** What a game does unless its module says otherwise. */
export const DEFAULTS = {
  name: "",
  /** Actions answered in a dialog rather than the action bar. */
  dialogDo: new Set(),
  /** The words of an action or event (`a`: {do, to, deal}), or null for `${game}.${do}`. */
  label: () => null,
  /** Whether an action's word already says the level it goes to («Дал 20», C-4.5). */
  wordSaysLevel: false,
  /** Whether a showdown `show` event is the player's decision (svara32 has no «Показать»). */
  showIsDecision: true,
  /** Whether a look is a decision of the last three (C-4.15): turning cards is not (S-1.3). */
  lookIsDecision: true,
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

const GAMES = Object.fromEntries([classic, shaha36, svara32].map((g) => [g.name, { ...DEFAULTS, ...g }]));

/** The page's module of a game (the defaults for a name it does not know). */
export function gameOf(name) {
  return GAMES[name] || DEFAULTS;
}
