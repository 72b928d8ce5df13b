#!/usr/bin/env node
// props.js writes tokenizer/testdata/regex_props.json.gz: what the reference's regex engine
// (Oniguruma, in Hugging Face tokenizers' Split) matches for every \p{…} name EdgeChat's
// tables hold (tokenizer/unicode_props.go's propKeys) and for escapes in and out of bracket
// expressions, as a digest of the matched code points, for TestRegexProperties.
//
// Texts (the Go test builds the same): "planes" holds every code point of planes 0–3 and 14
// (all that Unicode 16.0 assigns outside private use) and, of the others (unassigned or private
// use throughout), every 61st and the first two and last two of each plane; "sample" holds
// every code point below U+3400 and every 61st above.
//
// "folds" holds, for every character with a case folding (tokenizer/unicode_props.go's
// simpleFolds and fullFolds, either side), what (?i)[c]+ and (?i)c+ match in a text of all
// those characters and of their multi-character foldings, lower and upper case (fold_text,
// kept in the file), as a digest of the matched pieces.
//
// Usage: (cd tools/tokref && npm install) && node tools/tokref/props.js   (about fifteen minutes)
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const crypto = require('crypto');
const { Tokenizer } = require('@anush008/tokenizers');

const root = path.resolve(__dirname, '..', '..');
const inPlanes = c => c < 0x40000 || c >= 0xe0000 && c < 0xf0000 || c % 61 === 0 || (c & 0xffff) >= 0xfffe || (c & 0xffff) < 2;
const inSample = c => c < 0x3400 || c % 61 === 0;
const text = keep => {
  const cps = [];
  for (let c = 0; c < 0x110000; c++) if ((c < 0xd800 || c > 0xdfff) && keep(c)) cps.push(c);
  return cps.map(c => String.fromCodePoint(c)).join('');
};
// Escapes and names whose reading depends on where they stand.
const contexts = [String.raw`\w`, String.raw`[\w]`, String.raw`\W`, String.raw`[\W]`, String.raw`[^\w]`, String.raw`\h`,
  String.raw`[\H]`, String.raw`[\b]`, String.raw`\s`, String.raw`[\S]`, String.raw`\d`, String.raw`[\D]`,
  String.raw`\p{Word}`, String.raw`[\p{Word}]`, String.raw`\P{Word}`, String.raw`\p{^Word}`, String.raw`[\p{^Word}]`,
  String.raw`[^\p{Word}]`, String.raw`[\P{^Latn}]`, String.raw`\p{^L}`, String.raw`\P{^Latn}`, String.raw`\p{Lu}`,
  String.raw`[\p{L}\p{Nd}]`, String.raw`\p{In_Basic_Latin}`, String.raw`\p{White Space}`, String.raw`\p{white-space}`,
  String.raw`[^\P{Emoji}]`, String.raw`\P{Assigned}`, String.raw`[\p{Alpha}\p{^Any}]`, String.raw`\p{Alnum}`,
  String.raw`\p{PosixPunct}`, String.raw`\p{InCB}`, String.raw`[a-c\p{Grek}]`];

const base = { version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, post_processor: null,
  decoder: null, model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: 'a' } };

// digest is the first 8 bytes of the SHA-256 of the matched code points (4 bytes each, little
// endian, in order), as hex.
function digest(re, s) {
  const tok = Tokenizer.fromString(JSON.stringify({ ...base,
    pre_tokenizer: { type: 'Split', pattern: { Regex: re + '+' }, behavior: 'Removed', invert: true } }));
  const cps = [];
  for (const p of tok.getPreTokenizer().preTokenizeString(s)) for (const ch of p[0]) cps.push(ch.codePointAt(0));
  cps.sort((a, b) => a - b);
  const buf = Buffer.alloc(cps.length * 4);
  cps.forEach((c, i) => buf.writeUInt32LE(c, i * 4));
  return crypto.createHash('sha256').update(buf).digest('hex').slice(0, 16);
}

// piecesDigest is the first 8 bytes of the SHA-256 of the pieces re+ matches in s, joined
// with U+0000, as hex.
function piecesDigest(re, s) {
  const tok = Tokenizer.fromString(JSON.stringify({ ...base,
    pre_tokenizer: { type: 'Split', pattern: { Regex: re }, behavior: 'Removed', invert: true } }));
  const pieces = tok.getPreTokenizer().preTokenizeString(s).map(p => p[0]);
  return crypto.createHash('sha256').update(pieces.join('\0')).digest('hex').slice(0, 16);
}

// foldChars lists every character of the case foldings, and a text of them, then of each
// multi-character folding in lower and upper case, separated by spaces.
function foldChars(src) {
  const simple = [...src.slice(src.indexOf('var simpleFolds')).split('\n}')[0].matchAll(/\{0x([0-9a-f]+), 0x([0-9a-f]+)\}/g)];
  const full = [...src.slice(src.indexOf('var fullFolds')).split('\n}')[0].matchAll(/0x([0-9a-f]+): \{([^}]*)\}/g)];
  const chars = new Set();
  for (const m of simple) { chars.add(parseInt(m[1], 16)); chars.add(parseInt(m[2], 16)); }
  const strs = [];
  for (const m of full) {
    chars.add(parseInt(m[1], 16));
    strs.push(String.fromCodePoint(...m[2].split(', ').map(x => parseInt(x, 16))));
  }
  const sorted = [...chars].sort((a, b) => a - b);
  const text = [...sorted.map(c => String.fromCodePoint(c)), ...strs, ...strs.map(x => x.toUpperCase())].join(' ');
  return { chars: sorted, text };
}

function main() {
  const src = fs.readFileSync(path.join(root, 'tokenizer', 'unicode_props.go'), 'utf8');
  const keys = [...src.slice(src.indexOf('var propKeys')).split('}')[0].matchAll(/"([a-z0-9]+)"/g)].map(m => m[1]);
  const planes = text(inPlanes), sample = text(inSample);
  const out = { reference: '@anush008/tokenizers ' + require('@anush008/tokenizers/package.json').version, names: {}, contexts: {} };
  for (const [i, k] of keys.entries()) {
    out.names[k] = digest(`[\\p{${k}}]`, planes);
    if (i % 100 === 0) console.log(i, keys.length, k);
  }
  for (const re of contexts) out.contexts[re] = digest(re, sample);
  const { chars, text: foldText } = foldChars(src);
  out.fold_text = foldText;
  out.folds = {};
  for (const c of chars) {
    const x = c.toString(16);
    out.folds[x] = [piecesDigest(`(?i)[\\x{${x}}]+`, foldText), piecesDigest(`(?i)\\x{${x}}+`, foldText)];
  }
  fs.writeFileSync(path.join(root, 'tokenizer', 'testdata', 'regex_props.json.gz'),
    zlib.gzipSync(Buffer.from(JSON.stringify(out, null, 1) + '\n'), { level: 9 }));
}

main();
