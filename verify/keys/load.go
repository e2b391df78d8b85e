package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/receiptverify/verify/verify/sigalg"
)

// Snapshot is the content of one key file. Keys are in file order, which
// is the order resolution tries them in.
type Snapshot struct {
	Name    string
	Format  Format
	Keys    []*Key
	Skipped []*Error // entries that could not be loaded, each with its reason
	// Warnings are what entries hold that a key file should not (a
	// private key), each naming the entry.
	Warnings []string
}

// Load reads one key file, detecting its kind from the content (see the
// package documentation for the shapes). name is used only in messages and
// in each Key's Source.
//
// A bad entry does not fail the file: it is recorded in Skipped and loading
// goes on. Load fails if the file as a whole is unreadable, exceeds a limit,
// or yields no key at all.
func Load(name string, data []byte) (*Snapshot, error) {
	fileErr := func(r Reason, detail string, err error) error {
		return &Error{Reason: r, File: name, Index: -1, Detail: detail, Err: err}
	}
	if len(data) > MaxFileBytes {
		return nil, fileErr(ReasonLimit, fmt.Sprintf("file is %d bytes, limit %d", len(data), MaxFileBytes), nil)
	}
	if !utf8.Valid(data) {
		return nil, fileErr(ReasonMalformedFile, "not valid UTF-8", nil)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	text := bytes.TrimSpace(data)
	s := &Snapshot{Name: name}
	switch {
	case len(text) == 0:
		return nil, fileErr(ReasonMalformedFile, "empty key file", nil)
	case text[0] == '{':
		ms, err := objectMembers(text)
		if errors.Is(err, errTooMany) {
			return nil, fileErr(ReasonLimit, "too many members", nil)
		}
		if err != nil {
			return nil, fileErr(ReasonMalformedFile, "invalid JSON", err)
		}
		if err := s.loadObject(ms); err != nil {
			return nil, err
		}
	case text[0] == '"':
		var did string
		if err := json.Unmarshal(text, &did); err != nil {
			return nil, fileErr(ReasonMalformedFile, "invalid JSON string", err)
		}
		s.Format = FormatDIDKey
		s.addDIDKey(0, did)
	case bytes.HasPrefix(text, []byte("-----BEGIN ")):
		s.loadPEM(text)
	case bytes.HasPrefix(text, []byte(didKeyPrefix)):
		s.Format = FormatDIDKey
		lines := strings.Split(string(text), "\n")
		if len(lines) > MaxEntriesPerFile {
			return nil, fileErr(ReasonLimit, fmt.Sprintf("more than %d entries", MaxEntriesPerFile), nil)
		}
		for i, line := range lines {
			if line = strings.TrimSpace(line); line != "" {
				s.addDIDKey(i, line)
			}
		}
	default:
		return nil, fileErr(ReasonMalformedFile, "neither a JSON object, a JSON string, PEM nor did:key lines", nil)
	}
	if len(s.Keys) == 0 {
		errs := make([]error, len(s.Skipped))
		for i, e := range s.Skipped {
			errs[i] = e
		}
		return nil, fileErr(ReasonNoKeys, fmt.Sprintf("%d entries, none usable", len(s.Skipped)), errors.Join(errs...))
	}
	return s, nil
}

// loadObject handles the three object shapes: a key set ({"keys": [...]}),
// a single JWK ({"kty": ...}) and a map from key id or DID to key.
func (s *Snapshot) loadObject(ms []member) error {
	f := toFields(ms)
	if v, ok := f["keys"]; ok && kind(v) == '[' {
		return s.loadKeySet(v)
	}
	if v, ok := f["keys"]; ok && kind(v) == '{' {
		return s.loadSSLibMap(v)
	}
	if v, ok := f["kty"]; ok && kind(v) == '"' {
		s.Format = FormatJWK
		s.notePrivate(0, f)
		k, err := parseEntry(s.Name, 0, f, "")
		if k != nil {
			k.Source.Format = FormatJWK
		}
		s.add(0, k, err)
		return nil
	}
	if v, ok := f["keytype"]; ok && kind(v) == '"' {
		s.Format = FormatSSLib
		k, err := parseEntry(s.Name, 0, f, "")
		s.add(0, k, err)
		return nil
	}
	return s.loadMap(ms)
}

func (s *Snapshot) add(i int, k *Key, err *Error) {
	if err != nil {
		s.Skipped = append(s.Skipped, err)
		if k == nil {
			return
		}
		k.Err = err // ids readable, key material not: keep it resolvable
		k.Public = nil
	}
	k.Source.Index = i
	k.label = k.makeLabel()
	s.Keys = append(s.Keys, k)
}

func (s *Snapshot) loadKeySet(v json.RawMessage) error {
	var entries []json.RawMessage
	if err := json.Unmarshal(v, &entries); err != nil {
		return &Error{Reason: ReasonMalformedFile, File: s.Name, Index: -1, Detail: "keys is not a JSON array", Err: err}
	}
	if len(entries) > MaxEntriesPerFile {
		return &Error{Reason: ReasonLimit, File: s.Name, Index: -1,
			Detail: fmt.Sprintf("%d entries, limit %d", len(entries), MaxEntriesPerFile)}
	}
	s.Format = FormatJWKSet
	for i, e := range entries {
		if kind(e) != '{' {
			s.Skipped = append(s.Skipped, &Error{Reason: ReasonMalformedKey, File: s.Name, Index: i, Detail: "entry is not an object"})
			continue
		}
		ms, err := objectMembers(e)
		if err != nil {
			s.Skipped = append(s.Skipped, &Error{Reason: ReasonMalformedKey, File: s.Name, Index: i, Detail: "invalid entry", Err: err})
			continue
		}
		f := toFields(ms)
		if _, ok := f["public_key"]; ok {
			s.Format = FormatAsqavJWKS
		}
		s.notePrivate(i, f)
		k, kerr := parseEntry(s.Name, i, f, "")
		s.add(i, k, kerr)
	}
	return nil
}

// parseEntry reads an Asqav JWKS entry (it has public_key), a JWK (it has
// kty) or a securesystemslib key (it has keytype; idHint is its member name
// in a {keyid: key} map, or ""). All may carry the Asqav metadata members.
func parseEntry(file string, i int, f fields, idHint string) (*Key, *Error) {
	k := &Key{Source: Source{File: file, Index: i}}
	fail := func(r Reason, detail string, err error) (*Key, *Error) {
		return nil, &Error{Reason: r, File: file, Index: i, ID: k.KID, Detail: detail, Err: err}
	}
	// badKey keeps the entry's ids with the error, once they have loaded.
	badKey := func(r Reason, detail string, err error) (*Key, *Error) {
		_, e := fail(r, detail, err)
		if k.KID == "" {
			return nil, e
		}
		return k, e
	}
	var status, revokedAt string
	for _, m := range []struct {
		name    string
		dst     *string
		lenient bool // a non-string value is ignored: it binds nothing
	}{
		{"kid", &k.KID, false}, {"agent_id", &k.AgentID, true}, {"issuer_id", &k.IssuerID, true},
		{"org_id", &k.OrgID, true}, {"status", &status, false}, {"revoked_at", &revokedAt, false},
	} {
		v, _, err := f.str(m.name)
		if err != nil && m.lenient {
			continue
		}
		if err != nil {
			return fail(ReasonMalformedKey, "", err)
		}
		if len(v) > MaxIDBytes {
			return fail(ReasonLimit, m.name+" too long", nil)
		}
		*m.dst = v
	}
	alg, hasAlg, err := f.str("alg")
	if err != nil {
		return fail(ReasonMalformedKey, "", err)
	}
	k.Status = parseStatus(status)
	if revokedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, revokedAt)
		if err != nil {
			return fail(ReasonMalformedKey, "revoked_at is not RFC 3339", err)
		}
		k.RevokedAt = t
	}
	if a, err := sigalg.ParseAlg(alg); hasAlg && err == nil {
		k.Alg = a // as the entry says, even if its key material turns out unusable
	}
	if why := useExcluded(f); why != "" {
		return badKey(ReasonKeyUse, why, nil)
	}
	if pk, ok := f["public_key"]; ok {
		k.Source.Format = FormatAsqavJWKS
		if kind(pk) != '"' {
			return badKey(ReasonMalformedKey, "public_key is not a string", nil)
		}
		enc, _, err := f.str("public_key")
		if err != nil {
			return badKey(ReasonMalformedKey, "", err)
		}
		raw, err := sigalg.DecodeBase64Any(enc)
		if err != nil {
			return badKey(ReasonMalformedKey, "public_key", err)
		}
		var a sigalg.Alg
		if hasAlg {
			if a, err = sigalg.ParseAlg(alg); err != nil {
				return badKey(ReasonUnsupportedAlg, "", err)
			}
		} else if a, ok = sigalg.AlgForKeySize(raw); !ok {
			return badKey(ReasonUnsupportedAlg, fmt.Sprintf("no alg and no algorithm has %d-byte keys", len(raw)), nil)
		}
		if k.Public, err = sigalg.NewPublicKey(a, raw); err != nil {
			return badKey(reasonOf(err), "", err)
		}
	} else if _, ok := f["keytype"]; ok {
		k.Source.Format = FormatSSLib
		if r, detail, err := sslibPublic(f, k, idHint); r != "" || err != nil {
			return badKey(r, detail, err)
		}
	} else if _, ok := f["kty"]; ok {
		k.Source.Format = FormatJWKSet
		var jwk [6]string
		for j, name := range []string{"kty", "crv", "x", "y", "n", "e"} {
			if jwk[j], _, err = f.str(name); err != nil {
				return badKey(ReasonMalformedKey, "", err)
			}
		}
		if jwk[0] == "RSA" {
			// An RSA key does not say PSS or PKCS #1 v1.5; only PS256 is verified.
			if alg != string(sigalg.PS256) {
				return badKey(ReasonUnsupportedAlg, "RSA JWK with alg "+quote(alg)+": only PS256 is verified", nil)
			}
			k.Public, err = sigalg.PublicKeyFromRSAJWK(jwk[4], jwk[5])
		} else {
			k.Public, err = sigalg.PublicKeyFromJWK(jwk[0], jwk[1], jwk[2], jwk[3])
		}
		if err != nil {
			return badKey(reasonOf(err), "", err)
		}
		if hasAlg {
			a, err := sigalg.ParseAlg(alg)
			if err != nil {
				return badKey(ReasonUnsupportedAlg, "", err)
			}
			if a != k.Public.Alg() {
				return badKey(ReasonMalformedKey, "alg "+quote(alg)+" does not match kty/crv", nil)
			}
		}
	} else {
		return badKey(ReasonMalformedKey, "entry has neither public_key nor kty", nil)
	}
	k.Alg = k.Public.Alg()
	return k, nil
}

// loadMap reads {id: key}. Values are hex public keys (the algorithm follows
// from the length, see sigalg.AlgForKeySize) or did:key identifiers.
func (s *Snapshot) loadMap(ms []member) error {
	if len(ms) > MaxEntriesPerFile {
		return &Error{Reason: ReasonLimit, File: s.Name, Index: -1,
			Detail: fmt.Sprintf("%d entries, limit %d", len(ms), MaxEntriesPerFile)}
	}
	s.Format = FormatHexMap
	if len(ms) > 0 {
		s.Format = FormatDIDMap
		for _, m := range ms {
			if !strings.HasPrefix(m.name, "did:") {
				s.Format = FormatHexMap
			}
		}
	}
	for i, m := range ms {
		k, err := parseMapEntry(s.Name, i, s.Format, m)
		s.add(i, k, err)
	}
	return nil
}

func parseMapEntry(file string, i int, format Format, m member) (*Key, *Error) {
	fail := func(r Reason, detail string, err error) (*Key, *Error) {
		return nil, &Error{Reason: r, File: file, Index: i, ID: m.name, Detail: detail, Err: err}
	}
	if len(m.name) > MaxIDBytes {
		return fail(ReasonLimit, "key id too long", nil)
	}
	if kind(m.value) == '{' {
		return sslibMapEntry(file, i, m)
	}
	if kind(m.value) != '"' {
		return fail(ReasonMalformedKey, "value is not a string", nil)
	}
	var v string
	if err := json.Unmarshal(m.value, &v); err != nil {
		return fail(ReasonMalformedKey, "", err)
	}
	var pub *sigalg.PublicKey
	if strings.HasPrefix(v, didKeyPrefix) {
		dk, err := ParseDIDKey(v)
		if err != nil {
			return fail(reasonOf(err), "", err)
		}
		pub = dk.Public
	} else {
		raw, err := sigalg.DecodeHex(v)
		if err != nil {
			return fail(ReasonMalformedKey, "value is neither hex nor did:key", err)
		}
		a, ok := sigalg.AlgForKeySize(raw)
		if !ok {
			return fail(ReasonUnsupportedAlg, fmt.Sprintf("no algorithm has %d-byte keys", len(raw)), nil)
		}
		if pub, err = sigalg.NewPublicKey(a, raw); err != nil {
			return fail(reasonOf(err), "", err)
		}
	}
	return &Key{
		KID: m.name, Alg: pub.Alg(), Status: StatusActive, Public: pub,
		Source: Source{File: file, Index: i, Format: format},
	}, nil
}

func (s *Snapshot) addDIDKey(i int, did string) {
	k, err := ParseDIDKey(did)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Reason: ReasonMalformedKey, Err: err}
		}
		e.File, e.Index = s.Name, i
		s.Skipped = append(s.Skipped, e)
		return
	}
	k.Source.File = s.Name
	s.add(i, k, nil)
}

// ParseJWK reads one JWK object, such as the signerPublicKey authproof
// embeds in its receipts. name is used in messages.
func ParseJWK(name string, data []byte) (*Key, error) {
	if len(data) > MaxFileBytes {
		return nil, &Error{Reason: ReasonLimit, File: name, Index: -1, Detail: "JWK too large"}
	}
	ms, err := objectMembers(data)
	if err != nil {
		return nil, &Error{Reason: ReasonMalformedKey, File: name, Index: -1, Detail: "invalid JWK", Err: err}
	}
	f := toFields(ms)
	if _, ok := f["kty"]; !ok {
		return nil, &Error{Reason: ReasonMalformedKey, File: name, Index: -1, Detail: "JWK has no kty"}
	}
	k, kerr := parseEntry(name, 0, f, "")
	if kerr != nil {
		return nil, kerr
	}
	k.Source.Format = FormatJWK
	return k, nil
}

// reasonOf maps a sigalg error to this package's reasons.
func reasonOf(err error) Reason {
	var ke *Error
	if errors.As(err, &ke) {
		return ke.Reason
	}
	if errors.Is(err, sigalg.ErrUnsupportedAlg) {
		return ReasonUnsupportedAlg
	}
	return ReasonMalformedKey
}
