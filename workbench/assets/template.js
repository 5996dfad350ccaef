// template.js: URI templates (RFC 6570) as resource templates use them:
// the variables a template names, and the URI it gives for their values.

const EXPR = /\{([+#./;?&]?)([^}]*)\}/g;

// OPERATORS: per operator, the prefix, the separator, whether names are
// written (name=value) and whether reserved characters pass unencoded.
const OPERATORS = {
  "": { first: "", sep: ",", named: false, reserved: false },
  "+": { first: "", sep: ",", named: false, reserved: true },
  "#": { first: "#", sep: ",", named: false, reserved: true },
  ".": { first: ".", sep: ".", named: false, reserved: false },
  "/": { first: "/", sep: "/", named: false, reserved: false },
  ";": { first: ";", sep: ";", named: true, reserved: false, ifEmpty: "" },
  "?": { first: "?", sep: "&", named: true, reserved: false, ifEmpty: "=" },
  "&": { first: "&", sep: "&", named: true, reserved: false, ifEmpty: "=" },
};

function specs(body) {
  return body
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean)
    .map((v) => {
      const m = /^([A-Za-z0-9_.%]+)(\*|:(\d+))?$/.exec(v);
      return m ? { name: m[1], explode: m[2] === "*", prefix: m[3] ? Number(m[3]) : 0 } : { name: v, explode: false, prefix: 0 };
    });
}

// templateVariables returns the variables of a template in order, each
// {name, optional}: a query or path-parameter variable may be left out.
export function templateVariables(template) {
  const out = [];
  const seen = new Set();
  for (const m of String(template).matchAll(EXPR)) {
    const op = m[1];
    for (const s of specs(m[2])) {
      if (seen.has(s.name)) continue;
      seen.add(s.name);
      out.push({ name: s.name, optional: op === "?" || op === "&" || op === ";" });
    }
  }
  return out;
}

function encode(s, reserved) {
  const str = String(s);
  if (reserved) {
    // Keep reserved characters and percent-encoded triplets as they are.
    return str.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu, (c) => encodeURIComponent(c));
  }
  return encodeURIComponent(str).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

// expandTemplate fills a template with values (strings; others as JSON
// text); a variable without a value is left out, as RFC 6570 says.
export function expandTemplate(template, values) {
  return String(template).replace(EXPR, (_, opChar, body) => {
    const op = OPERATORS[opChar];
    const parts = [];
    for (const s of specs(body)) {
      let v = values ? values[s.name] : undefined;
      if (v === undefined || v === null) continue;
      if (typeof v !== "string") v = Array.isArray(v) ? v.map(String).join(",") : String(v);
      if (s.prefix) v = [...v].slice(0, s.prefix).join("");
      const enc = encode(v, op.reserved);
      if (op.named) parts.push(enc === "" ? s.name + op.ifEmpty : s.name + "=" + enc);
      else parts.push(enc);
    }
    return parts.length ? op.first + parts.join(op.sep) : "";
  });
}
