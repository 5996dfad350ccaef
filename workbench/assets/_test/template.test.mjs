import { test } from "node:test";
import assert from "node:assert/strict";
import { templateVariables, expandTemplate } from "../template.js";

test("templateVariables lists each variable once, query ones optional", () => {
  assert.deepEqual(templateVariables("shop://orders/{id}"), [{ name: "id", optional: false }]);
  assert.deepEqual(templateVariables("file:///{+path}{?q,lang}{&page}{id}"), [
    { name: "path", optional: false },
    { name: "q", optional: true },
    { name: "lang", optional: true },
    { name: "page", optional: true },
    { name: "id", optional: false },
  ]);
  assert.deepEqual(templateVariables("x://{a:3}/{b*}/{a}"), [
    { name: "a", optional: false },
    { name: "b", optional: false },
  ]);
  assert.deepEqual(templateVariables("no variables"), []);
});

test("expandTemplate encodes as RFC 6570 says", () => {
  const v = { id: "12", var: "value", hello: "Hello World!", path: "/foo/bar", x: "1024", y: "768", empty: "", tool: "a/b?c" };
  for (const [tpl, want] of [
    ["shop://orders/{id}", "shop://orders/12"],
    ["shop://schemas/{tool}", "shop://schemas/a%2Fb%3Fc"],
    ["{hello}", "Hello%20World%21"],
    ["{+hello}", "Hello%20World!"],
    ["{+path}/here", "/foo/bar/here"],
    ["{#var}", "#value"],
    ["{.x,y}", ".1024.768"],
    ["{/var,x}", "/value/1024"],
    ["{;x,y,empty}", ";x=1024;y=768;empty"],
    ["{?x,y,empty}", "?x=1024&y=768&empty="],
    ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
    ["{var:3}", "val"],
    ["{?missing}", ""],
    ["a{missing}b", "ab"],
  ]) {
    assert.equal(expandTemplate(tpl, v), want, tpl);
  }
  assert.equal(expandTemplate("x://{q}", { q: "Zürich" }), "x://Z%C3%BCrich");
  assert.equal(expandTemplate("x://{+q}", { q: "100%" }), "x://100%25");
  assert.equal(expandTemplate("x://{+q}", { q: "%41" }), "x://%41");
});
