package verify

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A circe receipt (wv26296-ux/circe-receipts) signs its signed_block alone:
// Ed25519, hex, over Python's json.dumps(sort_keys=True, separators=(",",
// ":"), ensure_ascii=False) of it (canon.AsqavCodePoint writes the same
// bytes), and public_hash is the SHA-256 hex of those bytes. The key is
// embedded (public_key, or publicKey) beside a signer_kid: the reference
// verify_receipt.py trusts whatever key the receipt carries, this tool
// only a key the key files list (by signer_kid, else by the key itself);
// an unlisted key leaves the receipt INCOMPLETE (unknown_key) though its
// signature is still checked, so a tampered block fails whoever signed it.
// The optional bundle double-signature is not read.
var circeFormat = format{name: "circe", detect: isCirce, check: checkCirce, signs: []string{"signed_block", "signature"}}

func isCirce(doc *canon.Value) bool {
	b := doc.Get("signed_block")
	return b != nil && b.Kind == canon.Object && doc.Get("signature") != nil &&
		(doc.Get("public_key") != nil || doc.Get("publicKey") != nil)
}

func checkCirce(c *check) {
	doc := c.doc
	f := &c.res.Fields
	block := doc.Get("signed_block")
	f.ActionID = str(block, "id")
	f.Decision = str(block, "verdict")
	msg, err := canon.AsqavCodePoint().Append(nil, block)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "signed_block cannot be written as json.dumps would: "+err.Error())
		return
	}
	sum := sha256.Sum256(msg)
	claimed := str(doc, "public_hash")
	if claimed == "" {
		claimed = str(doc, "publicHash")
	}
	switch got := hex.EncodeToString(sum[:]); {
	case claimed == "":
		c.notRun(AxisPayloadDigest, "no public_hash")
	case claimed != got:
		c.fail(AxisPayloadDigest, ReasonDigestMismatch, "signed_block hashes to "+got+", public_hash says "+quoteShort(claimed))
	default:
		c.pass(AxisPayloadDigest, "public_hash")
	}
	keyName := "public_key"
	if doc.Get(keyName) == nil {
		keyName = "publicKey"
	}
	pubHex, okKey := c.requireStr(doc, "", keyName)
	sigText, okSig := c.requireStr(doc, "", "signature")
	f.Signature = sigText
	if !okKey || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "no "+keyName+" or signature")
		return
	}
	raw, err := sigalg.DecodeHexN(pubHex, 32)
	if err != nil {
		c.fail(AxisIssuerKey, ReasonMalformedKey, keyName+" is not 32 bytes of hex: "+err.Error())
		c.skip(AxisSignature, ReasonUncheckable, "no usable key")
		return
	}
	var key *keys.Key
	kid := str(doc, "signer_kid")
	if kid != "" {
		if k, err := c.v.keys.ByID(kid); err == nil {
			key = k
		}
	}
	if key == nil {
		key, err = c.v.keys.ByPublicKey(sigalg.Ed25519, raw)
	}
	embedded, perr := sigalg.NewPublicKey(sigalg.Ed25519, raw)
	switch {
	case key == nil:
		c.resolveFailed(err)
		if perr != nil {
			c.skip(AxisSignature, ReasonUncheckable, keyName+": "+perr.Error())
			return
		}
		key = &keys.Key{KID: "embedded " + keyName, Alg: sigalg.Ed25519, Public: embedded}
		c.notRun(AxisIssuerBind, "the embedded key is in no key file")
	case key.Public == nil || perr != nil || !key.Public.Equal(embedded):
		c.pass(AxisIssuerKey, key.Label())
		c.fail(AxisIssuerBind, ReasonIssuerMismatch, keyName+" is not the key files' key for signer_kid "+quoteShort(kid))
		if perr != nil {
			c.skip(AxisSignature, ReasonUncheckable, keyName+": "+perr.Error())
			return
		}
		// The signature is checked under the embedded key: it says whether
		// the block is what that key's holder signed.
		key = &keys.Key{KID: "embedded " + keyName, Alg: sigalg.Ed25519, Public: embedded}
	default:
		c.pass(AxisIssuerKey, key.Label())
		c.pass(AxisIssuerBind, "the embedded key is the key files' key")
		f.KeyID = key.KID
		c.keyStatus(key)
	}
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, "", msg, sig)
}
