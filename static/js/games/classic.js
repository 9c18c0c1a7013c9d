// classic (docs/rules/classic.md): the levels in the words, the «Варить»/«Делить» vote (C-5),
// the dark continuation in a Svara (C-7.5), the look as a duel everyone sees (C-4.11).

/** The open proposal (C-5.2): the view's `vote`, else the last `propose` event. */
function proposal(view) {
  if (view.vote) return view.vote;
  const ev = [...(view.events || [])].reverse().find((e) => e.kind === "propose");
  return ev ? { proposer: ev.player, deal: ev.deal } : null;
}

export default {
  name: "classic",
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
