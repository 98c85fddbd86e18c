// umbel serve: live updates on top of pages that work without this script. The fleet's events
// arrive over Server-Sent Events (/events); when one comes, the part of the page it changes is
// fetched again and swapped in. A worker's screen is fetched every second while the tab shows.
// Forms post with fetch (the CSRF token in a header too) and the page updates in place.
"use strict";
(function () {
  const page = document.body.dataset.page;
  const csrf = document.querySelector('meta[name="csrf"]')?.content || "";
  const dot = document.getElementById("live-dot");
  const live = document.getElementById("live");
  const worker = live ? live.dataset.name : null;
  let pending = null;

  function later(fn) {
    if (pending) return;
    pending = setTimeout(() => { pending = null; fn(); }, 60);
  }

  // The newest fetch wins: an older one answering late must not draw a staler page over it.
  let ticket = 0;
  async function swap(url, target) {
    const mine = ++ticket;
    const res = await fetch(url, { credentials: "same-origin" });
    if (!res.ok || !target) return;
    const text = await res.text();
    if (mine === ticket) target.innerHTML = text;
  }

  function refresh() {
    if (page === "fleet") {
      const box = document.getElementById("fleet-box");
      later(() => swap("/fleet", box));
    } else if (worker) {
      later(() => swap("/w/" + encodeURIComponent(worker) + "/live", live));
    }
  }

  // The browser reconnects a stream that dropped, but gives up on one that failed (a network
  // error before it opened, a server gone): a new one then, each wait twice the last, so that a
  // page whose token is stale does not knock at the rate limit.
  let backoff = 3000;
  function listen() {
    const source = new EventSource("/events");
    // An event between drawing the page and the stream opening (or while it reconnected) came
    // to no one: fetch once on every open.
    source.addEventListener("open", () => {
      backoff = 3000;
      if (dot) dot.classList.add("on");
      refresh();
    });
    source.addEventListener("error", () => {
      if (dot) dot.classList.remove("on");
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(listen, backoff);
        backoff = Math.min(backoff * 2, 300000);
      }
    });
    source.addEventListener("fleet", (e) => {
      let event = null;
      try { event = JSON.parse(e.data); } catch (_) { return; }
      // No worker named: the server's notice that this stream fell behind and lost some.
      if (page === "fleet" || !event || !event.worker || event.worker === worker) refresh();
    });
  }

  const screen = document.getElementById("screen");
  async function look() {
    if (!screen || document.visibilityState !== "visible") return;
    const res = await fetch("/w/" + encodeURIComponent(screen.dataset.name) + "/screen",
      { credentials: "same-origin" });
    if (res.ok) {
      const text = await res.text();
      if (screen.textContent !== text) screen.textContent = text;
    }
  }

  function note(text, bad) {
    let box = document.getElementById("note");
    if (!box) {
      box = document.createElement("p");
      box.id = "note";
      document.querySelector("main").prepend(box);
    }
    box.className = bad ? "error" : "note";
    box.textContent = text;
  }

  document.addEventListener("submit", async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "post") return;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) { e.preventDefault(); return; }
    e.preventDefault();
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    try {
      const res = await fetch(form.action, {
        method: "POST",
        credentials: "same-origin",
        headers: { "x-umbel-fetch": "1", "x-umbel-csrf": csrf },
        body: new URLSearchParams(new FormData(form)),
      });
      const body = await res.json().catch(() => ({ ok: false, error: res.status + " " + res.statusText }));
      note(body.ok ? body.note : body.error, !body.ok);
      if (body.ok && form.id === "send") form.reset();
      if (body.ok && form.id === "kill") { window.location.href = "/"; return; }
      refresh();
      look();
    } catch (err) {
      note("the request failed: " + err, true);
    } finally {
      if (button) button.disabled = false;
    }
  });

  listen();
  if (screen) { look(); setInterval(look, 1000); }
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") { refresh(); look(); } });
})();
