// When the table is not in front (docs/rules.md «The table in the browser»): a player who
// switched tabs or locked his phone still learns that it is his turn — from the tab's title,
// the turn sound, a vibration where the device has one and, once he allowed it in the
// settings, a system notification. The screen stays on while he plays a hand (Wake Lock,
// released between hands and while hidden). A browser that will not play sound before a tap
// (iOS Safari, autoplay policies) gets «Включить звук», and that tap starts voice too.
//
// The table page (table.js) tells it each state (`state(...)`) and asks `unlock` to be
// shown when sound was refused; nothing here talks to the server.

const MARK = "● ";
/** A vibration for «Ваш ход»: two short pulses. */
const BUZZ = [180, 90, 180];

/** Show a notification through the service worker where there is one (Android's Chrome
 * refuses page notifications), else from the page; resolves to whatever can close it. */
async function notify(title, options) {
  const registration = await navigator.serviceWorker?.getRegistration?.().catch(() => null);
  if (registration?.showNotification) {
    await registration.showNotification(title, options);
    return {
      close: async () => {
        for (const n of await registration.getNotifications({ tag: options.tag })) n.close();
      },
    };
  }
  return new Notification(title, options);
}

export class Attention {
  /**
   * @param {object} options
   * @param {() => (key: string, params?: object) => string} options.t  the translator
   * @param {() => object} options.settings  the device's settings (`notify`)
   * @param {HTMLButtonElement} options.unlockButton  «Включить звук»
   * @param {() => Promise<void>} options.onUnlock  the tap: sounds and voice may start now
   */
  constructor({ t, settings, unlockButton, onUnlock }) {
    this.t = t;
    this.settings = settings;
    this.unlockButton = unlockButton;
    this.onUnlock = onUnlock;
    this.title = document.title;
    this.myTurn = false;
    this.inHand = false;
    this.shown = null; // the notification of this turn, closed when the turn is over
    this.lock = null; // the screen's wake lock while a hand is played
    this.tableName = "";
    document.addEventListener("visibilitychange", () => this.#visibility());
    unlockButton.addEventListener("click", async () => {
      unlockButton.hidden = true;
      await this.onUnlock();
    });
  }

  /** Each table state: whose turn it is and whether this player plays the hand. */
  state({ myTurn, inHand, tableName }) {
    this.tableName = tableName || this.tableName;
    if (myTurn && !this.myTurn) this.#turnStarts();
    else if (!myTurn && this.myTurn) this.#turnEnds();
    this.myTurn = myTurn;
    this.inHand = inHand;
    this.#keepAwake();
  }

  /** Sound was refused until a tap: «Включить звук» is shown (once is enough). */
  unlock() {
    this.unlockButton.textContent = this.t()("sound_unlock");
    this.unlockButton.hidden = false;
  }

  #turnStarts() {
    if (!document.hidden) return;
    const t = this.t();
    document.title = `${MARK}${t("your_turn")} · ${this.title}`;
    navigator.vibrate?.(BUZZ);
    if (this.settings().notify && globalThis.Notification?.permission === "granted") {
      const options = {
        body: this.tableName,
        tag: "svara-turn",
        renotify: true,
        lang: document.documentElement.lang,
        data: { url: location.pathname },
      };
      notify(t("your_turn"), options)
        .then((shown) => (this.shown = shown))
        .catch(() => {});
    }
  }

  #turnEnds() {
    document.title = this.title;
    const shown = this.shown;
    this.shown = null;
    shown?.close?.();
  }

  #visibility() {
    if (!document.hidden) {
      document.title = this.title;
      this.shown?.close?.();
      this.shown = null;
    }
    this.#keepAwake();
  }

  /** The screen stays on while a hand is played here and the page is in front (a lock
   * ends by itself when the page is hidden; it is asked for again on return). */
  async #keepAwake() {
    const wanted = this.inHand && !document.hidden;
    if (wanted && (!this.lock || this.lock.released)) {
      this.lock = { released: false, pending: true };
      try {
        this.lock = await navigator.wakeLock.request("screen");
      } catch {
        this.lock = null; // no Wake Lock here (or refused): nothing more to do
      }
      if (this.lock && !(this.inHand && !document.hidden)) this.#release();
    } else if (!wanted && this.lock && !this.lock.pending) this.#release();
  }

  #release() {
    const lock = this.lock;
    this.lock = null;
    lock?.release?.().catch(() => {});
  }
}

/** Ask for the permission to notify (from the settings' tap); false when refused. */
export async function allowNotifications() {
  if (!globalThis.Notification) return false;
  if (Notification.permission === "granted") return true;
  return (await Notification.requestPermission()) === "granted";
}
