// What the pages other than the table do in the browser: the settings form and the install
// page's choice of steps.

import { allowNotifications } from "./attention.js";
import { loadSettings, saveSettings } from "./settings.js";

/** Bind a [data-settings] form to the stored settings; every change saves at once. */
export function bindSettingsForm(form) {
  const current = loadSettings();
  for (const input of form.elements) {
    if (!input.name) continue;
    if (input.type === "radio") input.checked = current[input.name] === input.value;
    else if (input.type === "checkbox") input.checked = Boolean(current[input.name]);
  }
  form.addEventListener("change", async (ev) => {
    // Notifications need the browser's permission, asked from this tap; refused: kept off.
    if (ev.target.name === "notify" && ev.target.checked) {
      const allowed = await allowNotifications().catch(() => false);
      ev.target.checked = allowed;
      form.querySelector("[data-notify-refused]")?.toggleAttribute("hidden", allowed);
    }
    const next = { ...loadSettings() };
    for (const input of form.elements) {
      if (!input.name) continue;
      if (input.type === "radio" && input.checked) next[input.name] = input.value;
      else if (input.type === "checkbox") next[input.name] = input.checked;
    }
    saveSettings(next);
    const saved = form.querySelector(".saved");
    if (saved) saved.hidden = false;
  });
}

/**
 * The install page (C §9): inside Telegram's in-app browser nothing can be installed, so
 * the first step is «Открыть в браузере»; the server guessed from the user agent, the page
 * also checks Telegram's own webview object, which its iPhone browser does not announce.
 */
export function markInstallBrowser(doc) {
  const inTelegram = Boolean(globalThis.TelegramWebviewProxy || globalThis.Telegram?.WebView);
  if (inTelegram) doc.body.dataset.browser = "telegram";
  const browser = doc.body.dataset.browser;
  for (const el of doc.querySelectorAll("[data-for]")) {
    el.classList.toggle("current", el.dataset.for === browser);
  }
  const telegram = doc.querySelector(".telegram-first");
  if (telegram) telegram.hidden = browser !== "telegram";
}
