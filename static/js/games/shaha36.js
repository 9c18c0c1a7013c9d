// shaha36 (docs/rules/shaha36.md): cards turned by tapping them (S-1.3), the tie vote (S-7.1),
// «Новая раздача» between hands (S-1.6).

export default {
  name: "shaha36",
  dialogDo: new Set(["cook", "split", "join", "skip"]),
  looksMark: true,
  lookIsDecision: false,
  tapToLook: true,
  lookButton: false,
  dialog(view, has, t) {
    if (has("cook") || has("split")) return { kind: "tie", title: t("tie_title"), actions: [has("split"), has("cook")] };
    return null;
  },
  readyDo: "new_hand",
};
