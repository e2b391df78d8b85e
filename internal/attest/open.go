package attest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// MaxEnvelopeBytes bounds an attestation file: a statement over a few
// hundred thousand files stays well below it.
const MaxEnvelopeBytes = 256 << 20

// SignatureError is an envelope no signature of which verifies under the
// key, or which is no in-toto DSSE envelope at all.
type SignatureError struct {
	File   string
	Detail string
}

func (e *SignatureError) Error() string { return e.File + ": " + e.Detail }

// Open checks the envelope env (the bytes of file name) against the public
// key file pub (PEM, or any key file the keys package reads) and returns
// its statement. As go-securesystemslib's verifier does, a signature whose
// keyid names another key is skipped, and one verifying signature is
// enough.
func Open(name string, env []byte, pubName string, pub []byte) (*Statement, error) {
	fail := func(format string, a ...any) (*Statement, error) {
		return nil, &SignatureError{File: name, Detail: fmt.Sprintf(format, a...)}
	}
	if len(env) > MaxEnvelopeBytes {
		return fail("%d bytes, more than the limit of %d", len(env), MaxEnvelopeBytes)
	}
	snap, err := keys.Load(pubName, pub)
	if err != nil {
		return nil, &KeyError{pubName, err.Error()}
	}
	var e Envelope
	dec := json.NewDecoder(bytes.NewReader(env))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return fail("not a DSSE envelope: %v", err)
	}
	if e.PayloadType != PayloadType {
		return fail("payloadType is %q, not %q", e.PayloadType, PayloadType)
	}
	if len(e.Signatures) == 0 {
		return fail("the envelope has no signature")
	}
	body, err := sigalg.DecodeBase64AnyUpTo(e.Payload, MaxEnvelopeBytes)
	if err != nil {
		return fail("payload is not base64: %v", err)
	}
	msg := dsse.PAE(e.PayloadType, body)
	var why []string
	verified := false
	for i, s := range e.Signatures {
		sig, err := sigalg.DecodeBase64Any(s.Sig)
		if err != nil {
			return fail("signatures[%d]: sig is not base64", i)
		}
		for _, k := range snap.Keys {
			if s.KeyID != "" && k.KID != "" && s.KeyID != k.KID {
				why = append(why, fmt.Sprintf("signatures[%d]: keyid %s is not the key's (%s)", i, s.KeyID, k.KID))
				continue
			}
			if err := verifyWith(k, msg, sig); err != nil {
				why = append(why, fmt.Sprintf("signatures[%d]: %v", i, err))
				continue
			}
			verified = true
		}
	}
	if !verified {
		return fail("no signature verifies under %s: %s", pubName, strings.Join(why, "; "))
	}
	var st Statement
	if err := json.Unmarshal(body, &st); err != nil {
		return fail("the signed payload is not an in-toto statement: %v", err)
	}
	if st.Type != StatementType {
		return fail("statement _type is %q, not %q", st.Type, StatementType)
	}
	for i, s := range st.Subject {
		if s.Name == "" || len(s.SHA256()) != 64 {
			return fail("subject[%d] needs a name and a sha256 digest", i)
		}
	}
	return &st, nil
}

// verifyWith checks a DSSE signature: ECDSA's in ASN.1 DER, as DSSE
// signers write it, the others as the key's algorithm defines.
func verifyWith(k *keys.Key, msg, sig []byte) error {
	if k.Public == nil {
		return k.Err
	}
	if k.Public.Alg().IsECDSA() {
		return k.Public.VerifyECDSADER(msg, sig)
	}
	return k.Verify(msg, sig)
}
