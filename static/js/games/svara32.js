// svara32 (docs/rules/svara32.md): the dark hand seen by tapping it (B-4.3), no «Показать» at the
// showdown (B-3.2), «Тёмный» before the deal (B-4.1).

// Its words, one entry a line (app/i18n.py reads them as it reads i18n.js).
const RU = {
  "game.svara32": "Свара 32",
  "svara32.call": "КОЛЛ",
  "svara32.raise": "РЕЙЗ",
  "svara32.fold": "ПАС",
  "svara32.look": "Смотреть",
  "svara32.join": "Войти в свару",
  "svara32.skip": "Не входить",
  "svara32.blind": "Тёмный",
  "svara32.check": "ЧЕК",
  "svara32.dark": "Тёмный",
  "game_name.svara32": "Свара 32",
  "variant.svara32-traditional": "Свара 32 по-старому",
  "variant.svara32-practice": "Свара 32, практика",
  "svara32.tap_hint": "Нажмите на карты, чтобы посмотреть их",
};
const EN = {
  "game.svara32": "Svara 32",
  "svara32.call": "CALL",
  "svara32.raise": "RAISE",
  "svara32.fold": "FOLD",
  "svara32.look": "Look",
  "svara32.join": "Enter the Svara",
  "svara32.skip": "Stay out",
  "svara32.blind": "Blind",
  "svara32.check": "CHECK",
  "svara32.dark": "Dark",
  "game_name.svara32": "Svara 32",
  "variant.svara32-traditional": "Svara 32, traditional",
  "variant.svara32-practice": "Svara 32, practice",
  "svara32.tap_hint": "Tap the cards to look at them",
};
const BG = {
  "game.svara32": "Свара 32",
  "svara32.call": "ПЛАЩАМ",
  "svara32.raise": "ВДИГАМ",
  "svara32.fold": "ПАС",
  "svara32.look": "Виж картите",
  "svara32.join": "Влизам в сварата",
  "svara32.skip": "Не влизам",
  "svara32.blind": "На тъмно",
  "svara32.check": "ЧЕК",
  "svara32.dark": "На тъмно",
  "game_name.svara32": "Свара 32",
  "variant.svara32-traditional": "Свара 32 по старому",
  "variant.svara32-practice": "Свара 32, тренировка",
  "svara32.tap_hint": "Докоснете картите, за да ги видите",
};
export const WORDS = { ru: RU, en: EN, bg: BG };

export default {
  name: "svara32",
  decisions: new Set(["call", "raise", "fold", "look", "join", "skip", "blind", "check", "dark", "timeout"]),
  barOrder: ["fold", "check", "look", "call", "raise", "blind"],
  deck: { lowest: "7", joker: false },
  words: WORDS,
  dialogDo: new Set(["join", "skip"]),
  tapToLook: true,
  darkButton: () => ({ do: "dark32", send: "dark" }),
};
