import { test } from "node:test";
import assert from "node:assert/strict";
import { listShape, rowDocs, parseJSON, approxBytes } from "../result.js";

test("listShape finds the rows and paging of list-shaped values", () => {
  const rows = [{ id: 1 }, { id: 2 }];
  assert.deepEqual(listShape(rows), { rows, paging: {} });
  assert.deepEqual(listShape({ data: rows, paging: { skip: 5, top: 2, hasMore: true, totalCount: 60 } }), {
    rows,
    paging: { skip: 5, top: 2, hasMore: true, totalCount: 60 },
    key: "data",
  });
  assert.deepEqual(listShape({ data: rows, hasMore: false }), { rows, paging: { hasMore: false }, key: "data" });
  assert.deepEqual(listShape({ orders: rows, nextCursor: "c" }), { rows, paging: { nextCursor: "c" }, key: "orders" });
  assert.deepEqual(listShape({ data: [] }), { rows: [], paging: {}, key: "data" });
});

test("listShape leaves records, scalars and mixed arrays alone", () => {
  // An order with its lines is a record, not a list of lines.
  assert.equal(listShape({ id: 1, status: "placed", total_cents: 5, lines: [{ sku: "A" }] }), null);
  assert.equal(listShape({ id: 1, items: [{ sku: "A" }], a: 1, b: 2 }), null);
  assert.equal(listShape([1, 2]), null);
  assert.equal(listShape([{ a: 1 }, [2]]), null);
  assert.equal(listShape("text"), null);
  assert.equal(listShape(null), null);
  assert.equal(listShape({ a: [{ x: 1 }], b: [{ y: 1 }] }), null);
});

test("parseJSON reads objects and arrays only", () => {
  assert.deepEqual(parseJSON(' {"a":1} '), { a: 1 });
  assert.deepEqual(parseJSON("[1]"), [1]);
  assert.equal(parseJSON("12"), undefined);
  assert.equal(parseJSON("{not json"), undefined);
  assert.equal(parseJSON(undefined), undefined);
});

test("approxBytes says a base64 payload's size", () => {
  assert.equal(approxBytes("AAAA"), "3 bytes");
  assert.equal(approxBytes("A".repeat(4096)), "3.0 KiB");
  assert.equal(approxBytes(undefined), "no data");
});

test("rowDocs reads the columns' descriptions from an output schema", () => {
  const schema = {
    type: "object",
    properties: { data: { type: "array", items: { type: "object", properties: { sku: { type: "string", description: "Stock keeping unit." }, qty: { type: "integer" } } } } },
  };
  assert.deepEqual(rowDocs(schema, "data"), { sku: "Stock keeping unit." });
  assert.deepEqual(rowDocs({ type: "array", items: { properties: { a: { description: "A." } } } }, undefined), { a: "A." });
  assert.deepEqual(rowDocs(undefined, "data"), {});
  assert.deepEqual(rowDocs(schema, "rows"), {});
});
