// Tests of refusal.js: node --test workbench/assets/_test (Node >= 22).
// The directory's leading underscore keeps it out of the embedded assets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizePath, parseRefusal } from "../refusal.js";

test("normalizePath turns the server's locations into field paths", () => {
  for (const [in_, want] of [
    ["top", "top"],
    ["lines[0].sku", "lines.0.sku"],
    ["/lines/0/sku", "lines.0.sku"],
    ["arguments.lines[12].qty", "lines.12.qty"],
    ["arguments", ""],
    ["$.address.city", "address.city"],
    ["/a~1b/c~0d", "a/b.c~d"],
    ['map["k"]', "map.k"],
    ["", ""],
    [undefined, ""],
  ]) {
    assert.equal(normalizePath(in_), want, String(in_));
  }
});

test("validationErrors name their fields, and an empty path names none", () => {
  const sc = {
    error: "invalid: filter: syntax error at column 8",
    code: "invalid",
    validationErrors: [
      { path: "filter", message: "filter: syntax error at column 8" },
      { path: "lines[1].qty", message: "must be at least 1" },
      { path: "", message: "give filter or search, not both" },
      { message: 3 },
    ],
  };
  const got = parseRefusal("invalid: filter: syntax error at column 8", sc);
  assert.deepEqual(got.fields, [
    { path: "filter", sentence: "filter: syntax error at column 8", raw: "filter" },
    { path: "lines.1.qty", sentence: "must be at least 1", raw: "lines[1].qty" },
  ]);
  assert.deepEqual(got.rest, ["give filter or search, not both"]);
});

test("invalid arguments lines name one field each", () => {
  const got = parseRefusal('invalid arguments:\n- skip: must be at least 0, got -1\n- lines[0].sku: must match the pattern ^[A-Z]{3}$, got "a: b"\n- the call: too many');
  assert.deepEqual(
    got.fields.map((f) => [f.path, f.sentence]),
    [
      ["skip", "must be at least 0, got -1"],
      ["lines.0.sku", 'must match the pattern ^[A-Z]{3}$, got "a: b"'],
      ["the call", "too many"],
    ],
  );
  assert.deepEqual(got.rest, []);
});

test("a code: sentence goes to a field only when it starts with one", () => {
  const fields = new Set(["skus.1", "id"]);
  const isField = (p) => fields.has(p);
  assert.deepEqual(parseRefusal('invalid: skus[1] "XXX" is not a SKU', null, isField), {
    fields: [{ path: "skus.1", sentence: 'skus[1] "XXX" is not a SKU', raw: "skus[1]" }],
    rest: [],
  });
  assert.deepEqual(parseRefusal("invalid: id: must be positive", null, isField).fields, [{ path: "id", sentence: "must be positive", raw: "id" }]);
  assert.deepEqual(parseRefusal("conflict: Order 1 has shipped.", null, isField), { fields: [], rest: ["conflict: Order 1 has shipped."] });
  assert.deepEqual(parseRefusal("not-found: No order 9.", null), { fields: [], rest: ["not-found: No order 9."] });
  assert.deepEqual(parseRefusal("", null), { fields: [], rest: ["The tool failed and said nothing."] });
});
