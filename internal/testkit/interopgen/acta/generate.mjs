// Writes the ACTA interop vectors (testdata/interop/acta) with the
// issuer's own code: agent-passport-system's canonicalizeJCS, sign and
// publicKeyFromPrivate, assembled as ScopeBlind's a2a-trust-header
// generator (generate.ts, signAttestation) assembles its receipts. The
// producer's verdict is that of its verifier (verify.ts,
// verifyAttestation): verify(canonicalizeJCS(payload), sig, pubkey).
//
// Deterministic: fixed seeds and times, Ed25519 is deterministic, so a
// rerun writes the same bytes. Run: npm ci && node generate.mjs [outdir]
import { mkdirSync, writeFileSync, rmSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { canonicalizeJCS, sign, verify, publicKeyFromPrivate } from 'agent-passport-system'

const out = process.argv[2] ?? '../../../../testdata/interop/acta'
const seed = tail => '0'.repeat(64 - tail.length) + tail
const did = pub => `did:aps:${pub.slice(0, 32)}`
const b64url = hex => Buffer.from(hex, 'hex').toString('base64url')

const ISSUER = seed('a1')
const OTHER = seed('a2')
const ISSUER_PUB = publicKeyFromPrivate(ISSUER)
const OTHER_PUB = publicKeyFromPrivate(OTHER)
const SUBJECT = did(publicKeyFromPrivate(seed('a3')))

// signAttestation as generate.ts writes it, with the payload given whole.
function signAttestation(payload, issuerSeed, issuerPub, canonicalization = 'RFC8785-JCS') {
  const sig = sign(canonicalizeJCS(payload), issuerSeed)
  return {
    payload,
    signature: { alg: 'EdDSA', kid: did(issuerPub), pubkey: issuerPub, canonicalization, sig },
  }
}

function producerVerdict(r) {
  try {
    return verify(canonicalizeJCS(r.payload), r.signature.sig, r.signature.pubkey) ? 'valid' : 'invalid'
  } catch (e) {
    return `invalid (${e.message})`
  }
}

const jwks = pubs => ({ keys: pubs.map(p => ({ kty: 'OKP', crv: 'Ed25519', kid: did(p), x: b64url(p) })) })

// Case directories are rewritten; PROVENANCE.md stays.
mkdirSync(out, { recursive: true })
for (const e of readdirSync(out, { withFileTypes: true })) if (e.isDirectory()) rmSync(join(out, e.name), { recursive: true })
const log = []
function write(name, receipt, verdict, reasons, why, { keys = [ISSUER_PUB], policy, note } = {}) {
  const dir = join(out, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'receipt.json'), JSON.stringify(receipt, null, 2) + '\n')
  if (keys.length) writeFileSync(join(dir, 'acta-keys.json'), JSON.stringify(jwks(keys), null, 2) + '\n')
  const producer = producerVerdict(receipt)
  const exp = { format: 'acta', verdict, reasons, producer_verdict: producer.startsWith('valid') ? 'PASS' : 'FAIL' }
  if (producer !== 'valid' && producer !== 'invalid') exp.producer_detail = producer
  exp.note = why
  if (policy) exp.policy = policy
  if (note) exp.signature_note = note
  writeFileSync(join(dir, 'expected.json'), JSON.stringify(exp, null, 2) + '\n')
  log.push(`${name}: producer ${producer}`)
}
const clone = x => JSON.parse(JSON.stringify(x))

const base = {
  agent_id: SUBJECT,
  trust_level: 'trusted',
  delegation_chain_root: 'sha256:' + 'ab'.repeat(32),
  issued_at: '2026-04-18T12:00:00Z',
  issuer: did(ISSUER_PUB),
}

const genesis = signAttestation({ ...base, evidence_tier: 'infrastructure', monotonic_narrowing: true }, ISSUER, ISSUER_PUB)
write('attestation', genesis, 'PASS', [], 'a trust attestation as signAttestation makes it')

write('small-floats', signAttestation({ ...base, score: 0.1, epsilon: 1e-7, micro: 0.000001, tiny: 5e-324, big: 1e21, neg: -0.5, whole: 2.0 }, ISSUER, ISSUER_PUB),
  'PASS', [], 'ECMAScript number forms (1e-7, 0.000001, 5e-324, 1e+21): RFC 8785, not Python repr')

write('astral-member-names', signAttestation({ ...base, extra: { '\u{1F600}': 'grin', '\uFF60': 'wide', 'z': 1 } }, ISSUER, ISSUER_PUB),
  'PASS', [], 'an astral member name sorts before U+FF60 in UTF-16 order, after it in code-point order')

const nfd = signAttestation({ ...base, reason: 'Cafe\u0301 Ångstro\u0308m'.normalize('NFD') }, ISSUER, ISSUER_PUB)
write('nfd-text', nfd, 'PASS', [], 'decomposed (NFD) text, signed as given')

const renormalized = clone(nfd)
renormalized.payload.reason = renormalized.payload.reason.normalize('NFC')
write('nfd-text-normalized-after-signing', renormalized, 'FAIL', ['bad_signature'],
  'the NFD receipt put into NFC after signing; the note says the NFD form verifies', { note: 'the NFD form of the text would verify' })

write('null-member', signAttestation({ ...base, revoked_at: null }, ISSUER, ISSUER_PUB),
  'PASS', [], 'canonicalizeJCS keeps a null member (its legacy canonicalize dropped it)')

write('deny-receipt', signAttestation({
  type: 'deny_receipt', subject_agent: SUBJECT, attempted_at: '2026-04-18T12:10:00Z', attempted_scope: 'tool:read',
  reason: 'delegation_revoked',
  revoked_delegation: { delegated_by: ISSUER_PUB, delegated_to: OTHER_PUB, revoked_at: '2026-04-18T12:05:00Z' },
}, ISSUER, ISSUER_PUB), 'PASS', [], 'the deny receipt of revocation-mid-chain: no issuer member, attempted_at for its time')

write('canonicalization-other-label', signAttestation({ ...base }, ISSUER, ISSUER_PUB, 'asqav-v1'),
  'PASS', [], 'signature.canonicalization names another form; the reference verifier ignores the member and checks RFC 8785, as this tool does (note)', { note: 'signature.canonicalization is "asqav-v1"' })

write('unknown-key', genesis, 'INCOMPLETE', ['unknown_key', 'uncheckable', 'uncheckable'], 'the signing key is not in the key file', {
  keys: [OTHER_PUB],
  policy: 'the reference verifier trusts the receipt\'s own signature.pubkey; this tool takes keys from --keys only, so a key it does not hold leaves the receipt INCOMPLETE',
})

write('issuer-not-kid', signAttestation({ ...base, issuer: did(OTHER_PUB) }, ISSUER, ISSUER_PUB),
  'FAIL', ['issuer_mismatch'], 'the payload names another issuer than the signing key', {
    policy: 'the reference verifier checks the signature only; this tool also requires a payload that names an issuer to be signed by that issuer\'s key (false-attestation guard)',
  })

const t1 = clone(genesis); t1.payload.trust_level = 'revoked'
write('tampered-payload', t1, 'FAIL', ['bad_signature'], 'trust_level changed after signing')

const t2 = clone(genesis); t2.signature.sig = (t2.signature.sig[0] === '0' ? '1' : '0') + t2.signature.sig.slice(1)
write('tampered-signature', t2, 'FAIL', ['bad_signature'], 'first signature nibble changed')

const t3 = clone(genesis); t3.payload.score = 1e-7
write('tampered-member-added', t3, 'FAIL', ['bad_signature'], 'a member added after signing')

const t4 = signAttestation({ ...base }, OTHER, OTHER_PUB); t4.signature.kid = did(ISSUER_PUB); t4.payload.issuer = did(ISSUER_PUB)
t4.signature.sig = sign(canonicalizeJCS(t4.payload), OTHER)
write('tampered-wrong-signer', t4, 'FAIL', ['issuer_mismatch', 'bad_signature'], 'signed by another key under the issuer\'s kid, with that key as signature.pubkey', {
  keys: [ISSUER_PUB],
  policy: 'the reference verifier checks against the embedded signature.pubkey, which here is the forger\'s, and accepts; this tool checks the kid\'s key from --keys and fails it',
})

// Hex in upper case: APS verify decodes either case (hexToBytes), so the
// same signature written upper-case is the same receipt to the producer.
const upper = clone(genesis)
upper.signature.sig = upper.signature.sig.toUpperCase()
upper.signature.pubkey = upper.signature.pubkey.toUpperCase()
write('upper-case-hex', upper, 'PASS', [], 'the attestation with signature.sig and signature.pubkey in upper-case hex')

const t5 = clone(upper); t5.payload.trust_level = 'revoked'
write('upper-case-hex-tampered-payload', t5, 'FAIL', ['bad_signature'], 'the upper-case attestation with trust_level changed after signing')

const t6 = clone(upper); t6.signature.sig = (t6.signature.sig[0] === '0' ? '1' : '0') + t6.signature.sig.slice(1)
write('upper-case-hex-tampered-signature', t6, 'FAIL', ['bad_signature'], 'the upper-case signature with its first nibble changed')

const mixed = clone(genesis)
mixed.signature.sig = mixed.signature.sig.slice(0, 64) + mixed.signature.sig.slice(64).toUpperCase()
write('mixed-case-hex', mixed, 'FAIL', ['bad_encoding'], 'signature.sig with its first half in lower case and its second in upper case', {
  policy: 'APS verify decodes hex of mixed case; this tool refuses a hex value that mixes the cases (one signature, one spelling), so it fails the encoding, never passes',
})

console.log(log.join('\n'))
