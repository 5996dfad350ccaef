// form.js: a form built from a JSON Schema (a tool's input schema, a
// prompt's arguments, an elicitation's requested schema), and the value it
// holds. Every field is a .field[data-field=PATH] with a label, a control
// named PATH, help text from the description and an empty
// .field-error[data-error-for=PATH] where the server's sentence goes.
// PATH joins property names and array indexes with dots: address.city,
// tags.0, lines.1.sku.
//
// All text from the schema is set with textContent: a schema is the
// server's text, and the page never parses it as HTML.

import { el } from "./dom.js";

let uid = 0;
const nextID = (path) => "f" + ++uid + "-" + path.replace(/[^A-Za-z0-9_-]/g, "_");

// typeOf returns the one type a schema has for the form: its type, or the
// first non-null one of a list of types; "" when the form cannot say.
export function typeOf(s) {
  if (!s || typeof s !== "object") return "";
  let t = s.type;
  if (Array.isArray(t)) {
    const others = t.filter((x) => x !== "null");
    t = others.length === 1 ? others[0] : "";
  }
  if (!t) {
    if (Array.isArray(s.enum)) return "enum";
    if (s.properties) return "object";
    if (s.items) return "array";
    return "";
  }
  if (t === "string" && Array.isArray(s.enum)) return "enum";
  return t;
}

// expressible reports whether the form can express a schema; the rest is
// a JSON field of its own (and the raw-JSON editor covers the whole).
function expressible(s) {
  if (!s || typeof s !== "object") return false;
  if (s.oneOf || s.anyOf || s.allOf || s.$ref || s.not || s.if) return false;
  const t = typeOf(s);
  if (t === "enum") return s.enum.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v));
  if (t === "object") {
    return !!s.properties && typeof s.properties === "object" && (s.additionalProperties === undefined || s.additionalProperties === false);
  }
  if (t === "array") return !!s.items && typeof s.items === "object" && !Array.isArray(s.items);
  return ["string", "integer", "number", "boolean"].includes(t);
}

// SchemaForm renders the fields of an object schema into a container and
// reads them back.
export class SchemaForm {
  // schema: an object schema; root: the element to fill; value: the
  // initial value (else the schema's defaults).
  constructor(schema, root, value) {
    this.schema = schema && typeof schema === "object" ? schema : { type: "object", properties: {} };
    this.root = root;
    this.render(value);
  }

  render(value) {
    this.root.replaceChildren();
    const props = this.schema.properties || {};
    const required = new Set(Array.isArray(this.schema.required) ? this.schema.required : []);
    const names = Object.keys(props);
    if (names.length === 0) {
      this.root.append(el("p", { class: "muted", text: "This takes no arguments." }));
      return;
    }
    for (const name of names) {
      const v = value && typeof value === "object" && name in value ? value[name] : undefined;
      this.root.append(this.field(name, props[name], required.has(name), v, value !== undefined));
    }
  }

  // field renders one property: path is its PATH, s its schema.
  field(path, s, required, value, hasValue) {
    s = s && typeof s === "object" ? s : {};
    const useDefault = !hasValue && value === undefined;
    const initial = useDefault ? s.default : value;
    const t = expressible(s) ? typeOf(s) : "json";
    const wrap = el("div", { class: "field field-" + t, "data-field": path });
    if (required) wrap.dataset.required = "true";
    const id = nextID(path);
    const labelText = s.title || path.split(".").pop();
    if (t === "object" || t === "array") {
      const fs = el("fieldset", { class: "group" });
      const legend = el("legend", {}, [el("span", { class: "label-text", text: labelText })]);
      if (required) legend.append(requiredMark());
      fs.append(legend);
      this.help(fs, s, id);
      if (t === "object") {
        const req = new Set(Array.isArray(s.required) ? s.required : []);
        for (const [name, ps] of Object.entries(s.properties)) {
          const v = initial && typeof initial === "object" ? initial[name] : undefined;
          fs.append(this.field(path + "." + name, ps, req.has(name), v, initial !== undefined));
        }
      } else {
        this.arrayField(fs, path, s, initial, required);
      }
      fs.append(errorSlot(path));
      wrap.append(fs);
      return wrap;
    }
    const label = el("label", { for: id }, [el("span", { class: "label-text", text: labelText })]);
    if (required) label.append(requiredMark());
    wrap.append(label);
    const control = this.control(t, s, id, path, initial, required);
    wrap.append(control);
    this.help(wrap, s, id, control);
    const err = errorSlot(path, id + "-error");
    control.setAttribute("aria-describedby", ((control.getAttribute("aria-describedby") || "") + " " + err.id).trim());
    wrap.append(err);
    return wrap;
  }

  // help appends the description and the constraints as help text, tied to
  // the control by aria-describedby.
  help(parent, s, id, control) {
    const parts = [];
    if (s.description) parts.push(String(s.description));
    const c = constraints(s);
    if (c) parts.push(c);
    if (parts.length === 0) return;
    const hid = id + "-help";
    parent.append(el("p", { class: "help", id: hid, text: parts.join(" ") }));
    if (control) control.setAttribute("aria-describedby", hid);
  }

  control(t, s, id, path, initial, required) {
    switch (t) {
      case "boolean": {
        if (required || initial !== undefined) {
          const box = el("input", { type: "checkbox", id, name: path, "data-type": "boolean" });
          box.checked = initial === true;
          return box;
        }
        return select(id, path, "boolean", [["", "(not set)"], ["true", "true"], ["false", "false"]], initial === undefined ? "" : String(initial));
      }
      case "enum": {
        const opts = required && initial !== undefined ? [] : [["", "(not set)"]];
        s.enum.forEach((v, i) => opts.push([String(i), v === null ? "null" : String(v)]));
        const idx = initial === undefined ? -1 : s.enum.findIndex((v) => v === initial);
        const sel = select(id, path, "enum", opts, idx < 0 ? "" : String(idx));
        sel.enumValues = s.enum;
        return sel;
      }
      case "integer":
      case "number": {
        const inp = el("input", { type: "number", id, name: path, "data-type": t, step: t === "integer" ? "1" : "any" });
        if (typeof s.minimum === "number") inp.min = String(s.minimum);
        if (typeof s.maximum === "number") inp.max = String(s.maximum);
        if (initial !== undefined && initial !== null) inp.value = String(initial);
        if (required) inp.setAttribute("aria-required", "true");
        return inp;
      }
      case "string": {
        const long = (s.maxLength === undefined || s.maxLength > 300) && /markdown|text\/|multi-?line/i.test(s.contentMediaType || s.format || "");
        let type = "text";
        if (s.format === "date") type = "date";
        else if (s.format === "email") type = "email";
        else if (s.format === "uri" || s.format === "url") type = "url";
        else if (s.format === "password" || s.writeOnly) type = "password";
        const inp = long ? el("textarea", { id, name: path, rows: "4", "data-type": "string" }) : el("input", { type, id, name: path, "data-type": "string", autocomplete: "off", spellcheck: "false" });
        if (s.format === "date-time") inp.placeholder = "2026-01-02T15:04:05Z";
        else if (s.examples && s.examples.length) inp.placeholder = String(s.examples[0]);
        if (typeof s.pattern === "string") inp.dataset.pattern = s.pattern;
        if (initial !== undefined && initial !== null) inp.value = typeof initial === "string" ? initial : JSON.stringify(initial);
        if (required) inp.setAttribute("aria-required", "true");
        return inp;
      }
      default: {
        const ta = el("textarea", { id, name: path, rows: "3", "data-type": "json", spellcheck: "false", class: "code" });
        ta.placeholder = "JSON";
        if (initial !== undefined) ta.value = JSON.stringify(initial, null, 2);
        if (required) ta.setAttribute("aria-required", "true");
        return ta;
      }
    }
  }

  // arrayField renders an array's items with add and remove buttons, or,
  // for a set of enum strings, one checkbox per value.
  arrayField(fs, path, s, initial, required) {
    const items = s.items;
    const list = Array.isArray(initial) ? initial : [];
    if (typeOf(items) === "enum" && s.uniqueItems && items.enum.length <= 40) {
      const box = el("div", { class: "checks", "data-array-set": path });
      items.enum.forEach((v, i) => {
        const cid = nextID(path + "-" + i);
        const cb = el("input", { type: "checkbox", id: cid, name: path, value: String(i), "data-type": "set" });
        cb.checked = list.some((x) => x === v);
        box.append(el("span", { class: "check" }, [cb, el("label", { for: cid, text: String(v) })]));
      });
      box.enumValues = items.enum;
      fs.append(box);
      return;
    }
    const container = el("div", { class: "items", "data-array": path });
    fs.append(container);
    const add = el("button", { type: "button", class: "add-item" });
    add.textContent = "Add item";
    add.setAttribute("aria-label", "Add an item to " + path);
    fs.append(add);
    const renumber = () => {
      // Paths follow positions: after a removal, the items are renumbered
      // by rebuilding them with the values they hold.
      const values = readArray(container, items);
      container.replaceChildren();
      values.forEach((v) => addItem(v, true));
    };
    const addItem = (v, hasValue) => {
      const i = container.children.length;
      const ip = path + "." + i;
      const row = el("div", { class: "item" });
      const f = this.field(ip, items, true, v, hasValue);
      if (!items.title) f.querySelector(".label-text").textContent = "Item " + (i + 1);
      const rm = el("button", { type: "button", class: "remove-item", text: "Remove" });
      rm.setAttribute("aria-label", "Remove item " + (i + 1) + " of " + path);
      rm.addEventListener("click", () => {
        row.remove();
        renumber();
        add.focus();
      });
      row.append(f, rm);
      container.append(row);
      return row;
    };
    container.readItems = () => readArray(container, items);
    add.addEventListener("click", () => {
      const row = addItem(undefined, false);
      const first = row.querySelector("input, select, textarea");
      if (first) first.focus();
    });
    if (list.length) list.forEach((v) => addItem(v, true));
    else {
      const n = required && typeof s.minItems === "number" ? Math.min(s.minItems, 5) : 0;
      for (let i = 0; i < n; i++) addItem(undefined, false);
    }
  }

  // value returns the arguments the form holds: empty optional fields are
  // left out, everything else is sent as typed, for the server to judge.
  value() {
    return readObject(this.root, this.schema, "");
  }

  // clearErrors empties every .field-error.
  clearErrors() {
    for (const e of this.root.querySelectorAll(".field-error")) {
      e.textContent = "";
      e.hidden = true;
      const f = e.closest(".field");
      if (f) f.classList.remove("has-error");
    }
    for (const c of this.root.querySelectorAll("[aria-invalid]")) c.removeAttribute("aria-invalid");
  }

  // showError puts a sentence beside the field PATH names, or its nearest
  // enclosing field; it returns false when no field matches.
  showError(path, sentence) {
    let p = path;
    while (p) {
      const slot = this.root.querySelector('.field-error[data-error-for="' + cssString(p) + '"]');
      if (slot) {
        slot.textContent = slot.textContent ? slot.textContent + " " + sentence : sentence;
        slot.hidden = false;
        const f = slot.closest(".field");
        if (f) f.classList.add("has-error");
        const control = this.root.querySelector('[name="' + cssString(p) + '"]');
        if (control) control.setAttribute("aria-invalid", "true");
        return true;
      }
      const dot = p.lastIndexOf(".");
      p = dot < 0 ? "" : p.slice(0, dot);
    }
    return false;
  }

  // setValue sets one top-level scalar field (used by paging), if present.
  setValue(name, v) {
    const c = this.root.querySelector('[name="' + cssString(name) + '"]');
    if (c && "value" in c) c.value = String(v);
  }
}

// cssString escapes a PATH for a quoted CSS attribute selector: a
// property's name may hold any character.
function cssString(s) {
  return typeof CSS !== "undefined" && CSS.escape ? CSS.escape(s) : s.replace(/["\\]/g, "\\$&");
}

function requiredMark() {
  const m = el("span", { class: "required", text: "*", title: "required" });
  m.setAttribute("aria-label", "required");
  return m;
}

function errorSlot(path, id) {
  const e = el("p", { class: "field-error", "data-error-for": path, role: "alert", id });
  e.hidden = true;
  return e;
}

function select(id, path, type, options, selected) {
  const sel = el("select", { id, name: path, "data-type": type });
  for (const [v, label] of options) {
    const o = el("option", { value: v, text: label });
    if (v === selected) o.selected = true;
    sel.append(o);
  }
  return sel;
}

// constraints says a schema's bounds in words.
function constraints(s) {
  const out = [];
  const t = typeOf(s);
  if (t === "string") {
    if (s.format) out.push("Format: " + s.format + ".");
    if (typeof s.minLength === "number" && typeof s.maxLength === "number") out.push(s.minLength + " to " + s.maxLength + " characters.");
    else if (typeof s.minLength === "number") out.push("At least " + s.minLength + " characters.");
    else if (typeof s.maxLength === "number") out.push("At most " + s.maxLength + " characters.");
    if (typeof s.pattern === "string") out.push("Pattern: " + s.pattern);
  }
  if (t === "integer" || t === "number") {
    const lo = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? "more than " + s.exclusiveMinimum : undefined;
    const hi = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? "less than " + s.exclusiveMaximum : undefined;
    if (lo !== undefined && hi !== undefined) out.push("From " + lo + " to " + hi + ".");
    else if (lo !== undefined) out.push("At least " + lo + ".");
    else if (hi !== undefined) out.push("At most " + hi + ".");
    if (typeof s.multipleOf === "number") out.push("A multiple of " + s.multipleOf + ".");
  }
  if (t === "array") {
    if (typeof s.minItems === "number" && typeof s.maxItems === "number") out.push(s.minItems + " to " + s.maxItems + " items.");
    else if (typeof s.minItems === "number") out.push("At least " + s.minItems + " items.");
    else if (typeof s.maxItems === "number") out.push("At most " + s.maxItems + " items.");
  }
  if (s.default !== undefined && t !== "object") out.push("Default: " + JSON.stringify(s.default) + ".");
  return out.join(" ");
}

// The readers walk the rendered fields by their data-field paths.

function directField(container, path) {
  for (const f of container.querySelectorAll('.field[data-field="' + cssString(path) + '"]')) {
    return f;
  }
  return null;
}

function readObject(container, schema, prefix) {
  const out = {};
  for (const name of Object.keys(schema.properties || {})) {
    const path = prefix ? prefix + "." + name : name;
    const f = directField(container, path);
    if (!f) continue;
    const v = readField(f, schema.properties[name], path);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

// readField returns a field's value, or undefined when it is empty.
function readField(f, s, path) {
  s = s && typeof s === "object" ? s : {};
  const t = expressible(s) ? typeOf(s) : "json";
  if (t === "object") {
    const v = readObject(f, s, path);
    return Object.keys(v).length === 0 && f.dataset.required !== "true" ? undefined : v;
  }
  if (t === "array") {
    const set = f.querySelector('[data-array-set="' + cssString(path) + '"]');
    if (set) {
      const vals = [];
      for (const cb of set.querySelectorAll("input[type=checkbox]")) {
        if (cb.checked) vals.push(set.enumValues[Number(cb.value)]);
      }
      return vals.length === 0 && f.dataset.required !== "true" ? undefined : vals;
    }
    const items = f.querySelector('[data-array="' + cssString(path) + '"]');
    const vals = items ? items.readItems() : [];
    return vals.length === 0 && f.dataset.required !== "true" ? undefined : vals;
  }
  const c = f.querySelector('[name="' + cssString(path) + '"]');
  if (!c) return undefined;
  return readControl(c, t);
}

function readArray(container, items) {
  const out = [];
  for (const row of container.children) {
    const f = row.querySelector(".field");
    if (!f) continue;
    const v = readField(f, items, f.dataset.field);
    out.push(v === undefined ? defaultEmpty(items) : v);
  }
  return out;
}

function defaultEmpty(s) {
  switch (typeOf(s)) {
    case "object":
      return {};
    case "array":
      return [];
    case "string":
      return "";
  }
  return null;
}

function readControl(c, t) {
  const type = c.dataset.type;
  if (type === "boolean") {
    if (c.type === "checkbox") return c.checked;
    return c.value === "" ? undefined : c.value === "true";
  }
  if (type === "enum") {
    return c.value === "" ? undefined : c.enumValues[Number(c.value)];
  }
  if (type === "integer" || type === "number") {
    if (c.value === "") {
      // A number the browser cannot read is sent as typed is impossible
      // (it hides the text); say so instead of sending nothing silently.
      if (c.validity && c.validity.badInput) throw new FormError(c.name, "is not a number");
      return undefined;
    }
    const n = Number(c.value);
    return Number.isFinite(n) ? n : c.value;
  }
  if (type === "json") {
    const text = c.value.trim();
    if (text === "") return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new FormError(c.name, "is not valid JSON: " + err.message);
    }
  }
  return c.value === "" ? undefined : c.value;
}

// FormError is a value the page itself cannot send: JSON that does not
// parse, a number field holding text.
export class FormError extends Error {
  constructor(path, sentence) {
    super(path ? path + ": " + sentence : sentence);
    this.path = path;
    this.sentence = sentence;
  }
}
