import { test } from "node:test";
import assert from "node:assert/strict";
import { headerValue, paramHeaders } from "../mcp.js";

test("headerValue sends printable ASCII as it is and the rest as base64", () => {
  assert.equal(headerValue("list_products"), "list_products");
  assert.equal(headerValue("shop://orders/1"), "shop://orders/1");
  assert.equal(headerValue("a b"), "a b");
  assert.equal(headerValue("Zürich"), "=?base64?WsO8cmljaA==?=");
  assert.equal(headerValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
  assert.equal(headerValue("line\nbreak"), "=?base64?bGluZQpicmVhaw==?=");
  assert.equal(headerValue(""), "=?base64??=");
  assert.equal(headerValue(8), "8");
});

test("paramHeaders mirrors x-mcp-header arguments, and only primitives present", () => {
  const tool = {
    inputSchema: {
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        n: { type: "integer", "x-mcp-header": "N" },
        flag: { type: "boolean", "x-mcp-header": "Flag" },
        obj: { type: "object", "x-mcp-header": "Obj" },
        plain: { type: "string" },
        absent: { type: "string", "x-mcp-header": "Absent" },
      },
    },
  };
  assert.deepEqual(paramHeaders(tool, { region: "Zürich", n: 3, flag: false, obj: { a: 1 }, plain: "x", absent: null }), {
    "Mcp-Param-Region": "=?base64?WsO8cmljaA==?=",
    "Mcp-Param-N": "3",
    "Mcp-Param-Flag": "false",
  });
  assert.deepEqual(paramHeaders({}, { a: 1 }), {});
  assert.deepEqual(paramHeaders(tool, null), {});
});
