// Per-device settings (C-3.9: the auto-count is a per-player choice, visible only to him).
// Kept in localStorage so that they work offline and before logging in.

import { DICTS } from "./i18n.js";

const KEY = "svara.settings";

/** Russian first (docs/i18n.md): Bulgarian when the browser puts it before Russian (a
 * Bulgarian phone), English only from the switch — many Russian speakers' phones are in
 * English and should not turn the table's words English. */
export function browserLanguage(languages = globalThis.navigator?.languages ?? []) {
  const known = languages.map((l) => String(l).toLowerCase().split("-")[0]).find((l) => l === "ru" || l === "bg");
  return known ?? "ru";
}

export const DEFAULTS = Object.freeze({
  lang: browserLanguage(), // English and Bulgarian behind the switch too (i18n.js DICTS)
  sound: true, // turn, deal, win and Svara sounds
  fourColour: false, // ♦ blue and ♣ green for colour-blind players
  autoCount: false, // C-3.9: hidden by default
  notify: false, // «Ваш ход» as a system notification while the table is not in front
});

/** What this device keeps under `key` (an object; {} when missing or unreadable). */
export function storedObject(key, storage = globalThis.localStorage) {
  try {
    const value = JSON.parse(storage?.getItem(key) || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/** The stored settings over the defaults (unknown keys dropped, wrong types and languages
 * without a dictionary ignored). */
export function loadSettings(storage = globalThis.localStorage) {
  const stored = storedObject(KEY, storage);
  const out = { ...DEFAULTS };
  for (const [k, v] of Object.entries(DEFAULTS)) {
    if (typeof stored[k] === typeof v && (k !== "lang" || Object.hasOwn(DICTS, stored[k]))) {
      out[k] = stored[k];
    }
  }
  return out;
}

export function saveSettings(settings, storage = globalThis.localStorage) {
  storage?.setItem(KEY, JSON.stringify(settings));
  globalThis.dispatchEvent?.(new CustomEvent("svara-settings", { detail: settings }));
}
