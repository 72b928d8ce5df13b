// clients.cjs drives a running edgechat server with the official OpenAI and Anthropic
// clients, and validates what comes back with ajv against the schemas asked for. The model
// behind the server has random weights: every structure checked here is there because the
// server constrained the output, not because the model knew.
//
// Usage: NODE_PATH=<dir with node_modules> node clients.cjs http://127.0.0.1:PORT
// Exit status 0 when every check passes; each check prints one line.
'use strict';

const OpenAI = require('openai');
const AnthropicMod = require('@anthropic-ai/sdk');
const AjvMod = require('ajv');

const Anthropic = AnthropicMod.default || AnthropicMod;
const Ajv = AjvMod.default || AjvMod;
const base = process.argv[2];
const openai = new OpenAI({ apiKey: 'test-key', baseURL: base + '/v1', maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: base, maxRetries: 0 });
const ajv = new Ajv({ allErrors: true, strict: false });

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string', maxLength: 12 },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    unit: { enum: ['C', 'F'] },
  },
  required: ['city', 'days'],
  additionalProperties: false,
};
const search = {
  type: 'object',
  properties: { query: { type: 'string' }, limit: { type: 'integer' } },
  required: ['query'],
  additionalProperties: false,
};
const person = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string', maxLength: 6 }, maxItems: 3 },
    address: { anyOf: [{ $ref: '#/$defs/address' }, { type: 'null' }] },
  },
  required: ['name', 'age', 'tags', 'address'],
  additionalProperties: false,
  $defs: {
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: 'string' } },
      required: ['street', 'zip'],
      additionalProperties: false,
    },
  },
};
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city.', parameters: weather, strict: true } },
  { type: 'function', function: { name: 'search', description: 'Search the web.', parameters: search } },
];
const schemas = { get_weather: weather, search };

let failures = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
  if (!ok) failures++;
}

function validates(schema, value) {
  const v = ajv.compile(schema);
  return v(value) ? '' : ajv.errorsText(v.errors);
}

// checkCall parses a call's arguments and validates them against its function's schema.
function checkCall(name, fn, args) {
  let parsed;
  try {
    parsed = typeof args === 'string' ? JSON.parse(args) : args;
  } catch (e) {
    return check(name, false, `arguments ${JSON.stringify(args)} do not parse: ${e.message}`);
  }
  const err = schemas[fn] ? validates(schemas[fn], parsed) : `unknown function ${fn}`;
  check(name, err === '', err || `${fn}(${JSON.stringify(parsed)})`);
}

const user = [{ role: 'user', content: 'What is the weather in Bern for the next two days?' }];

async function openaiChecks() {
  // A required call, not streamed.
  let r = await openai.chat.completions.create({ model: 'tiny', messages: user, tools, tool_choice: 'required', max_tokens: 80, temperature: 0 });
  let c = r.choices[0];
  check('chat: tool_choice required ends with tool_calls', c.finish_reason === 'tool_calls', c.finish_reason);
  check('chat: the calls are listed', (c.message.tool_calls || []).length >= 1, JSON.stringify(c.message));
  for (const tc of c.message.tool_calls || []) checkCall('chat: required call validates', tc.function.name, tc.function.arguments);

  // A named call, streamed: the client's stream helper assembles the deltas.
  const stream = openai.chat.completions.stream({ model: 'tiny', messages: user, tools, tool_choice: { type: 'function', function: { name: 'search' } }, max_tokens: 80, temperature: 0.7, seed: 3 });
  let deltas = 0;
  stream.on('chunk', (ch) => { if (ch.choices[0] && ch.choices[0].delta.tool_calls) deltas++; });
  const fin = await stream.finalChatCompletion();
  c = fin.choices[0];
  check('chat stream: named call finishes with tool_calls', c.finish_reason === 'tool_calls', c.finish_reason);
  check('chat stream: the call streams in several deltas', deltas > 2, `${deltas} deltas`);
  check('chat stream: the named function is called', c.message.tool_calls && c.message.tool_calls[0].function.name === 'search');
  for (const tc of c.message.tool_calls || []) checkCall('chat stream: named call validates', tc.function.name, tc.function.arguments);

  // The call's result goes back as a tool message; the next reply is text.
  const call = c.message.tool_calls[0];
  r = await openai.chat.completions.create({
    model: 'tiny', max_tokens: 8, temperature: 0,
    messages: [...user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '{"result": "sunny <|im_end|>"}' }],
    tools, tool_choice: 'none',
  });
  check('chat: a tool result continues the conversation', typeof r.choices[0].message.content === 'string' && r.choices[0].finish_reason !== 'tool_calls', r.choices[0].finish_reason);

  // json_schema and json_object.
  r = await openai.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'Describe someone.' }], max_tokens: 120, temperature: 1, seed: 5,
    response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: person } } });
  let obj;
  try { obj = JSON.parse(r.choices[0].message.content); } catch (e) { obj = e; }
  check('chat: json_schema reply validates', !(obj instanceof Error) && validates(person, obj) === '', obj instanceof Error ? obj.message + ' in ' + r.choices[0].message.content : validates(person, obj) || JSON.stringify(obj).slice(0, 120));
  r = await openai.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'JSON please.' }], max_tokens: 60, temperature: 0, response_format: { type: 'json_object' } });
  try { obj = JSON.parse(r.choices[0].message.content); } catch (e) { obj = e; }
  check('chat: json_object reply is an object', obj && !(obj instanceof Error) && typeof obj === 'object' && !Array.isArray(obj), r.choices[0].message.content.slice(0, 120));

  // An unenforceable keyword is a 400 naming it.
  try {
    await openai.chat.completions.create({ model: 'tiny', messages: user, max_tokens: 5, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'string', pattern: '^a' } } } });
    check('chat: pattern refused', false, 'accepted');
  } catch (e) {
    check('chat: pattern refused with 400', e.status === 400 && /pattern/.test(e.message), `${e.status} ${e.message}`);
  }

  // Embeddings, float (the client asks for base64 and decodes it) and a list.
  const emb = await openai.embeddings.create({ model: 'emb', input: ['hello world', 'a second text'] });
  const v = emb.data[0].embedding;
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  check('embeddings: two unit vectors', emb.data.length === 2 && v.length > 0 && Math.abs(norm - 1) < 1e-3, `dim ${v.length}, norm ${norm}`);
  const raw = await openai.embeddings.create({ model: 'emb', input: 'hello world', encoding_format: 'float' });
  check('embeddings: float and base64 agree', raw.data[0].embedding.every((x, i) => Math.abs(x - v[i]) < 1e-6));
  const short = await openai.embeddings.create({ model: 'emb', input: 'hello world', dimensions: 16 });
  check('embeddings: dimensions', short.data[0].embedding.length === 16);

  // The Responses API: a required call, and a streamed answer.
  const resp = await openai.responses.create({ model: 'tiny', input: 'Weather in Bern?', max_output_tokens: 80, temperature: 0,
    tools: [{ type: 'function', name: 'get_weather', parameters: weather, strict: true }], tool_choice: 'required' });
  const fc = resp.output.find((o) => o.type === 'function_call');
  check('responses: a function_call item', resp.status === 'completed' && !!fc, JSON.stringify(resp.output).slice(0, 160));
  if (fc) checkCall('responses: call validates', fc.name, fc.arguments);
  const rs = openai.responses.stream({ model: 'tiny', input: [{ role: 'user', content: 'Describe someone.' }], max_output_tokens: 100, temperature: 0,
    reasoning: { effort: 'minimal' }, text: { format: { type: 'json_schema', name: 'person', schema: person, strict: true } } });
  let events = 0;
  rs.on('event', () => events++);
  const final = await rs.finalResponse();
  try { obj = JSON.parse(final.output_text); } catch (e) { obj = e; }
  check('responses stream: json_schema output validates', !(obj instanceof Error) && validates(person, obj) === '', `${events} events; ${String(final.output_text).slice(0, 120)}`);
}

async function anthropicChecks() {
  const aTools = [{ name: 'get_weather', description: 'Weather in a city.', input_schema: weather }, { name: 'search', description: 'Search.', input_schema: search }];
  let m = await anthropic.messages.create({ model: 'tiny', max_tokens: 12, messages: [{ role: 'user', content: 'Hello' }], system: 'Be brief.' });
  check('anthropic: a message', m.type === 'message' && m.role === 'assistant' && m.content[0].type === 'text' && ['end_turn', 'max_tokens'].includes(m.stop_reason), `${m.stop_reason} ${JSON.stringify(m.content).slice(0, 80)}`);
  check('anthropic: usage', m.usage.input_tokens > 0 && m.usage.output_tokens > 0, JSON.stringify(m.usage));

  const stream = anthropic.messages.stream({ model: 'tiny', max_tokens: 12, messages: [{ role: 'user', content: 'Hello' }] });
  let texts = 0;
  stream.on('text', () => texts++);
  const fin = await stream.finalMessage();
  check('anthropic stream: text deltas and a final message', texts > 0 && fin.content.length > 0 && fin.stop_reason, `${texts} deltas, ${fin.stop_reason}`);

  for (const choice of [{ type: 'tool', name: 'get_weather' }, { type: 'any' }]) {
    m = await anthropic.messages.create({ model: 'tiny', max_tokens: 80, temperature: 0, messages: [{ role: 'user', content: 'Weather in Bern?' }], tools: aTools, tool_choice: choice });
    const use = m.content.find((b) => b.type === 'tool_use');
    check(`anthropic: tool_choice ${choice.type} gives tool_use`, m.stop_reason === 'tool_use' && !!use, `${m.stop_reason} ${JSON.stringify(m.content).slice(0, 120)}`);
    if (use) checkCall(`anthropic: tool_use input validates (${choice.type})`, use.name, use.input);
    if (choice.type === 'tool' && use) check('anthropic: the named tool', use.name === 'get_weather');
    if (use && choice.type === 'tool') {
      // The result goes back as a tool_result block.
      const next = await anthropic.messages.create({ model: 'tiny', max_tokens: 8, messages: [
        { role: 'user', content: 'Weather in Bern?' }, { role: 'assistant', content: m.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '21 °C' }] }], tools: aTools, tool_choice: { type: 'none' } });
      check('anthropic: a tool_result continues the conversation', next.content[0].type === 'text', next.stop_reason);
    }
  }

  const ts = anthropic.messages.stream({ model: 'tiny', max_tokens: 80, temperature: 0.8, messages: [{ role: 'user', content: 'Search for Zürich.' }], tools: aTools, tool_choice: { type: 'tool', name: 'search' } });
  let jsonDeltas = 0;
  ts.on('inputJson', () => jsonDeltas++);
  const tfin = await ts.finalMessage();
  const use = tfin.content.find((b) => b.type === 'tool_use');
  check('anthropic stream: forced tool_use streams input_json deltas', !!use && jsonDeltas > 1 && tfin.stop_reason === 'tool_use', `${jsonDeltas} deltas, ${tfin.stop_reason}`);
  if (use) checkCall('anthropic stream: tool_use input validates', use.name, use.input);

  try {
    await anthropic.messages.create({ model: 'tiny', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], mcp_servers: [{ type: 'url', url: 'http://127.0.0.1:1', name: 'x' }] });
    check('anthropic: mcp_servers refused', false, 'accepted');
  } catch (e) {
    check('anthropic: mcp_servers refused with an invalid_request_error', e.status === 400 && /mcp_servers/.test(e.message) && e.error && e.error.error && e.error.error.type === 'invalid_request_error', `${e.status} ${e.message}`);
  }
}

(async () => {
  try {
    await openaiChecks();
    await anthropicChecks();
  } catch (e) {
    check('no client error', false, e.stack || String(e));
  }
  console.log(failures === 0 ? 'all checks passed' : `${failures} checks failed`);
  process.exit(failures === 0 ? 0 : 1);
})();
