// A private table's invite link (templates/_invite.html), in the lobby and in the host's
// table menu: «Скопировать» puts it on the clipboard — the Clipboard API where the page is a
// secure context (https, localhost), else the selected field's copy (a LAN address over
// http, where the API is missing) — and says so.

/** Copy buttons under `root` work from now on. */
export function copyInvites(root) {
  root.addEventListener("click", async (event) => {
    const button = event.target.closest(".copy-invite");
    if (!button) return;
    const row = button.closest(".invite");
    const field = row.querySelector(".invite-link");
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand("copy");
    }
    row.querySelector(".copied").hidden = false;
  });
}
