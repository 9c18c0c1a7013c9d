// Every page: the service worker (the installable, offline-first shell), the language and
// the settings forms.

import { translatePage } from "./i18n.js";
import { bindSettingsForm, markInstallBrowser } from "./pages.js";
import { loadSettings } from "./settings.js";

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

function applyLanguage() {
  const { lang, fourColour } = loadSettings();
  document.documentElement.classList.toggle("four-colour", fourColour);
  translatePage(document, lang); // Russian too: a refusal may come from the server in English
}

applyLanguage();
globalThis.addEventListener("svara-settings", applyLanguage);
for (const form of document.querySelectorAll("[data-settings]")) bindSettingsForm(form);
if (document.body.classList.contains("install-page")) markInstallBrowser(document);
