// trace.js: the trace panel. While connected it asks the trace endpoint
// (config.trace, relative to the page, behind the same credential as the
// MCP endpoint) every second for the calls the server answered since the
// last one it saw, of every client, and shows them newest first as
// #trace tbody tr[data-seq][data-name][data-caller][data-client][data-outcome].

import { el, $ } from "./dom.js";

// MAX_ROWS bounds the table: older rows are dropped.
const MAX_ROWS = 500;
const INTERVAL_MS = 1000;
const RETRY_MS = 5000;
const WATCHING = "Watching the calls the server receives.";

// Trace polls one trace endpoint with one credential. onAnswer is called
// after each answer (the server is reachable).
export class Trace {
  constructor(onAnswer) {
    this.onAnswer = onAnswer;
    this.after = 0; // the last sequence number seen
    this.timer = 0;
    this.paused = false;
    this.generation = 0; // a poll of an older generation stops
    this.tbody = $("trace").tBodies[0];
    $("trace-pause").addEventListener("click", () => this.togglePause());
    $("trace-clear").addEventListener("click", () => this.tbody.replaceChildren());
    $("trace-filter").addEventListener("input", () => {
      for (const tr of this.tbody.rows) filterRow(tr);
    });
  }

  // start polls url (config.trace; "" when the server has none) with the
  // credential, from the beginning of what the server keeps.
  start(url, credential) {
    this.stop();
    if (!url) {
      setStatus("This server serves no trace.");
      return;
    }
    this.url = url;
    this.credential = credential;
    this.after = 0;
    this.tbody.replaceChildren();
    setStatus(WATCHING);
    this.poll(++this.generation);
  }

  stop() {
    this.generation++;
    clearTimeout(this.timer);
    this.timer = 0;
  }

  togglePause() {
    this.paused = !this.paused;
    $("trace-pause").setAttribute("aria-pressed", String(this.paused));
    $("trace-pause").textContent = this.paused ? "Resume" : "Pause";
    setStatus(this.paused ? "Paused." : WATCHING);
  }

  async poll(gen) {
    if (gen !== this.generation) return;
    let delay = INTERVAL_MS;
    if (!this.paused) {
      try {
        const url = this.url + (this.url.includes("?") ? "&" : "?") + "after=" + encodeURIComponent(String(this.after));
        const headers = { Accept: "application/json" };
        if (this.credential) headers.Authorization = "Bearer " + this.credential;
        const res = await fetch(url, { headers, cache: "no-store", credentials: "omit", redirect: "error" });
        if (gen !== this.generation) return;
        if (res.status === 401 || res.status === 403 || res.status === 404) {
          setStatus(res.status === 404 ? "This server serves no trace." : "The trace is not open to this credential (HTTP " + res.status + "): the calls still work.");
          return; // stop polling
        }
        if (!res.ok) throw new Error("HTTP " + res.status);
        const data = await res.json();
        if (gen !== this.generation) return;
        this.add(data);
        if (this.onAnswer) this.onAnswer();
        if (!this.paused) setStatus(WATCHING);
      } catch (err) {
        if (gen !== this.generation) return;
        setStatus("The trace could not be read (" + err.message + "); trying again.");
        delay = RETRY_MS;
      }
    }
    this.timer = setTimeout(() => this.poll(gen), delay);
  }

  // add shows the events of one answer, {"events": [...], "next": SEQ}.
  add(data) {
    if (!data || typeof data !== "object") return;
    const events = Array.isArray(data.events) ? data.events : [];
    if (typeof data.next === "number" && data.next < this.after) {
      // The server started again: its numbering did too.
      this.tbody.replaceChildren();
      this.after = 0;
    }
    const fresh = events.filter((e) => e && typeof e.seq === "number" && e.seq > this.after).sort((a, b) => a.seq - b.seq);
    for (const e of fresh) {
      const tr = row(e);
      filterRow(tr);
      this.tbody.insertBefore(tr, this.tbody.firstChild);
      this.after = Math.max(this.after, e.seq);
    }
    if (typeof data.next === "number" && data.next > this.after) this.after = data.next;
    while (this.tbody.rows.length > MAX_ROWS) this.tbody.deleteRow(this.tbody.rows.length - 1);
  }
}

function setStatus(sentence) {
  $("trace-status").textContent = sentence;
}

// filterRow hides a row that does not hold every word of the trace filter.
function filterRow(tr) {
  const words = $("trace-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const text = tr.textContent.toLowerCase();
  tr.hidden = !words.every((w) => text.includes(w));
}

// row renders one event: its text as text, long cells cut with the whole
// text as their tooltip.
function row(e) {
  const s = (v) => (v === undefined || v === null ? "" : String(v));
  const tr = el("tr", {
    "data-seq": s(e.seq),
    "data-method": s(e.method),
    "data-name": s(e.name),
    "data-caller": s(e.caller),
    "data-client": s(e.client),
    "data-outcome": s(e.outcome),
  });
  const time = new Date(s(e.time));
  const timeText = isNaN(time) ? s(e.time) : time.toLocaleTimeString([], { hour12: false }) + "." + String(time.getMilliseconds()).padStart(3, "0");
  const timeCell = el("td", { class: "time" }, [el("time", { datetime: s(e.time), text: timeText })]);
  const outcome = el("td", {}, [el("span", { class: "badge outcome-" + s(e.outcome).replace(/[^a-z-]/g, ""), text: s(e.outcome) })]);
  const d = e.durationMs;
  const ms = typeof d !== "number" ? "" : d < 1 ? d.toFixed(2) : d < 10 ? d.toFixed(1) : Math.round(d).toString();
  const why = [s(e.code), s(e.message)].filter(Boolean).join(": ");
  const cut = (cls, v) => el("td", { class: cls + " cut", text: v, title: v });
  tr.append(
    timeCell,
    el("td", { text: s(e.method) }),
    cut("name", s(e.name)),
    cut("caller", s(e.caller)),
    cut("client", s(e.client)),
    outcome,
    el("td", { class: "num", text: ms }),
    el("td", { class: "why", text: why, title: why }),
  );
  return tr;
}
