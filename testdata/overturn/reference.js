#!/usr/bin/env node
// An independent reference implementation of the Overturn fingerprint v1
// contract (the official fingerprint.ts and its vectors are not public),
// written from the contract text with JavaScript's own JSON.parse,
// String.prototype.trim, Number#toString and JSON.stringify. It writes the
// vectors that verify/fingerprint's tests walk.
//
// Regenerate (Node 20 or later; output is byte for byte reproducible):
//
//   node testdata/overturn/reference.js > testdata/overturn/vectors.jsonl
//
// Decisions shared with the Go dialect (see verify/canon/overturn.go):
//   - member names sorted by code point, as the contract says (not the
//     UTF-16 order of a bare .sort());
//   - a number that is not finite prints as null and is not dropped;
//   - member names are not trimmed;
//   - a declared matchOn, even [], selects; null counts as not declared;
//   - top-level null args print as null.
'use strict';

const crypto = require('node:crypto');

function compareCodePoints(a, b) {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return (x.done ? 0 : 1) - (y.done ? 0 : 1);
    const cx = x.value.codePointAt(0);
    const cy = y.value.codePointAt(0);
    if (cx !== cy) return cx - cy;
  }
}

function dropped(v) {
  return v === null || v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function canonicalJSON(v) {
  if (v === null || v === undefined) return 'null'; // only reachable at the top
  switch (typeof v) {
    case 'number':
      if (!Number.isFinite(v)) return 'null';
      if (Object.is(v, -0)) return '0';
      return String(v);
    case 'string':
      return JSON.stringify(v.trim());
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw new Error('unexpected ' + typeof v);
  }
  if (Array.isArray(v)) {
    return '[' + v.filter((x) => !dropped(x)).map(canonicalJSON).join(',') + ']';
  }
  const keys = Object.keys(v).filter((k) => !dropped(v[k])).sort(compareCodePoints);
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJSON(v[k])).join(',') + '}';
}

function select(args, tool) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const own = (k) => Object.prototype.hasOwnProperty.call(args, k);
  const out = Object.create(null); // "__proto__" stays an ordinary key
  if (tool.matchOn) {
    for (const k of tool.matchOn) if (own(k)) out[k] = args[k];
    return out;
  }
  if (tool.ignoreArgs) {
    for (const k of Object.keys(args)) if (!tool.ignoreArgs.includes(k)) out[k] = args[k];
    return out;
  }
  return args;
}

function vector(name, record) {
  const r = JSON.parse(record);
  const kind = r.kind ?? 'tool_call';
  const canonical = canonicalJSON(select(r.args, r));
  const fingerprint = crypto
    .createHash('sha256')
    .update(Buffer.from(kind + '\n' + r.name + '\n' + canonical, 'utf8'))
    .digest('hex');
  return { case: name, record, canonical, fingerprint };
}

// Each record is raw JSON text, so literals JSON.parse alters (duplicate
// names, 9007199254740993, 1e400, lone surrogates) reach both
// implementations as written.
const cases = [
  // The contract's three examples.
  ['contract-trim', String.raw`{"name":"signup","args":{ "email": " a@b.c ", "plan": "pro" }}`],
  ['contract-matchon', String.raw`{"name":"update_ticket","args":{"ticketId":"T-1","priority":"P0","requestId":"x"},"matchOn":["ticketId"]}`],
  ['contract-numbers', String.raw`{"name":"calc","args":{"a":1.0,"b":-0,"c":null}}`],
  // Trimming.
  ['trim-feff-3000', String.raw`{"name":"t","args":{"s":"\ufeff\u3000x y\u3000\ufeff"}}`],
  ['trim-whole-js-set', String.raw`{"name":"t","args":{"s":"\t\n\u000b\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeffmid\t\n\u000b\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"}}`],
  ['trim-keeps-0085-180e-200b', String.raw`{"name":"t","args":{"a":"\u0085x\u0085","b":"\u180ey\u180e","c":"\u200bz\u200b","d":"\u001fw\u001c"}}`],
  ['trim-to-empty', String.raw`{"name":"t","args":{"s":" \t\n\r\u3000 ","inner":"  a  b  "}}`],
  ['keys-not-trimmed', String.raw`{"name":"t","args":{" a ":1,"a":2,"\u3000b":3}}`],
  // Nulls.
  ['nulls-nested', String.raw`{"name":"t","args":{"a":[null,1,[null,null],{"b":null,"c":[null]}],"d":null,"e":{}}}`],
  ['top-level-null', String.raw`{"name":"t","args":null}`],
  ['array-of-nulls', String.raw`{"name":"t","args":[null,null]}`],
  // Numbers.
  ['int-beyond-2p53', String.raw`{"name":"t","args":{"n":9007199254740993,"m":-9007199254740993,"big":123456789012345678901234567890}}`],
  ['overflow-is-null-not-dropped', String.raw`{"name":"t","args":{"inf":1e400,"ninf":-1e400,"arr":[1,1e999,null,-1E400]}}`],
  ['es6-number-forms', String.raw`{"name":"t","args":[1e21,1e-7,0.00001,0.000001,1.5e300,100000000000000000000,123e-20,1E2,0.1,0.30000000000000004,5e-324,1.7976931348623157e308,2.5e-7,1e+0]}`],
  ['negative-zero-forms', String.raw`{"name":"t","args":{"a":-0,"b":-0.0,"c":-0e5,"d":-1e-400,"e":[-0]}}`],
  ['decimals', String.raw`{"name":"t","args":{"a":1.50,"b":-2.000,"c":10.0e1,"d":0.000123,"e":-123.456e-3}}`],
  // Strings and escapes.
  ['lone-surrogates', String.raw`{"name":"t","args":{"hi":"\ud800","lo":"x\udc00","rev":"\udc00\ud800","k\ud83d":" \ud83d "}}`],
  ['surrogate-pair-raw', String.raw`{"name":"t","args":{"s":"\ud83d\ude00 \u00e9\u4e2d"}}`],
  ['escapes', String.raw`{"name":"t","args":{"s":"a\u0000\u0001\u001f\b\f\n\r\t\"\\\/\u007f\u2028\u2029b"}}`],
  ['date-string-kept', String.raw`{"name":"t","args":{"at":"2026-03-01T12:00:00.000Z"}}`],
  // Objects.
  ['duplicate-names-last-wins', String.raw`{"name":"t","args":{"a":1,"b":2,"a":3,"o":{"x":1,"x":null},"p":{"y":null,"y":" v "}}}`],
  ['key-order-astral-vs-ff20', String.raw`{"name":"t","args":{"\uff20":1,"\ud83d\ude00":2,"a":3,"":4,"Z":5,"\u00e9":6,"\ue000":7}}`],
  ['key-order-prefixes', String.raw`{"name":"t","args":{"ab":1,"a":2,"abc":3,"b":4,"A":5,"_":6,"1":7,"10":8,"2":9}}`],
  ['key-order-lone-surrogate', String.raw`{"name":"t","args":{"\ue000":1,"\ud800":2,"\ud7ff":3,"\udfff":4}}`],
  ['recursive-order', String.raw`{"name":"t","args":{"z":{"b":[{"d":1,"c":2}],"a":true},"y":false}}`],
  ['empty-containers', String.raw`{"name":"t","args":{"a":{},"b":[],"c":[{}],"d":{"e":null}}}`],
  ['proto-key', String.raw`{"name":"t","args":{"__proto__":{"x":1},"constructor":"c"}}`],
  // Non-object args pass through select.
  ['args-string', String.raw`{"name":"t","args":"  padded\u00a0"}`],
  ['args-number', String.raw`{"name":"t","args":1.50}`],
  ['args-array', String.raw`{"name":"t","args":[3,null," x ",{"b":1,"a":null}]}`],
  ['args-bool', String.raw`{"name":"t","args":true}`],
  ['args-array-with-matchon', String.raw`{"name":"t","args":[{"a":1}],"matchOn":["a"]}`],
  ['args-string-with-ignoreargs', String.raw`{"name":"t","args":"s","ignoreArgs":["s"]}`],
  // select().
  ['matchon-missing-keys', String.raw`{"name":"t","args":{"a":1,"b":2},"matchOn":["a","missing","b2"]}`],
  ['matchon-and-ignoreargs', String.raw`{"name":"t","args":{"a":1,"b":2,"c":3},"matchOn":["a","b"],"ignoreArgs":["a"]}`],
  ['ignoreargs-only', String.raw`{"name":"t","args":{"a":1,"b":2,"c":{"a":1}},"ignoreArgs":["a","nope"]}`],
  ['matchon-empty', String.raw`{"name":"t","args":{"a":1},"matchOn":[]}`],
  ['matchon-empty-with-ignoreargs', String.raw`{"name":"t","args":{"a":1},"matchOn":[],"ignoreArgs":["b"]}`],
  ['ignoreargs-empty', String.raw`{"name":"t","args":{"a":1,"b":null},"ignoreArgs":[]}`],
  ['matchon-null-is-undeclared', String.raw`{"name":"t","args":{"a":1,"b":2},"matchOn":null,"ignoreArgs":["b"]}`],
  ['matchon-null-value', String.raw`{"name":"t","args":{"a":null,"b":2},"matchOn":["a","b"]}`],
  ['matchon-duplicate-entries', String.raw`{"name":"t","args":{"a":1,"b":2},"matchOn":["a","a"]}`],
  ['matchon-nested-key-is-top-level-only', String.raw`{"name":"t","args":{"o":{"a":1},"a":2},"matchOn":["o"]}`],
  ['matchon-duplicate-arg-names', String.raw`{"name":"t","args":{"id":1,"id":2,"x":3},"matchOn":["id"]}`],
  // kind and name.
  ['kind-explicit', String.raw`{"kind":"resource_read","name":"files/read","args":{"path":"/a"}}`],
  ['kind-null-defaults', String.raw`{"kind":null,"name":"t","args":{}}`],
  ['name-not-trimmed', String.raw`{"name":" send email ","args":{}}`],
  ['name-non-ascii', String.raw`{"name":"envoyer_\u00e9\u4e2d\ud83d\ude00","args":{"x":"y"}}`],
  ['name-lone-surrogate', String.raw`{"name":"bad\ud800name\udc00\udc00","args":{}}`],
  ['name-with-newline', String.raw`{"name":"a\nb","args":{"c":"d"}}`],
  ['record-white-space', " \r\n{ \"name\" : \"t\" , \"args\" : [ 1 , 2 ] }\n "],
];

const out = cases.map(([name, record]) => JSON.stringify(vector(name, record))).join('\n') + '\n';
process.stdout.write(out);
