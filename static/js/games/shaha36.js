// shaha36 (docs/rules/shaha36.md): cards turned by tapping them (S-1.3), the tie vote (S-7.1),
// «Новая раздача» between hands (S-1.6).

// Its words, one entry a line (app/i18n.py reads them as it reads i18n.js).
const RU = {
  "game.shaha36": "36 карт, шаха",
  "shaha36.check": "Пропустить",
  "shaha36.bet": "Поставить",
  "shaha36.call": "Уравнять",
  "shaha36.raise": "Повысить",
  "shaha36.fold": "Скинуть",
  "shaha36.dark": "Втёмную",
  "shaha36.look": "Открыть карты",
  "shaha36.show": "Показать",
  "shaha36.muck": "Скинуть",
  "shaha36.cook": "Варить",
  "shaha36.split": "Делить",
  "shaha36.join": "Вариться",
  "shaha36.skip": "Не вариться",
  "game_name.shaha36": "Шаха",
  "shaha36.tap_hint": "Нажмите на карту, чтобы открыть её",
};
const EN = {
  "game.shaha36": "36 cards, shaha",
  "shaha36.check": "Check",
  "shaha36.bet": "Bet",
  "shaha36.call": "Call",
  "shaha36.raise": "Raise",
  "shaha36.fold": "Fold",
  "shaha36.dark": "Dark",
  "shaha36.look": "Turn cards",
  "shaha36.show": "Show",
  "shaha36.muck": "Muck",
  "shaha36.cook": "Cook",
  "shaha36.split": "Split",
  "shaha36.join": "Buy in",
  "shaha36.skip": "Stay out",
  "game_name.shaha36": "Shaha",
  "shaha36.tap_hint": "Tap a card to turn it",
};
const BG = {
  "game.shaha36": "36 карти, шаха",
  "shaha36.check": "Чек",
  "shaha36.bet": "Залагам",
  "shaha36.call": "Плащам",
  "shaha36.raise": "Вдигам",
  "shaha36.fold": "Пас",
  "shaha36.dark": "На тъмно",
  "shaha36.look": "Обръщам картите",
  "shaha36.show": "Показвам",
  "shaha36.muck": "Хвърлям",
  "shaha36.cook": "Към свара",
  "shaha36.split": "Делим",
  "shaha36.join": "Влизам",
  "shaha36.skip": "Не влизам",
  "game_name.shaha36": "Шаха",
  "shaha36.tap_hint": "Докоснете карта, за да я обърнете",
};
export const WORDS = { ru: RU, en: EN, bg: BG };

export default {
  name: "shaha36",
  decisions: new Set(["check", "bet", "call", "raise", "fold", "dark", "show", "muck", "cook", "split", "join", "skip", "timeout", "vote"]),
  barOrder: ["fold", "muck", "check", "look", "call", "bet", "raise", "dark", "show"],
  deck: { lowest: "6", joker: false },
  words: WORDS,
  dialogDo: new Set(["cook", "split", "join", "skip"]),
  looksMark: true,
  tapToLook: true,
  lookButton: false,
  dialog(view, has, t) {
    if (has("cook") || has("split")) return { kind: "tie", title: t("tie_title"), actions: [has("split"), has("cook")] };
    return null;
  },
  readyDo: "new_hand",
};
