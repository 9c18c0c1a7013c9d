// svara32 (docs/rules/svara32.md): the dark hand seen by tapping it (B-4.3), no «Показать» at the
// showdown (B-3.2), «Тёмный» before the deal (B-4.1).

export default {
  name: "svara32",
  dialogDo: new Set(["join", "skip"]),
  showIsDecision: false,
  tapToLook: true,
  darkButton: () => ({ do: "dark32", send: "dark" }),
};
