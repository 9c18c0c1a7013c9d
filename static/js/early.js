// Run before the page is drawn (a classic script in the head, not a module: the pages allow
// no inline script, docs/hosting.md «Headers»). A language other than Russian — the page's
// own (`data-lang`, base.html) or the one chosen on this device —: keep the Russian words of
// the page unseen until app.js has translated them (a second at most, should it not load).
try {
  const own = document.documentElement.dataset.lang;
  const lang = own || JSON.parse(localStorage.getItem("svara.settings") || "{}").lang || "ru";
  if (lang !== "ru") {
    document.documentElement.classList.add("translating");
    setTimeout(() => document.documentElement.classList.remove("translating"), 1000);
  }
} catch (e) {}
