#!/usr/bin/env node
// Validates CycloneDX 1.6 JSON documents against the official JSON schema
// (strict) with the CycloneDX project's own JavaScript library
// (@cyclonedx/cyclonedx-library, its JsonStrictValidator on ajv). .ci/run
// installs it with npm; NODE_PATH must reach its node_modules.
// Usage: cdx-validate.js FILE...   Exit 0: every file valid; 1: not.
'use strict'
const fs = require('fs')
const CDX = require('@cyclonedx/cyclonedx-library')

async function main (files) {
  if (files.length === 0) {
    console.error('usage: cdx-validate.js FILE...')
    return 2
  }
  const v = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6)
  let bad = 0
  for (const f of files) {
    const errs = await v.validate(fs.readFileSync(f, 'utf8'))
    if (errs === null || errs === undefined) {
      console.log(`${f}: valid CycloneDX ${CDX.Spec.Version.v1dot6} JSON (strict schema)`)
    } else {
      bad++
      console.error(`${f}: INVALID: ${JSON.stringify(errs, null, 2)}`)
    }
  }
  return bad === 0 ? 0 : 1
}
main(process.argv.slice(2)).then(c => process.exit(c), e => { console.error(e); process.exit(1) })
