// refusal.js: reading a tool's refusal (an isError result) into the
// sentences it says about each argument, so the page can show each one
// beside its field. Ferry refuses in three shapes:
//
//   - structuredContent.validationErrors: [{path, message}], with
//     structuredContent.error "code: sentence" (entity tools);
//   - the text "invalid arguments:\n- PATH: sentence" (one line per
//     argument), when the input schema refuses the arguments;
//   - the text "code: sentence" (not-found, conflict, invalid...), whose
//     sentence may start with the argument it is about.

// normalizePath turns a location as the server names it (lines[0].sku,
// /lines/0/sku, arguments.lines.0.sku, $.lines[0]) into a field PATH
// (lines.0.sku); "" for the arguments as a whole.
export function normalizePath(p) {
  let s = String(p ?? "").trim();
  if (s.startsWith("/")) {
    s = s
      .slice(1)
      .split("/")
      .map((x) => x.replace(/~1/g, "/").replace(/~0/g, "~"))
      .join(".");
  }
  s = s.replace(/\[(\d+)\]/g, ".$1").replace(/\[["']([^"']*)["']\]/g, ".$1");
  s = s.replace(/^\$\.?/, "").replace(/^arguments(\.|$)/, "").replace(/^\./, "");
  return s;
}

// LEADING_PATH matches "code: PATH" and what follows: ": sentence", or
// the rest of a sentence that starts with PATH.
const LEADING_PATH = /^([a-z][a-z0-9-]*): ([A-Za-z_$][\w$-]*(?:\[\d+\]|\.[A-Za-z_$][\w$-]*|\.\d+)*)(:\s*|\s+)([\s\S]+)$/;

// parseRefusal returns what a refusal says: fields, one {path, sentence}
// per argument it names (path normalized), and rest, the sentences that
// name none. isField(path) reports whether the form has a field at a
// normalized path; a "code: sentence" text is tied to a field only when
// its first word is one.
export function parseRefusal(text, structured, isField = () => false) {
  const fields = [];
  const rest = [];
  text = typeof text === "string" ? text : "";
  const errs = structured && typeof structured === "object" ? structured.validationErrors : undefined;
  if (Array.isArray(errs) && errs.length) {
    for (const v of errs) {
      if (!v || typeof v.message !== "string") continue;
      const path = normalizePath(typeof v.path === "string" ? v.path : "");
      if (path) fields.push({ path, sentence: v.message, raw: v.path });
      else rest.push(v.message);
    }
    return { fields, rest };
  }
  if (/^invalid arguments:\s*\n/.test(text)) {
    for (const line of text.split("\n").slice(1)) {
      const m = /^- ([^:]+?): (.*)$/.exec(line);
      if (m && normalizePath(m[1])) fields.push({ path: normalizePath(m[1]), sentence: m[2], raw: m[1] });
      else if (line.trim()) rest.push(line.replace(/^- /, ""));
    }
    return { fields, rest };
  }
  const m = LEADING_PATH.exec(text);
  if (m && isField(normalizePath(m[2]))) {
    fields.push({ path: normalizePath(m[2]), sentence: m[3].startsWith(":") ? m[4] : m[2] + " " + m[4], raw: m[2] });
  } else {
    rest.push(text || "The tool failed and said nothing.");
  }
  return { fields, rest };
}
