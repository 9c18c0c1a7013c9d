// Every page: the service worker (the installable, offline-first shell), the language and
// the settings forms.

import { translatePage, withLang } from "./i18n.js";
import { bindSettingsForm, markInstallBrowser } from "./pages.js";
import { loadSettings } from "./settings.js";

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

// The rules page has its language in its address (`data-lang`, base.html); opened without
// one (`data-lang=""`), it is asked for again in the device's language, still unseen.
const addressed = document.documentElement.dataset.lang;

function applyLanguage() {
  const { lang, fourColour } = loadSettings();
  document.documentElement.classList.toggle("four-colour", fourColour);
  if (addressed === "" && lang !== "ru") {
    location.replace(withLang(location.pathname, lang) + location.hash);
    return;
  }
  translatePage(document, addressed || lang); // Russian too: a refusal may come in English
}

applyLanguage();
globalThis.addEventListener("svara-settings", applyLanguage);
for (const form of document.querySelectorAll("[data-settings]")) bindSettingsForm(form);
if (document.body.classList.contains("install-page")) markInstallBrowser(document);
