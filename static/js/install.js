// The install page: Chromium offers its own prompt, so a button for it when the page may be
// installed.
let prompt = null;
const button = document.getElementById("install-now");
addEventListener("beforeinstallprompt", (ev) => { ev.preventDefault(); prompt = ev; button.hidden = false; });
button.addEventListener("click", () => prompt && prompt.prompt());
