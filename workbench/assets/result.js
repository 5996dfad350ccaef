// result.js: what an answer is shown as. A JSON tree of details/summary
// nodes, a table of a list-shaped value, content blocks as text and
// images. Text is set with textContent only.

import { el } from "./dom.js";

// MAX_TREE_NODES bounds the tree: a huge answer renders its first part
// and says how much it left out, instead of freezing the tab.
const MAX_TREE_NODES = 5000;

// tree renders a JSON value as nested details/summary elements.
export function tree(value) {
  const budget = { left: MAX_TREE_NODES };
  const root = el("div", { class: "json-tree" });
  root.append(node(null, value, 0, budget));
  if (budget.left < 0) root.append(el("p", { class: "muted", text: "The tree is cut: the value is larger than the workbench shows; the raw response holds all of it." }));
  return root;
}

function node(key, value, depth, budget) {
  budget.left--;
  const keyEl = key === null ? null : el("span", { class: "json-key", text: key });
  if (value !== null && typeof value === "object") {
    const isArr = Array.isArray(value);
    const entries = isArr ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    const d = el("details", { class: "json-node" });
    if (depth < 2) d.open = true;
    const summary = el("summary", {}, [keyEl, keyEl ? ": " : null, el("span", { class: "json-kind", text: isArr ? "[" + entries.length + " items]" : "{" + entries.length + " fields}" })]);
    d.append(summary);
    const list = el("div", { class: "json-children" });
    // Children are built when first opened, so a closed subtree costs nothing.
    const fill = () => {
      if (list.dataset.filled) return;
      list.dataset.filled = "1";
      for (const [k, v] of entries) {
        if (budget.left < 0) {
          list.append(el("div", { class: "muted", text: "…" }));
          break;
        }
        list.append(node(k, v, depth + 1, budget));
      }
    };
    if (d.open) fill();
    d.addEventListener("toggle", fill);
    d.append(list);
    return d;
  }
  const type = value === null ? "null" : typeof value;
  const v = el("span", { class: "json-value json-" + type, text: type === "string" ? JSON.stringify(value) : String(value) });
  return el("div", { class: "json-leaf" }, [keyEl, keyEl ? ": " : null, v]);
}

// ROW_KEYS are the members a list-shaped object keeps its rows in.
const ROW_KEYS = ["data", "items", "rows", "results", "records", "values", "entries"];
// PAGING_KEYS are the members that say where a page is.
const PAGING_KEYS = ["paging", "skip", "top", "totalCount", "hasMore", "nextCursor", "count", "total"];

// listShape finds the rows of a list-shaped value: an array of objects,
// itself or in one of ROW_KEYS (or its only array member), with the
// paging the value states: {rows, paging: {skip, top, hasMore,
// totalCount, nextCursor}} or null.
export function listShape(value) {
  return listShapeOf(value);
}

// rowDocs returns the descriptions of a list's columns from an output
// schema: the properties of the items of the rows' member (or of the
// schema itself when the value is the array).
export function rowDocs(schema, key) {
  if (!schema || typeof schema !== "object") return {};
  const arr = key ? schema.properties && schema.properties[key] : schema;
  const props = arr && arr.items && arr.items.properties;
  const out = {};
  if (props && typeof props === "object") {
    for (const [k, v] of Object.entries(props)) if (v && typeof v.description === "string") out[k] = v.description;
  }
  return out;
}

function listShapeOf(value) {
  if (isRows(value)) return { rows: value, paging: {} };
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  // A member named as rows holds them when little else is there beside
  // paging: a record with an "items" list among ten fields is a record.
  let key = ROW_KEYS.find((k) => isRows(value[k]) && Object.keys(value).filter((o) => o !== k && !PAGING_KEYS.includes(o)).length <= 2);
  if (!key) {
    // Another member is the rows only when nothing else but paging is
    // there: {"orders": [...], "hasMore": true}, not a record with lines.
    const others = Object.keys(value).filter((k) => !PAGING_KEYS.includes(k));
    if (others.length !== 1 || !isRows(value[others[0]])) return null;
    key = others[0];
  }
  const src = value.paging && typeof value.paging === "object" ? value.paging : value;
  const paging = {};
  for (const k of ["skip", "top", "totalCount", "hasMore", "nextCursor"]) {
    if (src[k] !== undefined) paging[k] = src[k];
    else if (value[k] !== undefined) paging[k] = value[k];
  }
  return { rows: value[key], paging, key };
}

function isRows(v) {
  return Array.isArray(v) && v.every((r) => r !== null && typeof r === "object" && !Array.isArray(r));
}

// fillTable fills table#result-table with rows: a column per key, in the
// order first seen; objects in cells are shown as JSON. docs holds the
// columns' descriptions (from the output schema), shown as the headers'
// tooltips.
export function fillTable(table, rows, docs = {}) {
  const cols = [];
  const seen = new Set();
  for (const r of rows) {
    for (const k of Object.keys(r)) {
      if (!seen.has(k)) {
        seen.add(k);
        cols.push(k);
      }
    }
  }
  const thead = el("thead");
  const hr = el("tr");
  for (const c of cols) hr.append(el("th", { scope: "col", text: c, title: typeof docs[c] === "string" ? docs[c] : undefined }));
  thead.append(hr);
  const tbody = el("tbody");
  for (const r of rows) {
    const tr = el("tr");
    for (const c of cols) {
      const v = r[c];
      const td = el("td", { text: v === undefined ? "" : v === null ? "null" : typeof v === "object" ? JSON.stringify(v) : String(v) });
      if (typeof v === "number") td.className = "num";
      else if (typeof v === "string" && v.length <= 24) td.className = "short";
      if (v === null || v === undefined) td.classList.add("null");
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.replaceChildren(thead, tbody);
  if (rows.length === 0) {
    tbody.append(el("tr", {}, [el("td", { class: "muted", colspan: String(Math.max(cols.length, 1)), text: "No rows." })]));
  }
}

// IMAGE_TYPES are the MIME types shown as images: raster formats only, so
// no SVG (a document, not a picture) reaches an img element.
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|avif|bmp)$/i;

// imageOf returns an img for base64 image data of an allowed type, or null.
export function imageOf(mime, data, alt) {
  if (typeof mime !== "string" || !IMAGE_TYPES.test(mime) || typeof data !== "string" || !/^[A-Za-z0-9+/=\s]*$/.test(data)) return null;
  const img = el("img", { alt: alt || "image from the server (" + mime + ")", class: "result-image" });
  img.src = "data:" + mime.toLowerCase() + ";base64," + data.replace(/\s+/g, "");
  return img;
}

// contentText turns content blocks into text, one block after another,
// and returns the images among them.
export function contentBlocks(blocks) {
  const texts = [];
  const images = [];
  for (const b of Array.isArray(blocks) ? blocks : []) {
    if (!b || typeof b !== "object") continue;
    switch (b.type) {
      case "text":
        texts.push(String(b.text ?? ""));
        break;
      case "image": {
        const img = imageOf(b.mimeType, b.data);
        if (img) images.push(img);
        else texts.push("[an image of type " + String(b.mimeType) + " the workbench does not show]");
        break;
      }
      case "audio":
        texts.push("[audio, " + String(b.mimeType) + ", " + approxBytes(b.data) + "]");
        break;
      case "resource_link":
        texts.push("[resource link: " + String(b.uri) + (b.name ? " (" + String(b.name) + ")" : "") + "]");
        break;
      case "resource": {
        const r = b.resource || {};
        if (typeof r.text === "string") texts.push("[resource " + String(r.uri) + "]\n" + r.text);
        else texts.push("[resource " + String(r.uri) + ", " + String(r.mimeType || "binary") + ", " + approxBytes(r.blob) + "]");
        break;
      }
      default:
        texts.push("[a " + String(b.type) + " block]\n" + JSON.stringify(b, null, 2));
    }
  }
  return { text: texts.join("\n\n"), images };
}

export function approxBytes(b64) {
  if (typeof b64 !== "string") return "no data";
  const n = Math.floor((b64.replace(/\s+/g, "").length * 3) / 4);
  return n < 1024 ? n + " bytes" : (n / 1024).toFixed(1) + " KiB";
}

// parseJSON returns the value of a text that is JSON (an object or an
// array), else undefined.
export function parseJSON(text) {
  if (typeof text !== "string") return undefined;
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}
