// dom.js: building elements without HTML. Every string is set as text or
// as an attribute value, never parsed, so text from the server shows as
// the characters it is.

// el creates an element: attrs are attribute values (text: its
// textContent), children elements or strings (as text nodes).
export function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = String(v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

// $ is document.getElementById.
export const $ = (id) => document.getElementById(id);
