// corpus.js builds the golden-test corpus for EdgeChat's tokenizer: several hundred strings
// covering scripts, emoji, code, whitespace, numbers, contractions, control characters,
// combining marks, long repeats and special-token strings, plus seeded random mixes.
'use strict';

// mulberry32: a small seeded PRNG so the corpus is the same on every run.
function rng(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const prose = [
  'Hello, world! 你好 <|im_start|>user',
  'Hello, world! 你好 <|im_start|>user\n',
  '', ' ', 'a', 'The quick brown fox jumps over the lazy dog.',
  'It was the best of times, it was the worst of times, it was the age of wisdom...',
  'Mr. O\'Neil\'s "quoted" text — with an em dash – and an en dash; semicolons: colons!',
  'E-mail me at john.doe+test@example.com or visit https://example.org/path?q=1&r=2#frag.',
  'HELLO WORLD in ALL CAPS, CamelCaseWords, snake_case_words and kebab-case-words.',
  'Prices: $5.99, €10,00, £3, ¥500, ₹1,200 and 50% off!!!',
  '¿Dónde está la biblioteca? ¡Olé! Ça va très bien, merci. Größe, Straße, Ærøskøbing.',
  'Tiếng Việt có dấu: Người ta thường nói rằng học, học nữa, học mãi.',
  'Ελληνικά: Καλημέρα κόσμε. Русский: Привет, мир! Съешь же ещё этих мягких французских булок.',
  'Українська: Гей, ми тут! Български: Здравей, свят. Қазақша: Сәлем әлем.',
  '中文：今天天气很好，我们去公园散步吧。人工智能正在改变世界。',
  '繁體中文：這是一個測試句子，包含標點符號「引號」和（括號）。',
  '日本語：今日はいい天気ですね。カタカナとひらがなと漢字が混ざっています。ｶﾀｶﾅ半角。',
  '한국어: 안녕하세요, 세계! 오늘은 날씨가 좋네요. ㅋㅋㅋ ㅎㅎ',
  'العربية: مرحبا بالعالم! هذا نص تجريبي باللغة العربية. ١٢٣٤٥٦٧٨٩٠',
  'العَرَبِيَّة مع التشكيل: بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ',
  'עברית: שלום עולם! זהו טקסט לבדיקה.',
  'हिन्दी: नमस्ते दुनिया! यह एक परीक्षण वाक्य है। ०१२३४५६७८९',
  'বাংলা: হ্যালো বিশ্ব। தமிழ்: வணக்கம் உலகம். తెలుగు: హలో ప్రపంచం.',
  'ภาษาไทย: สวัสดีชาวโลก ทดสอบการตัดคำ', 'ქართული: გამარჯობა მსოფლიო', 'Հայերեն: Բարեւ աշխարհ',
  'አማርኛ: ሰላም ልዑል', 'ᠮᠣᠩᠭᠣᠯ', 'ᚠᚢᚦᚨᚱᚲ runes', '𝐁𝐨𝐥𝐝 𝑰𝒕𝒂𝒍𝒊𝒄 𝔉𝔯𝔞𝔨𝔱𝔲𝔯 𝕯𝖔𝖚𝖇𝖑𝖊',
  'Ｆｕｌｌｗｉｄｔｈ　ｔｅｘｔ　１２３！', 'Mixed 中文 and English 単語 in one 문장.',
  'ﬁ ﬂ ﬀ ligatures, ℌ ℍ ℕ ℙ letterlike, Ⅻ roman, ½ ¾ ⅞ fractions, x² y³ superscripts, H₂O',
  '数学: ∀x∈ℝ, ∃y: x²+y²=1 ⇒ ∫₀¹ f(x)dx ≤ ∑ᵢ aᵢ ≠ ∞ ± √2 ≈ 1.414',
];

const contractions = [];
for (const base of ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]) {
  const up = base.toUpperCase();
  const mixed = base.length > 2 ? base[0] + base[1].toUpperCase() + base.slice(2) : up;
  for (const c of [base, up, mixed]) contractions.push('it' + c, 'IT' + c + ' there', c + 'x', ' ' + c);
}
contractions.push("don't DON'T Don'T can't won't shouldn't've y'all'd've", "'ſ 'ſx it'ſ Iſ",
  "'Kx 'K", "rock 'n' roll", "''s '''", "' s", "’s ’re it’s", "she said 'hello' and 'bye'",
  "O'Reilly's", "'123", "'\n", "'s's's's", "l'été d'accord aujourd'hui", "'LL'VE'RE",
  // Letter case runs (GPT-4o style splits upper and lower runs apart).
  'HelloWorld iPhone McDONALD\'s XMLHttpRequest ABCdef abcDEF', 'ǅemal ǈubljana ῼ', 'ΣΊΣΥΦΟΣ σίσυφος Σίσυφος',
  'ʰʲʷ ˢᵘᵖ modifier ᴬᴮ', 'ÀÉÎõü Ǆ ǆ', 'DŽemal', 'ABC\u0301def', 'a\u0301B\u0301c', '中文ABC中文abc', 'ÉCOLE\'S école\'s',
  'path/to/file/ x//y // comment\n/', '!!/\r\n/', 'x/\n', 'ΑΒΓαβγ', 'ᏣᎳᎩ ꭰꭱ');

const code = [
  'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("Hello, 世界")\n}\n',
  'def fib(n: int) -> int:\n    """Return the n-th Fibonacci number."""\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n',
  'const add = (a, b) => a + b;\nconsole.log(`sum=${add(1, 2)}`); // => 3\n',
  'fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!("{:?}", v);\n}\n',
  '#include <stdio.h>\nint main(void) {\r\n  printf("%d\\n", 42);\r\n  return 0;\r\n}\r\n',
  '<!DOCTYPE html>\n<html><head><title>Test</title></head>\n<body class="main">&nbsp;&amp;</body></html>',
  '{"key": "value", "list": [1, 2.5, -3e10, true, null], "nested": {"a": {}}}',
  'SELECT id, name FROM users WHERE age >= 18 AND name LIKE \'%son\' ORDER BY id DESC;',
  '#!/bin/bash\nfor f in *.txt; do\n  echo "$f" | tr \'a-z\' \'A-Z\' >> out.log 2>&1\ndone\n',
  'public class Foo<T extends Comparable<T>> {\n\tprivate final Map<String, List<T>> m = new HashMap<>();\n}',
  'x = [i**2 for i in range(10) if i % 2 == 0]  # squares\nprint(f"{x!r:>20}")',
  '    indented four\n        indented eight\n\t\ttabbed twice\n  \t mixed',
  'a+=1;b-=2;c*=3;d/=4;e%=5;f<<=6;g>>=7;h&&i||!j;k?l:m;n->o;p::q;r...s',
  'diff --git a/x b/x\n@@ -1,3 +1,3 @@\n-old line\n+new line\n context\n',
  '| col1 | col2 |\n|------|------|\n| 1    | 2    |\n', '```python\nprint("hi")\n```',
  'C:\\Users\\me\\Documents\\file.txt and /usr/local/bin/go', '0x1F 0b1010 0o777 1_000_000 3.14e-10 1e+9',
];

const whitespace = [];
for (const w of [' ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u3000', '\u2028', '\u0085', '\u000b', '\u000c', '\u2003', '\u200b', '\ufeff']) {
  for (const n of [1, 2, 3, 7]) {
    const run = w.repeat(n);
    whitespace.push(run, 'a' + run + 'b', run + 'word', 'word' + run, '!' + run + '!', '1' + run + '2', run + '中');
  }
}
whitespace.push(' \n ', '\n \n', ' \t\n', '\t\t\n\n  x', 'a \n\n b', '  \r\n  \r\n  ', 'line1\r\nline2\r\n\r\nline4',
  '\n\n\n\n', '    ', 'end with spaces   ', '   start with spaces', ' \u00a0 x', 'a\u3000\u3000b', '\r\r\n\n\r',
  'tab\tseparated\tvalues\n1\t2\t3', ' !', '  !', ' !!', '  !!\n\n', ' \n!', 'x \n', 'x  \n  y');

const numbers = ['1', '12', '123', '1234', '12345', '123456', '1234567', '12345678901234567890', '3.14159',
  '1,000,000', '-42', '+7', '007', '2024-06-01', '12:34:56', 'v1.2.3', 'abc123def', '123abc', '1a2b3c',
  '½', '²³', 'Ⅻ', '٠١٢٣٤٥', '１２３４', '०१२३४', '໑໒໓', '𝟙𝟚𝟛', '①②③', '1️⃣2️⃣', '9' + '٩' + '९' + '1',
  'The year 1999 had 365 days and 8760 hours.', 'π≈3.1415926535897932384626433832795028841971'];

const emoji = ['😀', '😀😃😄', '👍🏽', '👍🏻👍🏼👍🏽👍🏾👍🏿', '👨‍👩‍👧‍👦', '👩‍💻 coding', '🏳️‍🌈', '🇺🇸🇫🇷🇯🇵', '🇺',
  '❤️', '❤', '✌️✌🏿', '🧑🏽‍🚀', '🫠🫶🪿', 'text😀text', ' 😀 ', '😀\n😀', '#️⃣*️⃣', '©️®️™️', '👁️‍🗨️',
  '🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland', 'I ❤️ NY 🗽', '\u200d', 'a\u200db', '😀\u200d', '\u200d😀', 'emoji! 🎉🎉🎉 party'];

const controls = [];
for (let c = 0; c < 32; c++) controls.push('a' + String.fromCharCode(c) + 'b');
controls.push('\u007f', '\u0000\u0000', 'x\u0001\u0002\u0003y', '\u001b[31mred\u001b[0m', '\u0080\u0081\u009f',
  '\u200e\u200f rtl marks', '\u2060\u2066\u2069', '\ue000 private use \uf8ff', 'a\u0000', '\u0000 ');

const combining = ['e\u0301', 'cafe\u0301', 'a\u0308o\u0308u\u0308', 'n\u0303', 'A\u030a', '\u212b', '\u212a',
  '\u2126', '\u0301', '\u0301a', ' \u0301', 'e\u0301\u0301\u0301', 'Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u036b\u0357\u0334\u0362\u0335\u031c\u0330\u0354L\u0368\u0367\u0369\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354\u0339O\u0342\u030c\u030c\u0358\u0328\u0335\u0339\u033b\u031d\u0333',
  '\u1100\u1161\u11a8', '\u1112\u1161\u11ab\u1100\u1173\u11af', 'ṩ', 's\u0323\u0307', 's\u0307\u0323',
  'ệ', 'e\u0323\u0302', '\u0915\u093c', '\u0958', 'ﬁ', 'Ǆ', '\u0041\u030a\u0301', 'i\u0307', '\u05d1\u05bc',
  '1\u0301', '!\u0301', '中\u0301', '😀\u0301', '\u3099', 'か\u3099', 'ハ\u309a', 'ᄀ\u1161',
  // Runs of more than 30 marks: the reference's NFC has no stream-safe limit.
  'a' + '\u0323\u0301'.repeat(20), 'e' + '\u0301'.repeat(35), 'o' + '\u0302\u0323'.repeat(18) + ' ok',
  '\u1100\u1161' + '\u0301'.repeat(31), '\u0f73'.repeat(20), '\u1f82'.repeat(12) + 'x', 'A' + '\u030a\u0323'.repeat(16) + '\u0301'];

const longs = ['a'.repeat(1000), 'ab'.repeat(500), ' '.repeat(1000), '\n'.repeat(200), '😀'.repeat(100),
  '的'.repeat(500), '1'.repeat(100), '!'.repeat(300), 'lorem ipsum dolor sit amet '.repeat(20),
  'x'.repeat(5000), 'ﬃ'.repeat(50), '\t'.repeat(64) + 'x', 'ア'.repeat(200), 'AbCdEfGhIj'.repeat(30),
  'SGVsbG8gd29ybGQhIFRoaXMgaXMgYmFzZTY0IGVuY29kZWQgdGV4dC4='.repeat(10), '-='.repeat(200), '\u0301'.repeat(50)];

const specials = ['<|im_start|>', '<|im_end|>', '<|endoftext|>', '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  'text<|endoftext|>more', '<think>\n\n</think>\n\n', '<tool_call>{"name": "f"}</tool_call>', '<|im_start', '<|im_start|',
  '<<|im_end|>>', '<|im_start|><|im_start|>', ' <|im_end|> ', 'a<|im_end|>b', '<|IM_END|>', '< |im_end| >',
  '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>', '<|reserved_special_token_5|>',
  '<|end_of_text|>', '<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜>', '<｜end▁of▁sentence｜>', '<｜tool▁sep｜>',
  '<｜fim▁hole｜>x<｜fim▁begin｜>', '▁｜', 'e\u0301<|im_end|>\u0301', '<|fim_prefix|>def f():<|fim_suffix|><|fim_middle|>',
  '<|vision_start|><|image_pad|><|vision_end|>', '</think>', '<think>', '<thinking>', '<|eot_id|><|eom_id|>'];

// SentencePiece-style tokenizers: their special tokens and look-alikes, the meta space, literal
// byte tokens, characters that need byte fallback, whitespace around tokens that strip it.
const sentencepiece = ['<s>', '</s>', '<unk>', '<s>Hello</s>', ' <s> ', 'a<s>b', '<s><s>', '<S>', '< s>', '<s', 's>',
  '<bos>', '<eos>', '<pad>', '<bos>Hi<eos>', '<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n',
  '<start_of_turn>', '<end_of_turn>', '<start_of_image>', '<start_of_turn>model', ' <end_of_turn> ',
  '<|user|>\nHello<|end|>\n<|assistant|>\n', '<|user|>   \n\n  x', '<|system|>\tsys<|end|>\n', '<|end|>', 'x<|end|>y',
  '<|assistant|>', '<|endoftext|>', '<|user|><|user|>', '  <|user|>  ', '<|placeholder1|>',
  '[INST] Hi [/INST]', '<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello </s><s>[INST] More [/INST]',
  '▁', '▁▁', '▁the', 'the▁cat', ' ▁ ', '▁\n▁', '<0x41>', '<0x0A>', '<0xFF><0xFE>', '<0x>',
  '\u{10FFFD}', '\u{E0100}', '\u{1D11E}', '\u{2FFFF}', '\u{F0000}x', '\uFFFD', '\uFFFF', '\u{1F9CC}\u{1FAE8}', '𐍈𐌰𐌹',
  'ꙮ', '𓀀𓀁', '🜁', '\u0378', 'x\u{E0001}y', 'Ǆ\u{10FFFF}',
  '<mask>', 'a <mask> b', 'a  <mask>', '<mask>  a', '[WORD]', 'a[WORD]b', 'a [WORD] b', '[WORD]a', '-[WORD]-', '_[WORD]',
  'foo bar', 'foo  bar', 'xfoo barx', ' foo bar ', 'foo▁bar', '<tab>', 'a <tab> b', ' \n<tab>\n ',
  '<div>', '<table>', '</p>', '<h1>Title</h1>\n<p>Text</p>', '\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n',
  '\t\t\t\t', '                                                  x', 'Once upon a time', 'Once upon a time, there was a little girl named Lily.'];

// Strings for the other families: BERT's and T5's special tokens, cased and accented words
// (lower-casing, accent stripping), CJK next to Latin (BERT's Chinese-character spacing),
// control characters, CLIP's and Florence's tokens.
const families = ['[CLS] hello world [SEP]', '[MASK]', 'Paris is the [MASK] of France.', '[UNK] [PAD] [SEP]', 'a[SEP]b',
  '<pad></s><unk>', 'translate English to German: The house is wonderful.', '</s>', '▁hello ▁ world', '<mask>',
  'Hello <mask>!', '<|startoftext|>a photo of a cat<|endoftext|>', '<loc_0><loc_999>', 'ÀÉÎÕÜ CAFÉ naïve Ångström',
  'İstanbul İİ ıi', 'ǅ ǈ ǋ Σ ς σ ΣΑΣ', 'straße STRASSE ﬀ ﬃ', '汉字and漢字mixed中文English', '한국어English日本語',
  'x\u0000y\u0001z\u007f\u0085\u00ad\u200b', 'tab\tnew\nline\r\nend', "can't won't it's I'm you're we've they'll he'd",
  'e-mail: a.b@c.de, url: http://x.y/z?q=1', '  leading and   multiple   spaces  ', '123 4567 89012 3.14 1,000',
  'Über naïve façade coöperate résumé', 'ＡＢＣ　全角', '①②③ ⅠⅡⅢ ¼½¾ ²³', 'Ǆ Ǉ Ǌ', '\u212b\u2126\u212a', 'ß ẞ',
  'ﬁﬂ ﬅ', 'ℌ𝔥 ⅈ', 'a\u0301\u0327 e\u0328\u0301', '한\u1100\u1161\u11a8', '👍🏽 family 👨\u200d👩\u200d👧', '\u00a0\u2007\u202f'];

// Seeded random mixes over an alphabet of characters that sit on the regexes' edges.
const alphabet = [' ', ' ', ' ', '\t', '\n', '\r', '\r\n', 'a', 'Z', 'é', 'ſ', "'", "'", '1', '٣', '½', '!', '.', '$',
  '😀', '\u200d', '\u0301', '你', 'あ', 'ア', '한', 'ж', '\u00a0', '\u3000', '\u000b', '\u0001', '-', 'L', 's', 't',
  'e', 'r', 'l', 'v', 'd', 'm', 'S', 'T', 'E', 'R', 'V', 'D', 'M', '<', '|', '>', 'x', '_', '\u2028', '\u0085', '\ufeff',
  'Ⅻ', '¹', '٠', '\u064b', 'ـ', '<|im_end|>', '<|eot_id|>', '<｜User｜>', '🏽', '🇺', 'ﬁ', '\u1100', '\u1161', '9',
  '9', '123', 'word', ' the', '中文', '\u0915', '\u093f', '`', '~', '@', '\\', '"', '(', ')', '[', ']', '{', '}'];

function randomMixes(count, seed) {
  const r = rng(seed), out = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(r() * 24);
    let s = '';
    for (let j = 0; j < n; j++) s += alphabet[Math.floor(r() * alphabet.length)];
    out.push(s);
  }
  return out;
}

// randomCodepoints mixes characters from all over Unicode (astral planes, scripts added in
// every version) with regex-edge characters; half of them are marks and composable letters
// when marks is true, to exercise NFC.
function randomCodepoints(count, seed, marks) {
  const r = rng(seed), out = [];
  const edge = [' ', '\t', '\n', '\r', "'", 's', 'S', 'ſ', 'l', 'L', 'e', 'A', 'a', '1', '/', '!', '$', '\u0301', '\u200d',
    '\u00a0', '\u3000'];
  const composing = ['\u0301', '\u0323', '\u0308', '\u0302', '\u0eba', '\u0d3b', '\u1df7', '\u0345', '\u05b0', '\u093c',
    '\u3099', '\u1161', '\u11a8', '\u1100', 'e', 'A', 'o', '\u00e9', '\u1ea1', '\u0f73', '\u0344', '\u212b', '\u0958',
    '\uac00', '\u0b47', '\u0b3e', '\u0d3e', '\u0d46', '\u1b05', '\u1b35', '\u0627', '\u0653', '\u0654', '\u0655'];
  const any = () => {
    const k = r();
    let cp;
    if (k < 0.5) return edge[Math.floor(r() * edge.length)];
    if (k < 0.8) cp = Math.floor(r() * 0x3000);
    else if (k < 0.9) cp = 0x3000 + Math.floor(r() * 0xcfff);
    else cp = 0x10000 + Math.floor(r() * 0x1ffff);
    if (cp >= 0xd800 && cp < 0xe000) cp = 0x41;
    return String.fromCodePoint(cp);
  };
  for (let i = 0; i < count; i++) {
    let s = '';
    const n = 1 + Math.floor(r() * 16);
    for (let j = 0; j < n; j++) s += marks && r() < 0.7 ? composing[Math.floor(r() * composing.length)] : any();
    out.push(s);
  }
  return out;
}

const spAlphabet = [' ', ' ', ' ', '  ', '\n', '\n\n', '\t', 'a', 'b', 'the', 'cat', '▁', '<s>', '</s>', '<|user|>',
  '<|end|>', '<|assistant|>', '<start_of_turn>', '<end_of_turn>', '<bos>', '[INST]', '<mask>', '[WORD]', 'foo bar', 'foo',
  '<tab>', '<div>', '<0x41>', '😀', 'é', 'e\u0301', '你好', '\u{1D11E}', '\u{10FFFD}', '\u0378', '_', '-', '.', 'Z'];

function randomSP(count, seed) {
  const r = rng(seed), out = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(r() * 16);
    let s = '';
    for (let j = 0; j < n; j++) s += spAlphabet[Math.floor(r() * spAlphabet.length)];
    out.push(s);
  }
  return out;
}

function corpus() {
  return [...prose, ...contractions, ...code, ...whitespace, ...numbers, ...emoji, ...controls, ...combining,
    ...longs, ...specials, ...families, ...randomMixes(300, 20240601), ...randomCodepoints(300, 12345, false),
    ...randomCodepoints(200, 54321, true), ...sentencepiece, ...randomSP(200, 777)];
}

// noSpaceText is a ~100 KB paragraph without spaces: with no pre-tokenizer (or one that
// splits only on spaces) it is a single BPE word.
function noSpaceText() {
  const r = rng(9), out = [];
  let size = 0;
  while (size < 100000) {
    const s = prose[Math.floor(r() * prose.length)].replace(/\s+/g, '');
    out.push(s);
    size += Buffer.byteLength(s);
  }
  return out.join('');
}

// benchText joins the corpus (without the long repeats) in a seeded order up to ~1 MB.
function benchText() {
  const parts = [...prose, ...contractions, ...code, ...whitespace, ...numbers, ...emoji, ...combining,
    ...randomMixes(300, 7)];
  const r = rng(42), out = [];
  let size = 0;
  while (size < 1000000) {
    const s = parts[Math.floor(r() * parts.length)];
    out.push(s);
    size += Buffer.byteLength(s) + 1;
  }
  return out.join('\n');
}

module.exports = { corpus, benchText, noSpaceText, rng };
