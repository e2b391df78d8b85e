package keys

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/receiptverify/verify/verify/sigalg"
)

// defaultKeyIDHashAlgorithms is what go-securesystemslib's loaders write in
// keyid_hash_algorithms, and so hash into every keyid they compute.
var defaultKeyIDHashAlgorithms = []string{"sha256", "sha512"}

// sslibKeyID is go-securesystemslib's calculateKeyID: the hex SHA-256 of
// the OLPC canonical JSON of {keyid_hash_algorithms, keytype, keyval:
// {public}, scheme}. hashAlgs nil is JSON null, as for a key file that
// gives none. Canonical JSON sorts the members and escapes only '\' and
// '"' in strings, which is all that is written here.
func sslibKeyID(keyType, scheme, public string, hashAlgs []string) string {
	var b strings.Builder
	b.WriteString(`{"keyid_hash_algorithms":`)
	if hashAlgs == nil {
		b.WriteString("null")
	} else {
		b.WriteByte('[')
		for i, a := range hashAlgs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(olpcString(a))
		}
		b.WriteByte(']')
	}
	b.WriteString(`,"keytype":` + olpcString(keyType) + `,"keyval":{"public":` + olpcString(public) + `},"scheme":` + olpcString(scheme) + `}`)
	return sha256Hex([]byte(b.String()))
}

func olpcString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// sslibSchemes are the schemes whose signatures this package's keys
// verify, by keytype. go-securesystemslib's ECDSA verifier hashes by the
// key's curve whatever the scheme says (its LoadKey writes
// ecdsa-sha2-nistp256 for every curve), so any of the three is taken and
// the curve decides; its RSA verifier is PSS with SHA-256 only. The keytypes
// ecdsa-sha2-nistp256 and -nistp384 are the older Python spellings.
var sslibSchemes = map[string][]string{
	"ed25519":             {"ed25519"},
	"ecdsa":               {"ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"},
	"ecdsa-sha2-nistp256": {"ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"},
	"ecdsa-sha2-nistp384": {"ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"},
	"rsa":                 {"rsassa-pss-sha256"},
}

// sslibPublic reads a securesystemslib key's keytype, scheme and
// keyval.public into k (whose ids parseEntry has read), and sets its kid
// from keyid, else from idHint (the member name in a {keyid: key} map),
// else as go-securesystemslib computes it.
func sslibPublic(f fields, k *Key, idHint string) (Reason, string, error) {
	keyType, _, err := f.str("keytype")
	if err != nil {
		return ReasonMalformedKey, "", err
	}
	scheme, _, err := f.str("scheme")
	if err != nil {
		return ReasonMalformedKey, "", err
	}
	keyID, _, err := f.str("keyid")
	if err != nil {
		return ReasonMalformedKey, "", err
	}
	var hashAlgs []string
	if v, ok := f["keyid_hash_algorithms"]; ok && kind(v) != 'n' {
		if err := json.Unmarshal(v, &hashAlgs); err != nil {
			return ReasonMalformedKey, "keyid_hash_algorithms is not a list of strings", nil
		}
		if hashAlgs == nil {
			hashAlgs = []string{}
		}
	}
	switch {
	case k.KID != "" && keyID != "" && k.KID != keyID:
		return ReasonMalformedKey, "kid and keyid differ", nil
	case keyID != "" && idHint != "" && keyID != idHint:
		return ReasonMalformedKey, "keyid differs from the member name " + quote(idHint), nil
	case k.KID == "" && keyID != "":
		k.KID = keyID
	case k.KID == "" && idHint != "":
		k.KID = idHint
	}
	if len(k.KID) > MaxIDBytes {
		k.KID = ""
		return ReasonLimit, "keyid too long", nil
	}
	v, ok := f["keyval"]
	if !ok || kind(v) != '{' {
		return ReasonMalformedKey, "keyval is not an object", nil
	}
	ms, err := objectMembers(v) // refuses a duplicate public, as elsewhere
	if err != nil {
		return ReasonMalformedKey, "keyval", err
	}
	public, ok, err := toFields(ms).str("public")
	if err != nil || !ok {
		return ReasonMalformedKey, "keyval.public is not a string", err
	}
	if k.KID == "" {
		k.KID = sslibKeyID(keyType, scheme, public, hashAlgs)
	}
	schemes, ok := sslibSchemes[keyType]
	if !ok {
		return ReasonUnsupportedAlg, "keytype " + quote(keyType), nil
	}
	if !slices.Contains(schemes, scheme) {
		return ReasonUnsupportedAlg, "keytype " + quote(keyType) + " scheme " + quote(scheme), nil
	}
	if keyType == "ed25519" {
		raw, err := sigalg.DecodeHexN(public, 32)
		if err != nil {
			return ReasonMalformedKey, "keyval.public", err
		}
		if k.Public, err = sigalg.NewPublicKey(sigalg.Ed25519, raw); err != nil {
			return reasonOf(err), "", err
		}
		return "", "", nil
	}
	pub, pk, err := pemPublicKey(public)
	if err != nil {
		return reasonOf(err), "keyval.public", err
	}
	switch pub.(type) {
	case *ecdsa.PublicKey:
		if keyType == "rsa" {
			return ReasonMalformedKey, "keytype rsa holds an ECDSA key", nil
		}
	case *rsa.PublicKey:
		if keyType != "rsa" {
			return ReasonMalformedKey, "keytype " + quote(keyType) + " holds an RSA key", nil
		}
	default:
		return ReasonMalformedKey, "keytype " + quote(keyType) + " holds another kind of key", nil
	}
	k.Public = pk
	return "", "", nil
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// loadSSLibMap reads {"keys": {keyid: securesystemslib key}}, the keys
// member of a TUF root or an in-toto layout.
func (s *Snapshot) loadSSLibMap(v json.RawMessage) error {
	ms, err := objectMembers(v)
	if errors.Is(err, errTooMany) || len(ms) > MaxEntriesPerFile {
		return &Error{Reason: ReasonLimit, File: s.Name, Index: -1, Detail: "too many keys"}
	}
	if err != nil {
		return &Error{Reason: ReasonMalformedFile, File: s.Name, Index: -1, Detail: "keys is not a JSON object", Err: err}
	}
	s.Format = FormatSSLib
	for i, m := range ms {
		k, err := sslibMapEntry(s.Name, i, m)
		s.add(i, k, err)
	}
	return nil
}

// sslibMapEntry reads one {keyid: key} member, the name its keyid.
func sslibMapEntry(file string, i int, m member) (*Key, *Error) {
	ms, err := objectMembers(m.value)
	if err != nil {
		return nil, &Error{Reason: ReasonMalformedKey, File: file, Index: i, ID: m.name, Detail: "invalid entry", Err: err}
	}
	f := toFields(ms)
	if _, ok := f["keytype"]; !ok {
		return nil, &Error{Reason: ReasonMalformedKey, File: file, Index: i, ID: m.name, Detail: "entry has no keytype"}
	}
	return parseEntry(file, i, f, m.name)
}
