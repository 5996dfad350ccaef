// workbench.js: the page. It reads config.json beside it, connects to the
// server's MCP endpoint with the credential typed in (kept in this tab's
// memory only), lists the catalog, builds a form per entry, shows answers
// and polls the trace.
//
// Every string from the server is shown with textContent (see dom.js):
// never innerHTML, never an attribute that runs code. The page has no
// inline script or style, so the Content-Security-Policy the Go handler
// sends (script-src 'self'; style-src 'self') holds.
//
// The files, ES modules loaded by relative URLs (no build step):
//   mcp.js       the MCP 2026-07-28 client over fetch (JSON or SSE answers)
//   form.js      a form from a JSON Schema, and the value it holds
//   refusal.js   a refusal's sentences, by the argument each names
//   result.js    JSON trees, tables of list-shaped values, content blocks
//   template.js  URI templates (RFC 6570) of resource templates
//   trace.js     the trace panel, polled while connected
//   dom.js       building elements without HTML
// The element ids and data- attributes a browser test relies on are the
// workbench contract's (#catalog li[data-kind][data-name], #detail,
// form#call-form .field[data-field], .field-error[data-error-for],
// #call-error, #send, #result[data-view], #result-table, #page-prev,
// #page-next, #page-info, #raw-request, #raw-response, #trace rows).
// Tests of the modules without a DOM: node --test workbench/assets/_test/*.test.mjs
// (Node 22; the leading underscore keeps them out of the embedded files).

import { Client, CallError, paramHeaders } from "./mcp.js";
import { SchemaForm, FormError } from "./form.js";
import { tree, listShape, rowDocs, fillTable, contentBlocks, imageOf, parseJSON, approxBytes } from "./result.js";
import { templateVariables, expandTemplate } from "./template.js";
import { parseRefusal } from "./refusal.js";
import { Trace } from "./trace.js";
import { el, $ } from "./dom.js";

const KINDS = [
  { kind: "tool", title: "Tools", method: "tools/list", key: "tools" },
  { kind: "prompt", title: "Prompts", method: "prompts/list", key: "prompts" },
  { kind: "resource", title: "Resources", method: "resources/list", key: "resources" },
  { kind: "template", title: "Templates", method: "resources/templates/list", key: "resourceTemplates" },
];

// MAX_LIST_PAGES bounds how many pages of one list the catalog reads.
const MAX_LIST_PAGES = 50;

let progressTokens = 0;

const state = {
  config: { title: "", endpoint: "/mcp", trace: "", catalog: "", protocolVersion: "" },
  toolMeta: {}, // catalog.json's tools: groups, scopes and roles by tool name
  client: null,
  connected: false,
  serverInfo: null,
  catalog: { tool: [], prompt: [], resource: [], template: [] },
  selected: null, // {kind, item}
  form: null, // SchemaForm of the selected entry
  jsonMode: false,
  inFlight: null, // AbortController of the call being made
  page: null, // paging of the table shown
  trace: null, // the Trace panel (trace.js)
};

// ---- status ----

function setStatus(stateName, sentence) {
  const s = $("status");
  s.dataset.state = stateName;
  s.textContent = sentence;
}

// ---- start ----

async function init() {
  $("connect-form").addEventListener("submit", (e) => {
    e.preventDefault();
    connect();
  });
  $("disconnect").addEventListener("click", disconnect);
  $("show-about").addEventListener("click", showAbout);
  $("search").addEventListener("input", applyFilter);
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      $("search").value = "";
      applyFilter();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "/" && !isTyping(e.target)) {
      e.preventDefault();
      $("search").focus();
    } else if (e.key === "Escape" && state.inFlight && e.target !== $("search") && e.target !== $("trace-filter")) {
      state.inFlight.abort(); // as the Cancel button does
    }
  });
  $("call-form").addEventListener("submit", (e) => {
    e.preventDefault();
    send();
  });
  $("cancel").addEventListener("click", () => state.inFlight && state.inFlight.abort());
  $("mode-form").addEventListener("click", () => setJSONMode(false));
  $("mode-json").addEventListener("click", () => setJSONMode(true));
  $("page-prev").addEventListener("click", () => turnPage(-1));
  $("page-next").addEventListener("click", () => turnPage(1));
  for (const b of document.querySelectorAll("#result .views button")) {
    b.addEventListener("click", () => showView(b.dataset.show));
  }
  state.trace = new Trace(markReachable);

  try {
    const res = await fetch("config.json", { cache: "no-store", credentials: "omit" });
    if (!res.ok) throw new Error("HTTP " + res.status);
    const c = await res.json();
    if (!c || typeof c !== "object") throw new Error("not an object");
    // The page trusts its own server's config, but not its types.
    for (const k of ["title", "endpoint", "trace", "catalog", "protocolVersion"]) if (typeof c[k] === "string") state.config[k] = c[k];
    if (c.groups && typeof c.groups === "object") state.config.groups = c.groups;
  } catch (err) {
    setStatus("error", "The workbench's config.json could not be read (" + err.message + "); it tries " + state.config.endpoint + ".");
  }
  if (state.config.title) {
    $("server-title").textContent = state.config.title + " · workbench";
    document.title = state.config.title + " · Ferry workbench";
  }
  $("endpoint").textContent = state.config.endpoint;
  if (!state.config.trace) $("trace-status").textContent = "This server serves no trace.";
}

function isTyping(t) {
  return t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
}

// markReachable says connected again after a network failure, once an
// answer has come.
function markReachable() {
  if (state.connected && $("status").dataset.state === "error" && state.lostNetwork) {
    state.lostNetwork = false;
    setStatus("connected", "Connected again: the server answers.");
  }
}

// ---- connecting and the catalog ----

async function connect() {
  state.trace.stop();
  const credential = $("credential").value.trim();
  state.client = new Client(state.config.endpoint, credential);
  state.connected = false;
  setStatus("connecting", "Connecting to " + state.config.endpoint + "…");
  $("connect").disabled = true;
  try {
    const catalog = { tool: [], prompt: [], resource: [], template: [] };
    let info = null;
    // server/discover says what the server offers (and its instructions);
    // a server that does not answer it is asked for every list.
    let caps = null;
    state.discover = null;
    try {
      const { result } = await state.client.request("server/discover", {});
      state.discover = result;
      if (result && result.capabilities && typeof result.capabilities === "object") caps = result.capabilities;
      info = (result && result._meta && result._meta["io.modelcontextprotocol/serverInfo"]) || null;
    } catch (err) {
      if (!(err instanceof CallError) || err.kind !== "rpc") throw err;
    }
    for (const k of KINDS) {
      if (caps && !caps[k.kind === "template" ? "resources" : k.kind + "s"]) continue;
      try {
        const { items, serverInfo } = await listAll(k.method, k.key);
        catalog[k.kind] = items;
        info = info || serverInfo;
      } catch (err) {
        // A server without prompts or resources answers -32601 (method not
        // found): that part of the catalog is empty, not an error.
        if (err instanceof CallError && err.kind === "rpc" && err.rpc && err.rpc.code === -32601) continue;
        throw err;
      }
    }
    state.toolMeta = await loadToolMeta(credential);
    state.catalog = catalog;
    state.serverInfo = info;
    state.noCompletions = false;
    state.connected = true;
    renderCatalog();
    renderAbout();
    const name = info && info.name ? info.name + (info.version ? " " + info.version : "") : state.config.title || "the server";
    setStatus("connected", "Connected to " + name + ": " + plural(catalog.tool.length, "tool") + ", " + plural(catalog.prompt.length, "prompt") + ", " + plural(catalog.resource.length, "resource") + " and " + plural(catalog.template.length, "resource template") + ".");
    $("disconnect").hidden = false;
    // Connected from the credential field, the keyboard goes on to the
    // catalog's search.
    if (document.activeElement === $("credential") || document.activeElement === $("connect")) $("search").focus();
    if (state.selected) {
      const again = state.catalog[state.selected.kind].find((i) => keyOf(state.selected.kind, i) === keyOf(state.selected.kind, state.selected.item));
      if (again) select(state.selected.kind, again, false);
    }
    state.trace.start(state.config.trace, credential);
  } catch (err) {
    setStatus("error", connectFailure(err));
  } finally {
    $("connect").disabled = false;
  }
}

function connectFailure(err) {
  if (!(err instanceof CallError)) return "Connecting failed: " + err.message;
  switch (err.kind) {
    case "unauthorized":
      return "The credential is wrong or missing: the server answered 401 Unauthorized. Check the key and connect again.";
    case "forbidden":
      return err.message;
    case "network":
      return "The server could not be reached at " + state.config.endpoint + ": is it running? (" + err.message + ")";
    case "rpc":
      if (err.rpc && err.rpc.code === -32022) {
        const sup = err.rpc.data && err.rpc.data.supported ? " It supports " + [].concat(err.rpc.data.supported).join(", ") + "." : "";
        return "The server does not speak MCP 2026-07-28, which the workbench needs." + sup;
      }
      return "The server answered the catalog with an error: " + err.rpc.message + " (" + err.rpc.code + ").";
  }
  return "Connecting failed: " + err.message;
}

// renderAbout fills the welcome panel's account of the server: its name,
// versions, capabilities and instructions, as server/discover gave them.
function renderAbout() {
  const d = state.discover;
  const info = state.serverInfo;
  $("server-about").hidden = !d && !info;
  $("show-about").hidden = false;
  $("about-name").textContent = info ? String(info.name || "") + (info.version ? " " + String(info.version) : "") + (info.title ? " (" + String(info.title) + ")" : "") : "(it does not say)";
  $("about-versions").textContent = d && Array.isArray(d.supportedVersions) ? d.supportedVersions.map(String).join(", ") : "(it does not say)";
  const caps = d && d.capabilities && typeof d.capabilities === "object" ? d.capabilities : {};
  const names = Object.keys(caps).filter((k) => k !== "extensions");
  if (caps.extensions && typeof caps.extensions === "object") names.push(...Object.keys(caps.extensions).map((x) => "extension " + x));
  $("about-caps").textContent = names.length ? names.join(", ") : "(none stated)";
  $("about-instructions").textContent = d && typeof d.instructions === "string" && d.instructions ? d.instructions : "(none)";
}

function showAbout() {
  state.selected = null;
  for (const b of $("catalog").querySelectorAll("button.entry[aria-current]")) b.removeAttribute("aria-current");
  $("detail").hidden = true;
  resetResult();
  $("welcome").hidden = false;
  $("main").focus();
}

function disconnect() {
  state.trace.stop();
  state.connected = false;
  state.client = null;
  state.catalog = { tool: [], prompt: [], resource: [], template: [] };
  renderCatalog();
  $("disconnect").hidden = true;
  $("show-about").hidden = true;
  $("server-about").hidden = true;
  showAbout();
  setStatus("idle", "Disconnected. The credential is forgotten when this tab closes.");
}

async function listAll(method, key) {
  const items = [];
  let cursor;
  let serverInfo = null;
  for (let i = 0; i < MAX_LIST_PAGES; i++) {
    const result = (await state.client.request(method, cursor ? { cursor } : {})).result || {};
    serverInfo = serverInfo || (result._meta && result._meta["io.modelcontextprotocol/serverInfo"]) || null;
    if (Array.isArray(result[key])) items.push(...result[key].filter((x) => x && typeof x === "object"));
    if (typeof result.nextCursor !== "string" || result.nextCursor === "" || result.nextCursor === cursor) break;
    cursor = result.nextCursor;
  }
  return { items, serverInfo };
}

function plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

function keyOf(kind, item) {
  if (kind === "resource") return item.uri;
  if (kind === "template") return item.uriTemplate;
  return item.name;
}

function titleOf(item) {
  return item.title || (item.annotations && item.annotations.title) || item.name || item.uri || item.uriTemplate || "";
}

// hintsOf returns a tool's hints as MCP reads them: a hint not given has
// its default (not read-only; destructive and open-world unless
// read-only; not idempotent).
function hintsOf(tool) {
  const a = (tool && tool.annotations) || {};
  const readOnly = a.readOnlyHint === true;
  const out = [];
  if (readOnly) out.push({ label: "read-only", cls: "read-only", stated: true });
  if (!readOnly && a.destructiveHint !== false) out.push({ label: "destructive", cls: "destructive", stated: a.destructiveHint === true });
  if (!readOnly && a.idempotentHint === true) out.push({ label: "idempotent", cls: "idempotent", stated: true });
  if (a.openWorldHint !== false) out.push({ label: "open-world", cls: "open-world", stated: a.openWorldHint === true });
  return out;
}

// metaList finds a list of strings an entry carries under a key whose last
// part is one of words (groups, scopes), in _meta or annotations.
function metaList(item, words) {
  const found = [];
  for (const src of [item._meta, item.annotations, item]) {
    if (!src || typeof src !== "object") continue;
    for (const [k, v] of Object.entries(src)) {
      const last = k.split(/[/.:]/).pop().toLowerCase();
      if (!words.includes(last)) continue;
      for (const x of [].concat(v)) {
        if (typeof x === "string" && !found.includes(x)) found.push(x);
        else if (x && typeof x === "object" && typeof x.name === "string" && !found.includes(x.name)) found.push(x.name);
      }
    }
  }
  return found;
}

// loadToolMeta reads config.catalog (the groups, scopes and roles of the
// tools this credential may call, which tools/list does not carry); a
// server without one, or an answer that cannot be read, gives none.
async function loadToolMeta(credential) {
  if (!state.config.catalog) return {};
  try {
    const headers = { Accept: "application/json" };
    if (credential) headers.Authorization = "Bearer " + credential;
    const res = await fetch(state.config.catalog, { headers, cache: "no-store", credentials: "omit", redirect: "error" });
    if (!res.ok) return {};
    const d = await res.json();
    return d && d.tools && typeof d.tools === "object" && !Array.isArray(d.tools) ? d.tools : {};
  } catch {
    return {};
  }
}

// toolMetaList is the list of strings catalog.json gives a tool under key.
function toolMetaList(kind, item, key) {
  if (kind !== "tool" || typeof item.name !== "string" || !Object.hasOwn(state.toolMeta, item.name)) return [];
  const m = state.toolMeta[item.name];
  if (!m || typeof m !== "object" || !Array.isArray(m[key])) return [];
  return m[key].filter((x) => typeof x === "string");
}

function groupsOf(kind, item) {
  const g = metaList(item, ["groups", "group"]);
  for (const x of toolMetaList(kind, item, "groups")) if (!g.includes(x)) g.push(x);
  const cfg = state.config.groups;
  if (cfg && typeof cfg === "object" && !Array.isArray(cfg)) {
    for (const x of [].concat(cfg[keyOf(kind, item)] || [])) if (typeof x === "string" && !g.includes(x)) g.push(x);
  }
  return g;
}

function scopesOf(kind, item) {
  const s = metaList(item, ["scopes", "requiredscopes", "scope"]);
  for (const x of toolMetaList(kind, item, "scopes")) if (!s.includes(x)) s.push(x);
  for (const x of toolMetaList(kind, item, "roles")) if (!s.includes("role " + x)) s.push("role " + x);
  if (s.length === 0 && typeof item.description === "string") {
    // Ferry's DescribeRequirements appends "Requires the scope(s) a, b."
    const m = /Requires the scopes? (.+?)\.(?:\s|$)/.exec(item.description);
    if (m) for (const x of m[1].split(",")) if (x.trim()) s.push(x.trim());
  }
  return s;
}

function renderCatalog() {
  const root = $("catalog");
  root.replaceChildren();
  for (const k of KINDS) {
    const items = state.catalog[k.kind];
    const section = el("section", { class: "catalog-section", "data-section": k.kind });
    const hid = "catalog-h-" + k.kind;
    section.append(el("h2", { id: hid }, [k.title + " ", el("span", { class: "count", text: String(items.length) })]));
    const ul = el("ul", { "aria-labelledby": hid });
    for (const item of items) {
      const name = keyOf(k.kind, item);
      const li = el("li", { "data-kind": k.kind, "data-name": k.kind === "resource" || k.kind === "template" ? item.name || name : name });
      if (k.kind === "resource") li.dataset.uri = item.uri;
      if (k.kind === "template") li.dataset.uriTemplate = item.uriTemplate;
      const btn = el("button", { type: "button", class: "entry" });
      btn.append(el("span", { class: "entry-title", text: titleOf(item) }));
      btn.append(el("span", { class: "entry-name", text: k.kind === "tool" || k.kind === "prompt" ? item.name : name }));
      if (k.kind === "tool") {
        const badges = el("span", { class: "entry-badges" });
        for (const h of hintsOf(item)) if (h.cls === "read-only" || h.cls === "destructive") badges.append(el("span", { class: "badge " + h.cls, text: h.label }));
        btn.append(badges);
      }
      btn.addEventListener("click", () => select(k.kind, item, true));
      li.append(btn);
      li.searchText = [name, item.name, titleOf(item), item.description, ...groupsOf(k.kind, item)].filter(Boolean).join(" ").toLowerCase();
      ul.append(li);
    }
    if (items.length === 0) section.hidden = true;
    section.append(ul);
    root.append(section);
  }
  applyFilter();
}

function applyFilter() {
  const words = $("search").value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  let total = 0;
  for (const section of $("catalog").querySelectorAll(".catalog-section")) {
    let visible = 0;
    for (const li of section.querySelectorAll("li[data-kind]")) {
      total++;
      const match = words.every((w) => li.searchText.includes(w));
      li.hidden = !match;
      if (match) visible++;
    }
    section.hidden = visible === 0;
    const count = section.querySelector(".count");
    if (count) count.textContent = words.length ? visible + " of " + section.querySelectorAll("li[data-kind]").length : String(visible);
    shown += visible;
  }
  $("catalog-count").textContent = !state.connected ? "" : words.length ? shown + " of " + total + " entries match." : total + " entries.";
}

// ---- the selected entry ----

function select(kind, item, focus) {
  state.selected = { kind, item };
  state.page = null;
  // A call still under way goes on (the server may be changing something);
  // its answer is not shown here, and the new entry can be sent at once.
  state.inFlight = null;
  $("send").disabled = false;
  $("cancel").hidden = true;
  for (const b of $("catalog").querySelectorAll("button.entry[aria-current]")) b.removeAttribute("aria-current");
  const li = [...$("catalog").querySelectorAll("li[data-kind]")].find((x) => x.dataset.kind === kind && (x.dataset.uri || x.dataset.uriTemplate || x.dataset.name) === keyOf(kind, item));
  if (li) li.querySelector("button").setAttribute("aria-current", "true");

  $("welcome").hidden = true;
  const d = $("detail");
  d.hidden = false;
  d.dataset.kind = kind;
  d.dataset.name = kind === "tool" || kind === "prompt" ? item.name : item.name || keyOf(kind, item);
  $("detail-kind").textContent = { tool: "Tool", prompt: "Prompt", resource: "Resource", template: "Resource template" }[kind];
  d.querySelector(".title").textContent = titleOf(item);
  $("detail-name").textContent = keyOf(kind, item) + (kind === "resource" && item.mimeType ? " · " + item.mimeType : "") + (kind === "template" && item.mimeType ? " · " + item.mimeType : "");
  d.querySelector(".description").textContent = item.description || "";

  const hints = d.querySelector(".hints");
  hints.replaceChildren();
  if (kind === "tool") {
    for (const h of hintsOf(item)) {
      const b = el("span", { class: "badge " + h.cls, text: h.label });
      if (!h.stated) b.title = "Not stated by the server: MCP assumes it.";
      hints.append(b);
    }
  }
  $("definition").querySelector("pre").textContent = JSON.stringify(item, null, 2);
  fillList(d.querySelector(".groups"), "Groups", groupsOf(kind, item));
  fillList(d.querySelector(".scopes"), "Requires", scopesOf(kind, item));

  // The form: a tool's input schema, a prompt's arguments, a template's
  // variables; a resource has none.
  let schema;
  let verb;
  if (kind === "tool") {
    schema = item.inputSchema;
    verb = "Call " + item.name;
  } else if (kind === "prompt") {
    schema = promptSchema(item);
    verb = "Get prompt";
  } else if (kind === "template") {
    schema = templateSchema(item);
    verb = "Read";
  } else {
    schema = { type: "object", properties: {} };
    verb = "Read " + item.uri;
  }
  $("form-title").textContent = kind === "template" ? "URI variables" : "Arguments";
  $("send").textContent = verb;
  state.form = new SchemaForm(schema, $("fields"));
  state.jsonMode = false; // a new entry starts in the form, whatever the last one used
  setJSONMode(false);
  $("mode-json").parentElement.hidden = kind === "resource";
  if (kind === "prompt" || kind === "template") attachCompletions(kind, item);
  clearCallErrors();
  $("call-status").textContent = "";
  resetResult();
  if (kind === "tool" && formCannotExpress(schema)) {
    // Arguments the form cannot hold (oneOf, $ref, a map...) are written
    // as JSON; the form still shows the properties it knows.
    setJSONMode(true);
    $("call-status").textContent = "The form cannot express this tool's input schema: write the arguments as JSON (the Definition shows the schema).";
  }
  if (focus) d.querySelector(".title").focus();
}

// attachCompletions offers the server's completions (completion/complete)
// for a prompt's arguments and a template's variables as the user types,
// in a datalist: suggestions, never a limit on what may be sent.
function attachCompletions(kind, item) {
  if (state.noCompletions) return;
  const ref = kind === "prompt" ? { type: "ref/prompt", name: item.name } : { type: "ref/resource", uri: item.uriTemplate };
  for (const input of $("fields").querySelectorAll('input[data-type="string"]')) {
    const list = el("datalist", { id: input.id + "-options" });
    input.after(list);
    input.setAttribute("list", list.id);
    let timer = 0;
    let asked = 0;
    const ask = async () => {
      const mine = ++asked;
      const others = {};
      for (const o of $("fields").querySelectorAll('input[data-type="string"]')) if (o !== input && o.value) others[o.name] = o.value;
      try {
        const { result } = await state.client.request("completion/complete", {
          ref,
          argument: { name: input.name, value: input.value },
          context: { arguments: others },
        });
        if (mine !== asked) return;
        const values = result && result.completion && Array.isArray(result.completion.values) ? result.completion.values : [];
        list.replaceChildren(...values.slice(0, 100).map((v) => el("option", { value: String(v) })));
      } catch (err) {
        // A server without completions says -32601 once; ask no more.
        if (err instanceof CallError && err.rpc && err.rpc.code === -32601) state.noCompletions = true;
      }
    };
    const schedule = () => {
      if (!state.client || state.noCompletions) return;
      clearTimeout(timer);
      timer = setTimeout(ask, 250);
    };
    input.addEventListener("input", schedule);
    input.addEventListener("focus", schedule);
  }
}

// formCannotExpress reports whether an input schema says more at its root
// than properties: alternatives, references, extra properties with a
// schema of their own.
function formCannotExpress(s) {
  if (!s || typeof s !== "object") return false;
  if (s.oneOf || s.anyOf || s.allOf || s.$ref || s.not || s.if || s.patternProperties) return true;
  return !!(s.additionalProperties && typeof s.additionalProperties === "object" && (!s.properties || Object.keys(s.properties).length === 0));
}

function fillList(box, label, values) {
  box.replaceChildren();
  if (values.length === 0) return;
  box.append(el("span", { class: "meta-label", text: label + ":" }));
  for (const v of values) box.append(el("span", { class: "badge tag", text: v }));
}

function promptSchema(p) {
  const props = {};
  const required = [];
  for (const a of Array.isArray(p.arguments) ? p.arguments : []) {
    if (!a || typeof a.name !== "string") continue;
    props[a.name] = { type: "string", title: a.title || a.name, description: a.description || "" };
    if (a.required) required.push(a.name);
  }
  return { type: "object", properties: props, required };
}

function templateSchema(t) {
  const props = {};
  const required = [];
  for (const v of templateVariables(t.uriTemplate || "")) {
    props[v.name] = { type: "string", description: v.optional ? "Optional part of " + t.uriTemplate + "." : "Fills {" + v.name + "} of " + t.uriTemplate + "." };
    if (!v.optional) required.push(v.name);
  }
  return { type: "object", properties: props, required };
}

function setJSONMode(on) {
  const ed = $("raw-args");
  if (on && !state.jsonMode) {
    let v = {};
    try {
      v = state.form ? state.form.value() : {};
    } catch {
      v = {};
    }
    ed.value = JSON.stringify(v, null, 2);
  } else if (!on && state.jsonMode && state.form) {
    try {
      const v = ed.value.trim() === "" ? {} : JSON.parse(ed.value);
      if (v && typeof v === "object" && !Array.isArray(v)) state.form.render(v);
    } catch (err) {
      showCallError("The JSON does not parse, so the form keeps its own values: " + err.message);
    }
  }
  state.jsonMode = on;
  $("fields").hidden = on;
  $("json-editor").hidden = !on;
  $("mode-form").setAttribute("aria-pressed", String(!on));
  $("mode-json").setAttribute("aria-pressed", String(on));
  if (on) ed.focus();
}

// ---- calling ----

function currentArgs() {
  if (state.jsonMode) {
    const text = $("raw-args").value.trim();
    if (text === "") return {};
    let v;
    try {
      v = JSON.parse(text);
    } catch (err) {
      throw new FormError("", "The arguments are not valid JSON: " + err.message);
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) throw new FormError("", "The arguments must be a JSON object.");
    return v;
  }
  return state.form.value();
}

async function send() {
  if (!state.selected) return;
  clearCallErrors();
  if (!state.client) {
    showCallError("Connect first: the workbench has no connection to the server.");
    return;
  }
  let args;
  try {
    args = currentArgs();
  } catch (err) {
    if (err instanceof FormError) {
      if (!err.path || !state.form.showError(err.path, err.sentence)) showCallError(err.message);
      return;
    }
    throw err;
  }
  state.page = null;
  await perform(state.selected.kind, state.selected.item, args, null);
}

// perform makes the request an entry's form asks for; more holds
// inputResponses and requestState when it answers an input_required
// result.
async function perform(kind, item, args, more) {
  let method;
  let params;
  const extraHeaders = {};
  switch (kind) {
    case "tool":
      method = "tools/call";
      params = { name: item.name, arguments: args };
      Object.assign(extraHeaders, paramHeaders(item, args));
      break;
    case "prompt":
      method = "prompts/get";
      params = { name: item.name, arguments: args };
      break;
    case "resource":
      method = "resources/read";
      params = { uri: item.uri };
      break;
    case "template": {
      method = "resources/read";
      params = { uri: expandTemplate(item.uriTemplate || "", args) };
      break;
    }
  }
  if (more) Object.assign(params, more);
  // A progress token asks the server to say how far a long call is; its
  // notifications come on the call's SSE stream.
  if (kind === "tool") params._meta = { progressToken: "workbench-" + ++progressTokens };
  if (state.inFlight) state.inFlight.abort();
  const ctl = new AbortController();
  state.inFlight = ctl;
  $("send").disabled = true;
  $("cancel").hidden = false;
  $("call-status").textContent = "Waiting for the server…";
  const started = performance.now();
  const sel = state.selected;
  try {
    const res = await state.client.request(method, params, {
      signal: ctl.signal,
      extraHeaders,
      onMessage: (m) => {
        if (state.inFlight === ctl && m && m.method === "notifications/progress" && m.params) {
          const p = m.params;
          $("call-status").textContent = "Working… " + (p.message ? String(p.message) + " " : "") + (p.total ? Math.round((100 * p.progress) / p.total) + "%" : p.progress !== undefined ? String(p.progress) : "");
        }
      },
    });
    markReachable();
    if (state.selected !== sel || state.inFlight !== ctl) return; // the user moved on
    const ms = performance.now() - started;
    $("call-status").textContent = "";
    showAnswer(kind, item, args, res, ms);
  } catch (err) {
    if (state.selected !== sel || state.inFlight !== ctl) return;
    $("call-status").textContent = "";
    showFailure(err, params);
  } finally {
    if (state.inFlight === ctl) {
      state.inFlight = null;
      $("send").disabled = false;
      $("cancel").hidden = true;
    }
  }
}

function clearCallErrors() {
  if (state.form) state.form.clearErrors();
  const ce = $("call-error");
  ce.textContent = "";
  ce.hidden = true;
}

function showCallError(sentence) {
  const ce = $("call-error");
  ce.textContent = ce.textContent ? ce.textContent + "\n" + sentence : sentence;
  ce.hidden = false;
}

// ---- the result ----

function resetResult() {
  const r = $("result");
  r.hidden = true;
  r.dataset.view = "none";
  r.querySelector(".result-text").textContent = "";
  $("result-tree").replaceChildren();
  $("result-table").replaceChildren();
  $("result-images").replaceChildren();
  $("result-messages").replaceChildren();
  $("result-input").replaceChildren();
  $("result-input").hidden = true;
  $("result-messages").hidden = true;
  $("result-badge").textContent = "";
  $("result-badge").className = "badge";
  $("result-time").textContent = "";
  for (const id of ["raw-request", "raw-response"]) $(id).querySelector("pre").textContent = "";
  $("raw-headers").textContent = "";
  for (const b of r.querySelectorAll(".views button")) b.hidden = true;
}

function setBadge(text, cls) {
  const b = $("result-badge");
  b.textContent = text;
  b.className = "badge " + cls;
}

function showRaw(request, response, headers) {
  $("raw-headers").textContent = headers ? "POST " + state.config.endpoint + "\n" + Object.entries(headers).map(([k, v]) => k + ": " + v).join("\n") : "";
  $("raw-request").querySelector("pre").textContent = request ? JSON.stringify(request, null, 2) : "";
  $("raw-response").querySelector("pre").textContent = response ? JSON.stringify(response, null, 2) : "(no JSON-RPC response)";
}

// available marks the views an answer can be shown as.
function available(views) {
  for (const b of $("result").querySelectorAll(".views button")) b.hidden = !views.includes(b.dataset.show);
  $("result").querySelector(".views").hidden = views.length < 2;
}

function showView(view) {
  const r = $("result");
  r.dataset.view = view;
  for (const b of r.querySelectorAll(".views button")) b.setAttribute("aria-pressed", String(b.dataset.show === view));
}

function showAnswer(kind, item, args, res, ms) {
  resetResult();
  const r = $("result");
  r.hidden = false;
  showRaw(res.request, res.response, res.headers);
  $("result-time").textContent = Math.round(ms) + " ms";
  const result = res.result && typeof res.result === "object" ? res.result : {};
  if (result.resultType === "input_required") {
    showInputRequired(kind, item, args, result);
  } else if (kind === "tool") {
    // A refusal scrolls to the fields it names (see mapRefusal).
    showToolResult(item, args, result);
    if (result.isError) return;
  } else if (kind === "prompt") {
    showPromptResult(result);
  } else {
    showReadResult(result);
  }
  r.scrollIntoView({ block: "start" });
}

function showToolResult(tool, args, result) {
  const { text, images } = contentBlocks(result.content);
  let structured = result.structuredContent;
  if (structured === undefined) structured = parseJSON(text);
  $("result").querySelector(".result-text").textContent = text || (structured !== undefined ? JSON.stringify(structured, null, 2) : "(no content)");
  $("result-images").replaceChildren(...images);
  if (result.isError) {
    setBadge("refused", "refused");
    mapRefusal(text, result.structuredContent);
    available([]);
    showView("error");
    $("result-live").textContent = "The tool refused: " + firstLine(text);
    return;
  }
  setBadge("ok", "ok");
  const views = [];
  const list = structured !== undefined ? listShape(structured) : null;
  if (list) {
    views.push("table");
    fillTable($("result-table"), list.rows, rowDocs(tool.outputSchema, list.key));
    setPaging(tool, args, list);
  }
  if (structured !== undefined && structured !== null && typeof structured === "object") {
    views.push("tree");
    $("result-tree").replaceChildren(tree(structured));
  }
  if (images.length) views.push("image");
  views.push("text");
  available(views);
  showView(list ? "table" : structured !== undefined && typeof structured === "object" && structured !== null ? "tree" : images.length ? "image" : "text");
  $("result-live").textContent = list ? "The result: " + plural(list.rows.length, "row") + "." : "The result came.";
}

function firstLine(s) {
  return String(s || "").split("\n")[0];
}

// hasField reports whether the form shows a field at a PATH.
function hasField(path) {
  return !!(path && state.form && !state.jsonMode && state.form.root.querySelector('.field-error[data-error-for="' + CSS.escape(path) + '"]'));
}

// mapRefusal puts the server's sentences beside the fields they name (see
// refusal.js); what names no field shown goes to #call-error.
function mapRefusal(text, sc) {
  const { fields, rest } = parseRefusal(text, sc, hasField);
  let placed = 0;
  for (const f of fields) {
    // showError falls back to the nearest enclosing field (lines.0.sku
    // to lines.0, then lines).
    if (state.form && !state.jsonMode && state.form.showError(f.path, f.sentence)) placed++;
    else rest.push(f.sentence.startsWith(f.raw + ":") ? f.sentence : f.raw + ": " + f.sentence);
  }
  for (const r of rest) showCallError(r);
  $("call-status").textContent = placed ? "The server refused " + plural(placed, "argument") + ": see the fields." : "";
  const first = $("fields").querySelector(".field-error:not([hidden])") || (rest.length ? $("call-error") : null);
  if (first) first.scrollIntoView({ block: "center" });
}

// setPaging sets up the pager of a table: a tool whose input has skip and
// top (or offset and limit) pages by calling again with them.
function setPaging(tool, args, list) {
  const props = (tool.inputSchema && tool.inputSchema.properties) || {};
  const skipName = "skip" in props ? "skip" : "offset" in props ? "offset" : "";
  const topName = "top" in props ? "top" : "limit" in props ? "limit" : "";
  const p = list.paging;
  const n = list.rows.length;
  const skip = numberOr(args[skipName], numberOr(p.skip, 0));
  const top = numberOr(args[topName], numberOr(p.top, n));
  let hasMore = p.hasMore;
  if (hasMore === undefined && typeof p.totalCount === "number") hasMore = skip + n < p.totalCount;
  state.page = { tool, args, skipName, topName, skip, top, n, hasMore: hasMore === true };
  $("page-info").textContent = n === 0 ? "no rows" : "rows " + (skip + 1) + "–" + (skip + n);
  $("page-total").textContent = typeof p.totalCount === "number" ? "of " + p.totalCount : hasMore === true ? "(more follow)" : "";
  $("page-prev").disabled = !skipName || skip <= 0;
  $("page-next").disabled = !skipName || hasMore !== true;
  $("result").querySelector(".pager").hidden = !skipName && hasMore !== true;
}

function numberOr(v, d) {
  return typeof v === "number" && Number.isFinite(v) ? v : d;
}

async function turnPage(dir) {
  const pg = state.page;
  if (!pg || !pg.skipName || !state.selected) return;
  const step = dir > 0 ? pg.n || pg.top : pg.top || pg.n;
  const skip = Math.max(0, pg.skip + dir * step);
  const args = { ...pg.args, [pg.skipName]: skip };
  if (pg.topName && args[pg.topName] === undefined && pg.top) args[pg.topName] = pg.top;
  if (state.form && !state.jsonMode) state.form.setValue(pg.skipName, skip);
  if (state.jsonMode) $("raw-args").value = JSON.stringify(args, null, 2);
  clearCallErrors();
  await perform("tool", pg.tool, args, null);
}

function showPromptResult(result) {
  setBadge("ok", "ok");
  const box = $("result-messages");
  box.replaceChildren();
  if (result.description) box.append(el("p", { class: "muted", text: String(result.description) }));
  const texts = [];
  for (const m of Array.isArray(result.messages) ? result.messages : []) {
    const { text, images } = contentBlocks([].concat(m && m.content ? m.content : []));
    const msg = el("article", { class: "message role-" + String(m && m.role).replace(/[^a-z]/g, "") });
    msg.append(el("h4", { class: "role", text: String(m && m.role) }));
    msg.append(el("pre", { class: "message-text", text }));
    for (const img of images) msg.append(img);
    box.append(msg);
    texts.push(String(m && m.role) + ":\n" + text);
  }
  if (!box.querySelector("article")) box.append(el("p", { class: "muted", text: "The prompt has no messages." }));
  $("result").querySelector(".result-text").textContent = texts.join("\n\n");
  box.hidden = false;
  available(["messages", "text"]);
  showView("messages");
  $("result-live").textContent = "The prompt came: " + plural(texts.length, "message") + ".";
}

function showReadResult(result) {
  setBadge("ok", "ok");
  const texts = [];
  const images = [];
  let structured;
  for (const c of Array.isArray(result.contents) ? result.contents : []) {
    if (!c || typeof c !== "object") continue;
    if (typeof c.text === "string") {
      texts.push(c.text);
      if (structured === undefined && /json/i.test(c.mimeType || "")) structured = parseJSON(c.text);
    } else if (typeof c.blob === "string") {
      const img = imageOf(c.mimeType, c.blob, String(c.uri));
      if (img) images.push(img);
      else texts.push("[" + String(c.uri) + ": " + String(c.mimeType || "binary") + ", " + approxBytes(c.blob) + "]");
    }
  }
  $("result").querySelector(".result-text").textContent = texts.join("\n\n") || "(no text)";
  $("result-images").replaceChildren(...images);
  const views = [];
  const list = structured !== undefined ? listShape(structured) : null;
  if (list) {
    views.push("table");
    fillTable($("result-table"), list.rows);
    $("page-info").textContent = list.rows.length ? "rows 1–" + list.rows.length : "no rows";
    $("page-total").textContent = "";
    $("page-prev").disabled = true;
    $("page-next").disabled = true;
    $("result").querySelector(".pager").hidden = true;
  }
  if (structured && typeof structured === "object") {
    views.push("tree");
    $("result-tree").replaceChildren(tree(structured));
  }
  if (images.length) views.push("image");
  views.push("text");
  available(views);
  showView(list ? "table" : structured && typeof structured === "object" ? "tree" : images.length ? "image" : "text");
  $("result-live").textContent = "The resource came.";
}

function showFailure(err, params) {
  // params: what was sent, when the error came before a request was made.
  resetResult();
  const r = $("result");
  r.hidden = false;
  showRaw(err.request || { params }, err.response, err.headers);
  if (!(err instanceof CallError)) {
    showCallError("The workbench failed: " + err.message);
    r.querySelector(".result-text").textContent = String(err.stack || err.message);
    setBadge("error", "error");
    available([]);
    showView("error");
    return;
  }
  let sentence = err.message;
  switch (err.kind) {
    case "unauthorized":
      sentence = "The credential is wrong or missing: the server answered 401 Unauthorized.";
      setStatus("error", sentence + " Check the key and connect again.");
      state.trace.stop();
      break;
    case "forbidden":
      break;
    case "network":
      state.lostNetwork = true;
      setStatus("error", err.message + " The workbench tries again with the next call.");
      break;
    case "aborted":
      sentence = "Cancelled: the workbench closed the request.";
      break;
    case "rpc":
      sentence = "The server answered with an error: " + err.rpc.message + " (JSON-RPC " + err.rpc.code + ").";
      break;
  }
  showCallError(sentence);
  r.querySelector(".result-text").textContent = sentence + (err.rpc && err.rpc.data !== undefined ? "\n\n" + JSON.stringify(err.rpc.data, null, 2) : "");
  setBadge(err.kind === "aborted" ? "cancelled" : err.status ? "HTTP " + err.status : "error", "error");
  available([]);
  showView("error");
  $("result-live").textContent = sentence;
}

// showInputRequired shows what the server asks before it can answer, and
// answers simple form elicitations: the call is sent again with
// inputResponses and requestState.
function showInputRequired(kind, item, args, result) {
  setBadge("input required", "input");
  const box = $("result-input");
  box.replaceChildren();
  box.hidden = false;
  box.append(el("h4", { text: "The server asks for input before it answers" }));
  const reqs = result.inputRequests && typeof result.inputRequests === "object" ? Object.entries(result.inputRequests) : [];
  const forms = [];
  let answerable = reqs.length > 0;
  const form = el("form", { class: "input-form", novalidate: true });
  for (const [key, req] of reqs) {
    const part = el("fieldset", { class: "input-request", "data-key": key });
    const method = req && typeof req.method === "string" ? req.method : "(unknown)";
    const params = (req && req.params) || {};
    part.append(el("legend", { text: method === "elicitation/create" ? "Question " + key : method + " (" + key + ")" }));
    if (typeof params.message === "string") part.append(el("p", { class: "question", text: params.message }));
    const schema = params.requestedSchema;
    if (method === "elicitation/create" && params.mode !== "url" && schema && typeof schema === "object") {
      // A question with nothing to fill in (a confirmation) is answered by
      // accepting or declining it.
      if (schema.properties && typeof schema.properties === "object" && Object.keys(schema.properties).length) {
        const fields = el("div", { class: "input-fields" });
        part.append(fields);
        forms.push({ key, form: new SchemaForm(schema, fields) });
      } else {
        forms.push({ key, form: null });
      }
    } else {
      answerable = false;
      part.append(el("p", { class: "call-error", text: "The workbench cannot answer " + method + " yet: use a client that can (the ferry CLI, the MCP Inspector)." }));
      const det = el("details", {}, [el("summary", { text: "What it asks" }), el("pre", { class: "code", text: JSON.stringify(params, null, 2) })]);
      part.append(det);
    }
    form.append(part);
  }
  const actions = el("div", { class: "actions" });
  const answer = el("button", { type: "submit", class: "primary", text: forms.some((f) => f.form) ? "Answer and send again" : "Accept and send again" });
  const decline = el("button", { type: "button", text: "Decline" });
  const cancel = el("button", { type: "button", text: "Cancel" });
  if (answerable) actions.append(answer, decline, cancel);
  form.append(actions);
  box.append(form);
  const retry = (action) => {
    const responses = {};
    for (const f of forms) {
      if (action === "accept") {
        try {
          responses[f.key] = { action, content: f.form ? f.form.value() : {} };
        } catch (err) {
          if (err instanceof FormError && f.form && f.form.showError(err.path, err.sentence)) return;
          throw err;
        }
      } else {
        responses[f.key] = { action };
      }
    }
    const more = { inputResponses: responses };
    if (result.requestState !== undefined) more.requestState = result.requestState;
    perform(kind, item, args, more);
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    retry("accept");
  });
  decline.addEventListener("click", () => retry("decline"));
  cancel.addEventListener("click", () => retry("cancel"));
  $("result").querySelector(".result-text").textContent = JSON.stringify(result.inputRequests || {}, null, 2);
  available([]);
  showView("input");
  $("result-live").textContent = "The server asks for input before it answers.";
  const first = form.querySelector("input, select, textarea, button");
  if (first) first.focus();
}

init();
