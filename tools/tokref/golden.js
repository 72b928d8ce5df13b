#!/usr/bin/env node
// golden.js writes the expected token ids of EdgeChat's tokenizer tests, computed by the
// reference implementation (Hugging Face tokenizers in Rust, built for Node as
// @anush008/tokenizers), and measures the reference's single-threaded encode speed.
//
// Usage (from the repository root, after tools/setup.sh):
//   (cd tools/tokref && npm install) && node tools/tokref/golden.js
// Writes tokenizer/testdata/{corpus.json.gz, golden_NAME.json.gz, bench.txt.gz,
// bench_nospace.txt.gz, variants.json, reference_speed.json}; with --skip-speed it leaves
// reference_speed.json as it is; with --only=NAME,… it redoes those tokenizers only (their
// speeds merged into reference_speed.json), e.g. to time the reference again:
//   node tools/tokref/golden.js --only=gemma3,llama2
// Speeds: load_ms is the best of three loads; encode the bench text (whole and by lines),
// nospace the ~100 KB paragraph without spaces, as Go's BenchmarkEncode/BenchmarkEncodeNoSpace.
//
// Tokenizers: the files tools/setup.sh installs, the stories260K model's tokenizer.json from
// the shared models folder (found beside the repository or above it), and variants: a base
// file with top-level keys replaced and added tokens appended as variants.json says (the Go
// test makes the same edit), to cover Metaspace and added-token flags no real file here has.
//
// For each corpus string it records:
//   pieces   the pre-tokenizer's pieces of the normalized string (in byte-level form)
//   ids      encode with every added token removed from the file: EdgeChat's Encode (user text)
//   special  encode of the real file without post-processing: EdgeChat's EncodeSpecial
//   post     encode with the post-processor's special tokens: EdgeChat's AddSpecialTokens(special)
//   decoded / decoded_skip  decode(special, false / true)
// (special, post, decoded and decoded_skip are left out when equal to ids, special, the text
// and decoded; pieces when the file has no pre-tokenizer)
// and decodes of seeded random id sequences (broken UTF-8 next to added tokens included).
'use strict';
process.env.RAYON_NUM_THREADS = '1';
process.env.TOKENIZERS_PARALLELISM = 'false';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const crypto = require('crypto');
const { Tokenizer } = require('@anush008/tokenizers');
const { corpus, benchText, noSpaceText, rng } = require('./corpus');

const root = path.resolve(__dirname, '..', '..');
const out = path.join(root, 'tokenizer', 'testdata');
const cache = process.env.EDGECHAT_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'edgechat');
const skipSpeed = process.argv.includes('--skip-speed');
const onlyArg = process.argv.find(a => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : null;
// real: tokenizer.json files of more families, kept gzipped in tokenizer/testdata/real (see
// SOURCES.md there).
const real = ['added_tokens', 'bert', 'bert_zh', 'chatglm3', 'clip', 'cohere', 'falcon', 'gpt2', 'marian', 'minilm', 'olmo1',
  'olmo2', 'phi2', 'phi3', 'roberta', 'smollm', 't5', 'whisper', 'wiki', 'yi'];
// The real files timed for BenchmarkEncodeReal: WordPiece, Unigram, GPT-2's byte-level BPE.
const timedReal = new Set(['real_bert', 'real_t5', 'real_gpt2']);
const names = ['qwen3', 'llama3', 'deepseek_v3', 'qwen3_o200k', 'llama2', 'gemma3', 'gemini', 'gpt4o', 'gpt35turbo', 'claude', 'gptoss', 'stories260k',
  'llama2_metaspace', 'llama2_always', 'gpt2_digits', 't5_first', 't5_bert_first', 't5_nfd_first', 't5_nfkc_first', 't5_byte_fallback', 'wiki_scripts', 'wiki_word_split', 'wiki_intervals', 'wiki_props', 'wiki_fold', 'wiki_prop_names', 'wiki_fold_class', 'marian_t5', 'marian_unk0', ...real.map(n => 'real_' + n)];
const spNames = new Set(['llama2', 'gemma3', 'gemini', 'stories260k', 'llama2_metaspace', 'llama2_always']);
// qwen3_o200k is Qwen3's file with its Split regex replaced by GPT-4o's (o200k), to test that
// regex on another vocabulary (GPT-4o's own file is tested too, as gpt4o). The Go test makes the same edit.
const qwenRegex = String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`;
const o200kRegex = String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`;

const added = (id, content, o = {}) => ({ id, content, single_word: false, lstrip: false, rstrip: false,
  normalized: false, special: true, ...o });
// Variants of the Llama 2 layout file. llama2_metaspace is the "non-legacy" layout (no
// normalizer, Metaspace prepend_scheme first without split) with Phi-3's added tokens, which
// strip the whitespace after them; llama2_always has Metaspace always/split, its decoder, and
// tokens with lstrip, single_word, normalized and whitespace content.
const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: false };
// Texts that start with combining marks canonical ordering moves (Tibetan vowel signs that
// decompose into marks of lower classes than the one before them, marks of classes 202–240),
// for the *_first variants with a Unicode normal form.
const firstTexts = ['\u0301\u0f73x', '\u0f73\u0f71a', '\u031b\u0f81\u031b\u00bd\u0345\u00e9',
  '\u0327\u031b\u0f73\u11a8 \u0308', '\u0308\u0f81', '\u1dca\u0f81\u00e9', '\u0344\u0591\uac00',
  '\u0f81\u0f71\u00e9\u0f72\u0658\u0301', '\u0345\u0327\u0f75', '\u0f71\u0670\u1e0b\u0670\u0345',
  '\u0f72\u0f73\u05b0\ufb01\u1e0ba', '\u0f73\u0f811', '\u0316\u0f75\u031b', '\ufb2c\u0f71\u05b0',
  '\u0308\u0f73\u304b', '\u0f73\u0f71\u2126\u11a8', '\u0301\u0316a', 'a\u0301 b'];
const variants = {
  // SmolLM's pre-tokenizer (each digit alone, then GPT-2's regex) on GPT-2's file.
  gpt2_digits: {
    base: 'real_gpt2',
    set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] } },
    added_tokens: [],
  },
  // T5's file as saved without legacy (WhitespaceSplit, then Metaspace with prepend_scheme
  // first), with each digit split off before it: a control character the charsmap removes at
  // the start still leaves the start first, as the Rust library keeps it, and every piece of the
  // first character's expansion ("½" → "1⁄2") is first.
  t5_first: {
    base: 'real_t5',
    set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Digits', individual_digits: true },
      { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true }] },
      decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true } },
    added_tokens: [],
  },
  // T5's vocabulary with NFD, then NFKC, each character split off before a Metaspace with
  // prepend_scheme first: the Rust library's normalizer gives the input's first offsets to the
  // output characters by position, so a text that starts with marks canonical ordering moves
  // hands them to more or fewer characters than the first character's own normal form. texts
  // are strings tested with these variants only (after the corpus).
  t5_nfd_first: {
    base: 'real_t5',
    set: { normalizer: { type: 'NFD' }, pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: '.' }, behavior: 'Isolated', invert: false },
      { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true }] } },
    added_tokens: [],
    texts: firstTexts,
  },
  t5_nfkc_first: {
    base: 'real_t5',
    set: { normalizer: { type: 'NFKC' }, pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: '.' }, behavior: 'Isolated', invert: false },
      { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true }] } },
    added_tokens: [],
    texts: firstTexts,
  },
  // T5's vocabulary with BertNormalizer (accents stripped, lowercased) before a Metaspace with
  // prepend_scheme first: a text that starts with a combining mark loses it, and its start.
  t5_bert_first: {
    base: 'real_t5',
    set: { normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
      pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true } },
    added_tokens: [],
  },
  // T5's file with byte_fallback set on its Unigram model (as some SentencePiece Unigram
  // models are saved): T5 has no <0xNN> pieces, so an unknown run stays unk, not id 0.
  t5_byte_fallback: {
    base: 'real_t5',
    set: {},
    set_model: { byte_fallback: true },
    added_tokens: [],
  },
  // A Split on \w+, inverted, the rest removed, on the wiki BPE file: the reference's regex
  // engine (Oniguruma) counts ² ³ ¹ ¼ ½ ¾ as word characters and U+200C/U+200D not.
  wiki_word_split: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Split', pattern: { Regex: '\\w+' }, behavior: 'Removed', invert: true } },
    added_tokens: [],
    texts: ['x\u00b2+y\u00b3=z\u00b9', '\u00bd \u00bc\u00be cup', 'a\u200cb c\u200dd', '\u2075\u2082 \u2153 \u0660\u0661'],
  },
  // A Split with Oniguruma's Ruby-syntax intervals on the wiki BPE file: {,n} is {0,n},
  // a{n}? is (?:a{n})? (not lazy), a{n,m}+ is (?:a{n,m})+ (not possessive).
  wiki_intervals: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Split', pattern: { Regex: '\\d{,2}\\.|\\p{L}{2}?\\p{Ll}|[A-Z]{1,2}+|\\s+' }, behavior: 'Isolated', invert: false } },
    added_tokens: [],
  },
  // A Split with Oniguruma's Unicode properties and anchors on the wiki BPE file: scripts
  // (the Script property of Unicode 16.0: CJK Extension I is Han, "、" is Common, Garay
  // exists), general categories short and long, unions with unassigned code points (\p{C}),
  // Alphabetic, \A \z \Z \b \B, properties inside brackets.
  wiki_props: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Split', pattern: { Regex: String.raw`\A\p{Lu}|\p{Han}+|\p{Hiragana}+|\p{Greek}+|\p{Cyrillic}+|\p{Garay}+|[\p{Katakana}\p{Nl}]+|\p{Mn}+|\p{Z}|\p{Sm}+|\p{Other}|\p{C}|\b\p{Alphabetic}+\b|\p{Nd}\z|\d\Z|\B\p{Po}|\p{Currency_Symbol}|\p{nonspacing mark}` },
      behavior: 'Isolated', invert: false } },
    added_tokens: [],
    texts: ['Hello \u4e16\u754c\u3001\u3053\u3093\u306b\u3061\u306f', '\u{2EBF0}\u{2EBF1}x\u{3134A}', '\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac \u1f00',
      '\u041f\u0440\u0438\u0432\u0435\u0442 \u1c89\u1c8a', '\u{10D40}\u{10D41} \u{10D50}', 'e\u0301\u0345a \u0903', 'a\u2028b\u2029c\u00a0d\u3000e',
      'x+y=z \u2211\u221e', '\u216b \u16ee \u3007 \u30ab\u30bf\u216b', '\x01\x7f\u0085\u00ad\u200b', '\ue000\u0378 \u{2FFFF}\u{E0001}',
      'abc1\n', 'abc1', 'x1 y22\n\n', '$5 \u00a5 \u20ac', "don't a.b. .c", '\u00aa\u00ba \u02b0 \u0e31'],
  },
  // A Split with case-insensitive strings on the wiki BPE file: Oniguruma folds them with
  // multi-character foldings ((?i:ss) matches "ß", (?i:ß) "SS", (?i:fi) "ﬁ").
  wiki_fold: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Split', pattern: { Regex: String.raw`(?i:strasse|ss|st|\u00df|fi|ffi|\ufb00|\u01f0|k)|\p{L}|\s+|.` },
      behavior: 'Isolated', invert: false } },
    added_tokens: [],
    texts: ['Stra\u00dfe STRASSE strasse', '\ufb05op \ufb06 st ST', '\ufb01le FILE \ufb03 ffi FFI', '\u00dfs s\u00df sss \u1e9e SS',
      '\u01f0 j\u030c J\u030c', 'Kelvin \u212a k', '\u017fs \u017ft \u017f\u017f', 'ff \ufb00 FF'],
  },
  // A Split with more of Oniguruma's \p{…} names on the wiki BPE file: ISO 15924 script codes,
  // binary properties, POSIX names, blocks, negations (\P, \p{^…}), \h, and escapes read
  // otherwise in a bracket expression ([\b] a backspace, [\w] and [\p{Word}] without ² ³ ¹ ¼ ½ ¾).
  wiki_prop_names: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Split', pattern: { Regex: String.raw`\p{Hani}+|\p{Hira}+|\p{Kana}+|\p{Grek}+|\p{Cyrl}+|\p{Arab}+|\p{Emoji_Presentation}+|\p{ExtPict}|\p{Latn}+|\h+|[\w]+|\p{Word}+|\P{Assigned}+|[\b\t]+|\p{White_Space}+|\p{In_General_Punctuation}|\p{^Alnum}` },
      behavior: 'Isolated', invert: false } },
    added_tokens: [],
    texts: ['Hello \u043c\u0438\u0440 \u4e16\u754c \u3072\u3089\u304c\u306a \u30ab\u30bf\u30ab\u30ca \u0395\u03bb\u03bb\u03ac\u03b4\u03b1 \u0627\u0644\u0639\u0631\u0628\u064a\u0629',
      '\u{1F600}\u{1F44D}\u{1F3FD} \u263a \u2708\ufe0f', 'x\u00b2+y\u00b3 \u00bd 0xFF deadBEEF 42', 'a\bb\tc\b\b', '\u2028\u2029 \u00a0x\u3000',
      '\u0378\u0379 \u{E0080}\u{50000}', '\u00abquote\u00bb \u2014 \u2026 \u2020', '\u00b9\u00bc_z \u0660\u0661 \u0966'],
  },
  // A Split under (?i) with bracket expressions and quantified characters on the wiki BPE
  // file: a class holds the case variants of its characters ([a-z] takes K and ſ, [^a-z] not)
  // and the full foldings of them as strings ((?i)[ß] matches "ss"), ß+ matches "ssss"; (?m)
  // lets "." take a newline; (?:q(?i)u|v) is q(?i:u|v).
  wiki_fold_class: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Split', pattern: { Regex: String.raw`(?m:<.+?>)|(?:q(?i)u|v)|(?i)[\u00df\ufb01]+|\u01f0+|[a-z]+|[^a-z\s]+|\s+` },
      behavior: 'Isolated', invert: false } },
    added_tokens: [],
    texts: ['Stra\u00dfe STRASSE \u017ftra\u00dfe', '\ufb01le FILE \u01f0 J\u030c j\u030c', 'Kelvin \u212aELVIN', '\u00dfs\u00df \u1e9e ss', '\u03a9mega \u03c9 \u2126',
      '<a\nb> <c>', 'qU QU qV V v', '\u0130stanbul \u0131 I i'],
  },
  // The UnicodeScripts pre-tokenizer (its pieces keep their spaces), then FixedLength, on the
  // wiki BPE file.
  wiki_scripts: {
    base: 'real_wiki',
    set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'UnicodeScripts' }, { type: 'FixedLength', length: 6 }] } },
    added_tokens: [],
  },
  // Marian's file with T5's post-processor ($A </s>, $A </s> $B </s>, type ids 0), as
  // transformers' T5Converter builds it: the golden of a T5 folder made of Marian's
  // SentencePiece model named spiece.model.
  marian_t5: {
    base: 'real_marian',
    set: { post_processor: { type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      special_tokens: { '</s>': { id: '</s>', ids: [0], tokens: ['</s>'] } } } },
    added_tokens: [],
  },
  // Marian's file with unk_id 0, as transformers converts a SentencePiece model whose
  // trainer_spec has no unk_id (the field's default, 0), wherever its <unk> piece is.
  marian_unk0: {
    base: 'real_marian',
    set: {},
    set_model: { unk_id: 0 },
    added_tokens: [],
  },
  llama2_metaspace: {
    base: 'llama2',
    set: { normalizer: null, pre_tokenizer: meta },
    added_tokens: ['<|endoftext|>', '<|assistant|>', '<|placeholder1|>', '<|placeholder2|>', '<|placeholder3|>',
      '<|placeholder4|>', '<|system|>', '<|end|>', '<|placeholder5|>', '<|placeholder6|>', '<|user|>']
      .map((c, i) => added(32000 + i, c, { rstrip: i > 0 })),
  },
  llama2_always: {
    base: 'llama2',
    set: {
      normalizer: null,
      pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', add_prefix_space: true },
      decoder: { type: 'Sequence', decoders: [{ type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
        { type: 'ByteFallback' }, { type: 'Fuse' }] },
    },
    added_tokens: [added(32000, '<mask>', { lstrip: true, special: false }), added(32001, '[WORD]', { single_word: true }),
      added(32002, 'foo bar', { normalized: true, special: false }), added(32003, '<tab>', { lstrip: true, rstrip: true }),
      added(32004, '  ', { special: false }), added(32005, '<|user|>', { rstrip: true, normalized: true })],
  },
};

// sharedModels finds the shared models folder: shared/models beside the repository or above it.
function sharedModels() {
  for (let d = root; ; d = path.dirname(d)) {
    const p = path.join(d, 'shared', 'models');
    if (fs.existsSync(p)) return p;
    if (path.dirname(d) === d) throw new Error('shared/models not found above ' + root);
  }
}

// readTokenizer returns the text of a tokenizer.json, for a variant with its edit made.
function readTokenizer(name) {
  if (name.startsWith('real_')) {
    return zlib.gunzipSync(fs.readFileSync(path.join(out, 'real', name.slice(5) + '.json.gz'))).toString('utf8');
  }
  if (name === 'stories260k') return fs.readFileSync(path.join(sharedModels(), 'stories260K', 'tokenizer.json'), 'utf8');
  const v = variants[name];
  const base = name === 'qwen3_o200k' ? 'qwen3' : v ? v.base : name;
  const raw = base.startsWith('real_') ? readTokenizer(base) : fs.readFileSync(path.join(cache, 'tokenizers', base, 'tokenizer.json'), 'utf8');
  if (v) {
    const json = JSON.parse(raw);
    Object.assign(json, v.set);
    if (v.set_model) Object.assign(json.model, v.set_model);
    json.added_tokens = [...json.added_tokens, ...v.added_tokens];
    return JSON.stringify(json);
  }
  if (base === name) return raw;
  const from = JSON.stringify(qwenRegex), to = JSON.stringify(o200kRegex);
  if (!raw.includes(from)) throw new Error('Qwen3 regex not found in its tokenizer.json');
  return raw.replace(from, to);
}
const reference = '@anush008/tokenizers ' + require('@anush008/tokenizers/package.json').version;

function writeGz(file, data) {
  fs.writeFileSync(path.join(out, file), zlib.gzipSync(Buffer.from(data), { level: 9 }));
}

async function encodeAll(tok, texts, addSpecialTokens = false) {
  const res = [];
  for (const t of texts) res.push((await tok.encode(t, null, { addSpecialTokens })).getIds());
  return res;
}

// randomIDs mixes ids of single bytes of multi-byte characters, ordinary tokens and added tokens.
function randomIDs(tok, json, seed) {
  const r = rng(seed), added = json.added_tokens.map(a => a.id), vocab = Object.keys(json.model.vocab).length;
  if (added.length === 0) added.push(0);
  const bytes = ['Ã', 'ä', '½', 'ł', 'Ġ', 'a', 'ï', '¼', 'Ł', 'ð', 'Ł', 'ĺ', 'Ģ', '<0xE4>', '<0xBD>', '<0xA0>', '<0xF0>',
    '<0x9F>', '<0x98>', '<0x80>', '<0xFF>', '<0x41>', '<0x0A>', '\u2581', '\u2581\u2581', '\u2581the', '\u2581a']
    .map(s => tok.tokenToId(s)).filter(x => x != null);
  const seqs = [];
  for (let i = 0; i < 60; i++) {
    const n = 1 + Math.floor(r() * 12), seq = [];
    for (let j = 0; j < n; j++) {
      const k = r();
      if (k < 0.45) seq.push(bytes[Math.floor(r() * bytes.length)]);
      else if (k < 0.7) seq.push(added[Math.floor(r() * added.length)]);
      else seq.push(Math.floor(r() * vocab));
    }
    seqs.push(seq);
  }
  return seqs;
}

// speed times the reference on the bench text two ways, single-threaded: one encode of the
// whole text, and encodeBatch of its lines (one call, no per-call overhead). The faster is the
// figure EdgeChat's BenchmarkEncode must reach. Besides wall time it reports MB per CPU
// second of the process, which a busy machine disturbs less.
async function speed(tok, text, runs) {
  const lines = text.split('\n');
  const ways = {
    whole: () => tok.encode(text, null, { addSpecialTokens: false }),
    lines: () => tok.encodeBatch(lines, { addSpecialTokens: false }),
  };
  const res = {};
  for (const [way, f] of Object.entries(ways)) {
    await f(); // warm up
    const times = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      await f();
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const cpu = process.cpuUsage(cpu0), cpuSeconds = (cpu.user + cpu.system) / 1e6;
    times.sort((a, b) => a - b);
    const mb = Buffer.byteLength(text) / 1e6, median = times[Math.floor(times.length / 2)];
    res[way] = { seconds_median: median, mb_per_s: mb / median, mb_per_s_best: mb / times[0],
      mb_per_cpu_s: mb * runs / cpuSeconds };
  }
  return res;
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const texts = corpus();
  writeGz('corpus.json.gz', JSON.stringify(texts));
  const bench = benchText();
  writeGz('bench.txt.gz', bench);
  const nospace = noSpaceText();
  writeGz('bench_nospace.txt.gz', nospace);
  fs.writeFileSync(path.join(out, 'variants.json'), JSON.stringify(variants, null, 1) + '\n');
  const speedFile = path.join(out, 'reference_speed.json');
  const speeds = only && fs.existsSync(speedFile) ? JSON.parse(fs.readFileSync(speedFile, 'utf8')) : {};
  Object.assign(speeds, { reference, bench_bytes: Buffer.byteLength(bench), nospace_bytes: Buffer.byteLength(nospace), threads: 1 });
  for (const name of names) {
    if (only && !only.has(name)) continue;
    let raw = readTokenizer(name);
    const json = JSON.parse(raw);
    const sha256 = crypto.createHash('sha256').update(raw).digest('hex');
    if (json.truncation || json.padding) {
      // EdgeChat ignores them (the app sets its own): the reference runs without them too.
      json.truncation = null;
      json.padding = null;
      raw = JSON.stringify(json);
    }
    let full, loadMs = Infinity; // the best of three loads
    try {
      for (let i = 0; i < (skipSpeed ? 1 : 3); i++) {
        const t0 = process.hrtime.bigint();
        full = Tokenizer.fromString(raw);
        loadMs = Math.min(loadMs, Number(process.hrtime.bigint() - t0) / 1e6);
      }
    } catch (e) {
      // The reference refuses the file: so must EdgeChat.
      writeGz(`golden_${name}.json.gz`, JSON.stringify({ tokenizer: name, sha256, reference, load_error: String(e.message) }));
      console.log(name, 'refused by the reference:', e.message);
      continue;
    }
    const plainJSON = { ...json, added_tokens: [] };
    const plain = Tokenizer.fromString(JSON.stringify(plainJSON));

    // The corpus, then the variant's own texts.
    const all = [...texts, ...((variants[name] && variants[name].texts) || [])];
    const ids = await encodeAll(plain, all);
    const special = await encodeAll(full, all);
    const post = await encodeAll(full, all, true);
    const cases = [], pre = plain.getPreTokenizer(), norm = plain.getNormalizer();
    for (let i = 0; i < all.length; i++) {
      const normalized = norm ? norm.normalizeString(all[i]) : all[i];
      // To keep the files small, a field equal to its default is left out: special defaults
      // to ids, post to special, decoded to the text, decoded_skip to decoded.
      const c = { ids: ids[i] };
      if (pre) c.pieces = pre.preTokenizeString(normalized).map(p => p[0]);
      if (JSON.stringify(special[i]) !== JSON.stringify(ids[i])) c.special = special[i];
      if (JSON.stringify(post[i]) !== JSON.stringify(special[i])) c.post = post[i];
      const decoded = await full.decode(special[i], false), skip = await full.decode(special[i], true);
      if (decoded !== all[i]) c.decoded = decoded;
      if (skip !== decoded) c.decoded_skip = skip;
      cases.push(c);
    }
    // Pairs of consecutive corpus strings, with special tokens: ids and token type ids.
    const pairs = [];
    for (let i = 0; i + 1 < Math.min(texts.length, 120); i += 2) {
      const e = await full.encode(texts[i], texts[i + 1], { addSpecialTokens: true });
      pairs.push({ a: i, ids: e.getIds(), type_ids: e.getTypeIds() });
    }
    const decodes = [];
    for (const seq of randomIDs(full, json, 99)) {
      decodes.push({ ids: seq, text: await full.decode(seq, false), text_skip: await full.decode(seq, true) });
    }
    writeGz(`golden_${name}.json.gz`, JSON.stringify({ tokenizer: name, sha256, reference, cases, pairs, decodes }));
    if (skipSpeed || name === 'qwen3_o200k' || variants[name] || name === 'stories260k' ||
      name.startsWith('real_') && !timedReal.has(name)) continue;
    speeds[name] = { load_ms: loadMs, encode: await speed(plain, bench, 5) };
    if (spNames.has(name)) speeds[name].nospace = (await speed(plain, nospace, 5)).whole;
    console.log(name, JSON.stringify(speeds[name]));
  }
  // The real files' pipelines with a tiny vocabulary, seeds of tokenizer/FuzzParse.
  const seeds = {};
  for (const name of real) {
    const json = JSON.parse(readTokenizer('real_' + name));
    if (json.normalizer && JSON.stringify(json.normalizer).includes('precompiled_charsmap')) json.normalizer = { type: 'NFKC' };
    const unigram = Array.isArray(json.model.vocab);
    json.model.vocab = unigram ? [['<unk>', 0], ['a', -1.5], ['ab', -2.25], ['\u2581', -3]] : { a: 0, b: 1, ab: 2, '<unk>': 3, '[UNK]': 4 };
    if (unigram) json.model.unk_id = 0; else json.model.merges = ['a b'];
    json.added_tokens = [{ id: 5, content: '<x>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }];
    if (json.post_processor && json.post_processor.special_tokens) {
      for (const [k, v] of Object.entries(json.post_processor.special_tokens)) v.ids = v.ids.map(() => 0);
    }
    seeds[name] = json;
  }
  fs.writeFileSync(path.join(out, 'fuzz_pipelines.json'), JSON.stringify(seeds, null, 1) + '\n');
  if (!skipSpeed) fs.writeFileSync(speedFile, JSON.stringify(speeds, null, 2) + '\n');
}

main().catch(e => { console.error(e); process.exit(1); });
