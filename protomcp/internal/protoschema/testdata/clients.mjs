// clients.mjs checks JSON documents against JSON Schemas with the schema
// validators of the official TypeScript SDKs (v1 @modelcontextprotocol/sdk
// and v2 @modelcontextprotocol/client), which a client uses to check a
// tool's structured content against its output schema.
//
//   node clients.mjs NODE_MODULES_PARENT CASES.json
//
// CASES.json is [{"name", "schema", "docs": [...]}]; every doc must be
// valid. It prints one line per failure and exits 1 if there is any.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [root, casesFile] = process.argv.slice(2);
const require = createRequire(path.join(root, 'package.json'));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);

const v1 = await load('@modelcontextprotocol/sdk/validation/ajv');
const v2 = await load('@modelcontextprotocol/client/validators/ajv');
const validators = {
  'sdk 1.x ajv': new v1.AjvJsonSchemaValidator(),
  'client 2.x ajv': new v2.AjvJsonSchemaValidator(),
};

const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
let failures = 0, checked = 0;
for (const c of cases) {
  for (const [vname, v] of Object.entries(validators)) {
    let check;
    try {
      check = v.getValidator(c.schema);
    } catch (e) {
      console.log(`${vname}: ${c.name}: the schema does not compile: ${e.message}`);
      failures++;
      continue;
    }
    for (const doc of c.docs) {
      const r = check(doc);
      checked++;
      if (!r.valid) {
        console.log(`${vname}: ${c.name}: ${JSON.stringify(doc)}: ${r.errorMessage}`);
        failures++;
      }
    }
  }
}
console.log(`checked ${checked} documents, ${failures} failures`);
process.exit(failures > 0 ? 1 : 0);
