// The offline page tries again every few seconds; the service worker serves it only while
// the server cannot be reached.
setInterval(() => fetch(location.href, { cache: "no-store" }).then((r) => r.ok && location.reload(), () => {}), 3000);
