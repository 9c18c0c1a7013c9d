// classic (docs/rules/classic.md): the levels in the words, the «Варить»/«Делить» vote (C-5),
// the dark continuation in a Svara (C-7.5), the look as a duel everyone sees (C-4.11).

/** The open proposal (C-5.2): the view's `vote`, else the last `propose` event. */
function proposal(view) {
  if (view.vote) return view.vote;
  const ev = [...(view.events || [])].reverse().find((e) => e.kind === "propose");
  return ev ? { proposer: ev.player, deal: ev.deal } : null;
}

// Its words, one entry a line (app/i18n.py reads them as it reads i18n.js).
const RU = {
  "game.classic": "классика, 37 карт",
  "classic.pass": "Прошёл",
  "classic.bet": "Дал {to}",
  "classic.fold": "Упал",
  "classic.open": "Вскрыться",
  "classic.lock": "Забился",
  "classic.look": "Смотреться",
  "classic.give_on": "Дал дальше",
  "classic.give_on_to": "Дал дальше {to}",
  "classic.propose.cook": "Варить",
  "classic.propose.split": "Делить",
  "classic.agree": "Согласиться",
  "classic.refuse": "Отказаться",
  "classic.join": "Войти в свару",
  "classic.skip": "Не входить",
  "classic.dark": "Темнит",
  "classic.dark_on": "Продолжить темняшку",
  "classic.dark_off": "Играть без темняшки",
  "game_name.classic": "Классика",
};
const EN = {
  "game.classic": "Classic, 37 cards",
  "classic.pass": "Pass",
  "classic.bet": "Bet {to}",
  "classic.fold": "Fold",
  "classic.open": "Open",
  "classic.lock": "Lock in",
  "classic.look": "Look",
  "classic.give_on": "Pass it on",
  "classic.give_on_to": "Pass it on {to}",
  "classic.propose.cook": "Cook",
  "classic.propose.split": "Split",
  "classic.agree": "Agree",
  "classic.refuse": "Refuse",
  "classic.join": "Enter the Svara",
  "classic.skip": "Stay out",
  "classic.dark": "Goes dark",
  "classic.dark_on": "Stay dark",
  "classic.dark_off": "Play without dark",
  "game_name.classic": "Classic",
};
const BG = {
  "game.classic": "класика, 37 карти",
  "classic.pass": "Минавам",
  "classic.bet": "Давам {to}",
  "classic.fold": "Пас",
  "classic.open": "Откривам",
  "classic.lock": "Затварям",
  "classic.look": "Сравнявам",
  "classic.give_on": "Давам нататък",
  "classic.give_on_to": "Давам нататък {to}",
  "classic.propose.cook": "Към свара",
  "classic.propose.split": "Делим",
  "classic.agree": "Съгласен",
  "classic.refuse": "Отказвам",
  "classic.join": "Влизам в сварата",
  "classic.skip": "Не влизам",
  "classic.dark": "На тъмно",
  "classic.dark_on": "Продължавам на тъмно",
  "classic.dark_off": "Играя без тъмно",
  "game_name.classic": "Класика",
};
export const WORDS = { ru: RU, en: EN, bg: BG };

export default {
  name: "classic",
  decisions: new Set(["pass", "bet", "fold", "open", "lock", "look", "give_on", "propose", "agree", "refuse", "join", "skip", "dark_on", "dark_off", "cook", "split", "dark", "timeout"]),
  barOrder: ["fold", "pass", "open", "look", "bet", "lock", "give_on", "propose"],
  deck: { lowest: "6", joker: true },
  words: WORDS,
  dialogDo: new Set(["agree", "refuse", "join", "skip", "dark_on", "dark_off"]),
  label(a, t) {
    if (a.do === "bet") return t("classic.bet", { to: a.to });
    if (a.do === "give_on") return a.to ? t("classic.give_on_to", { to: a.to }) : t("classic.give_on");
    if (a.do === "propose") return t(`classic.propose.${a.deal}`);
    return null;
  },
  wordSaysLevel: true,
  lookBanner: true,
  dialog(view, has, t) {
    if (has("agree")) {
      const prop = proposal(view);
      const title = t(prop?.deal === "split" ? "vote_title_split" : "vote_title_cook", { name: prop?.proposer ?? "" });
      return { kind: "vote", title, actions: [has("agree"), has("refuse")] };
    }
    if (has("dark_on")) return { kind: "dark-svara", title: t("dark_title_svara"), actions: [has("dark_on"), has("dark_off")] };
    return null;
  },
};
