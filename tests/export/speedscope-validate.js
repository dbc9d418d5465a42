// SPDX-License-Identifier: MIT
// Validate a speedscope file against the JSON schema npm's speedscope
// package ships, with ajv (neither written here):
//   node speedscope-validate.js NODE_MODULES_DIR FILE
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require(path.join(process.argv[2], 'ajv'));

const schema = JSON.parse(fs.readFileSync(
  path.join(process.argv[2], 'speedscope/dist/release/file-format-schema.json'), 'utf8'));
const data = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
if (!validate(data)) {
  console.error(JSON.stringify(validate.errors.slice(0, 10), null, 1));
  process.exit(1);
}
console.log(`valid: ${data.profiles.length} profiles, ${data.shared.frames.length} frames`);
