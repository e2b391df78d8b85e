package keys_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// corpusDir holds the conformance cases; each case's key file sits beside
// its receipt, under a name that says its kind (keyFiles).
const corpusDir = "../../testdata/receipts"

// keyFiles are the key files of the corpus cases, by the format their name
// says.
var keyFiles = map[string]keys.Format{
	"acta-keys.json": keys.FormatJWKSet,
	"keys.json":      keys.FormatHexMap,
	"jwks.json":      keys.FormatAsqavJWKS,
	"did_map.json":   keys.FormatDIDMap,
}

// corpusKeyFiles lists every case's key file, as paths relative to
// corpusDir ("asqav-07-revoked-key/jwks.json").
func corpusKeyFiles(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for name := range keyFiles {
		m, err := filepath.Glob(filepath.Join(corpusDir, "*", name))
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range m {
			rel, err := filepath.Rel(corpusDir, p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return out
}

// load loads a corpus key file named relative to corpusDir.
func load(t *testing.T, file string) *keys.Snapshot {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := keys.Load(file, data)
	if err != nil {
		t.Fatalf("Load(%s): %v", file, err)
	}
	return s
}

func dir(t *testing.T, snaps ...*keys.Snapshot) *keys.Directory {
	t.Helper()
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every key file of the corpus loads completely, as the kind its name says.
func TestLoadCorpus(t *testing.T) {
	t.Parallel()
	files := corpusKeyFiles(t)
	if len(files) < 44 { // the corpus's key files, and more when cases are added
		t.Fatalf("%d key files, want at least 44", len(files))
	}
	mldsa := map[string]bool{
		"asqav-05-hash-mode-prod/jwks.json":       true,
		"asqav-06-mldsa65-payload-prod/jwks.json": true,
		"dsse-attestation-ml-dsa-65/jwks.json":    true,
	}
	for _, name := range files {
		path := filepath.Join(corpusDir, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := keyFiles[filepath.Base(name)]
			snap := load(t, name)
			if snap.Format != want {
				t.Errorf("format %s, want %s", snap.Format, want)
			}
			if len(snap.Skipped) != 0 {
				t.Errorf("skipped: %v", snap.Skipped)
			}
			if n := countEntries(t, path); len(snap.Keys) != n {
				t.Errorf("%d keys, want %d", len(snap.Keys), n)
			}
			wantAlg := sigalg.Ed25519
			if mldsa[name] {
				wantAlg = sigalg.MLDSA65
			}
			for i, k := range snap.Keys {
				if k.Alg != wantAlg || k.Public.Alg() != wantAlg {
					t.Errorf("key %d alg %s, want %s", i, k.Alg, wantAlg)
				}
				if k.KID == "" || k.Source.File != name || k.Source.Index != i || k.Source.Format == "" {
					t.Errorf("key %d: kid %q source %+v", i, k.KID, k.Source)
				}
				if got, err := dir(t, snap).ByID(k.KID); err != nil || got != k {
					t.Errorf("ByID(%q) = %v, %v", k.KID, got, err)
				}
			}
		})
	}
}

// countEntries counts a key file's entries independently of Load.
func countEntries(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if json.Unmarshal(b, &set) == nil && set.Keys != nil {
		return len(set.Keys)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// asqav-10-hash-mode-multikey: three sibling keys share issuer_id and
// org_id, the record's key_id is the org id, and the signer is the last
// sibling. The agent bind (step 2) must pick it before the loose issuer_id
// match (step 3) picks the first.
func TestResolveAsqavMultikey(t *testing.T) {
	t.Parallel()
	d := dir(t, load(t, "asqav-10-hash-mode-multikey/jwks.json"))
	// Fields of the receipt: key_id, agent_id, org_id; a hash-mode record
	// has no payload and so no issuer_id.
	const kid, agentID, orgID = "org_multikey_vec", "agt_2", "org_multikey_vec"
	k, err := d.ResolveAsqav(kid, agentID, "", orgID)
	if err != nil {
		t.Fatal(err)
	}
	if k.KID != "vec_kid_2" || k.Source.Index != 2 {
		t.Fatalf("resolved %s (%v), want vec_kid_2", k.KID, k.Source)
	}

	// The hash-mode signing input of the receipt, written out: the canonical
	// form of {v, mode, hash, hash_algo, metadata, server_timestamp,
	// action_id, agent_id, org_id, policy_digest, policy_decision}.
	msg := []byte(`{"action_id":"act_vec","agent_id":"agt_2","hash":"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc","hash_algo":"sha256","metadata":{},"mode":"hash","org_id":"org_multikey_vec","policy_decision":"allow","policy_digest":"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd","server_timestamp":"2026-01-01T00:00:00Z","v":1}`)
	sig, err := sigalg.DecodeBase64Any("E7mmk0lw7mzAjFkdfMfLg04BAnnIybu60r/AaCGtm/imVyZINRtvjyCQXXFT6Rmqb+hrQszXMpuVHDZGDo5FAA==")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Verify(msg, sig); err != nil {
		t.Fatalf("vec_kid_2 does not verify: %v", err)
	}

	// Without the agent bind, the loose step answers with the first sibling,
	// which does not verify: this is why the order matters.
	loose, err := d.ResolveAsqav(kid, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if loose.KID != "vec_kid_0" {
		t.Fatalf("loose match %s, want vec_kid_0", loose.KID)
	}
	if err := loose.Verify(msg, sig); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Fatalf("vec_kid_0: %v, want bad_signature", err)
	}
}

func TestResolveAsqavOrder(t *testing.T) {
	t.Parallel()
	pk := func(b byte) string { return jsonB64(ed25519Pub(b)) }
	data := fmt.Sprintf(`{"keys":[
		{"kid":"k-issuer","agent_id":"a0","issuer_id":"iss","org_id":"org","alg":"Ed25519","public_key":%s},
		{"kid":"k-agent","agent_id":"a1","issuer_id":"iss","org_id":"org","alg":"Ed25519","public_key":%s},
		{"kid":"exact","agent_id":"a2","issuer_id":"other","org_id":"org2","alg":"Ed25519","public_key":%s},
		{"kid":"k-org","agent_id":"a3","issuer_id":"x","org_id":"org3","alg":"Ed25519","public_key":%s}
	]}`, pk(1), pk(2), pk(3), pk(4))
	s, err := keys.Load("order.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	d := dir(t, s)
	for _, c := range []struct {
		kid, agent, issuer, org string
		want                    string
	}{
		{"exact", "a1", "iss", "org", "exact"},  // 1: exact kid beats the agent bind
		{"iss", "a1", "iss", "", "k-agent"},     // 2: agent + issuer_id beats loose
		{"iss", "a3", "", "org3", "k-org"},      // 2: agent + org_id
		{"iss", "a3", "iss", "org", "k-issuer"}, // 2 fails (a3 has neither), 3: loose issuer_id
		{"nope", "a1", "iss", "", "k-agent"},    // 2 without a matching kid
		{"", "a2", "other", "", "exact"},        // empty kid: only step 2
		{"iss", "", "iss", "org", "k-issuer"},   // no agent: step 3
		{"other", "zz", "", "", "exact"},        // 3: issuer_id of the third entry
	} {
		k, err := d.ResolveAsqav(c.kid, c.agent, c.issuer, c.org)
		if err != nil || k.KID != c.want {
			t.Errorf("ResolveAsqav(%q,%q,%q,%q) = %v, %v; want %s", c.kid, c.agent, c.issuer, c.org, k, err, c.want)
		}
	}
	// Notes name a key by kid and place in its file.
	if k, _ := d.ResolveAsqav("k-org", "", "", ""); k.Label() != "k-org (order.json[3])" {
		t.Errorf("Label() = %q", k.Label())
	}
	if k := (&keys.Key{KID: "hand", Source: keys.Source{File: "f", Index: 2}}); k.Label() != "hand (f[2])" {
		t.Errorf("Label() of a key built by hand = %q", k.Label())
	}
	for _, c := range [][4]string{{"nope", "", "", ""}, {"", "", "", ""}, {"", "a1", "", ""}, {"", "a1", "", "org3"}} {
		_, err := d.ResolveAsqav(c[0], c[1], c[2], c[3])
		var ke *keys.Error
		if !errors.As(err, &ke) || ke.Reason != keys.ReasonUnknownKey {
			t.Errorf("ResolveAsqav%q: %v, want unknown_key", c, err)
		}
	}
}

// After a rotation an agent has an old and a new key under one org: the
// agent bind selects both, in directory order; an exact kid selects one,
// and the loose org-id match only its first key, never every org key.
func TestResolveAsqavCandidates(t *testing.T) {
	t.Parallel()
	pk := func(b byte) string { return jsonB64(ed25519Pub(b)) }
	data := fmt.Sprintf(`{"keys":[
		{"kid":"old","agent_id":"a1","issuer_id":"org","org_id":"org","alg":"Ed25519","public_key":%s,"status":"revoked"},
		{"kid":"other","agent_id":"a2","issuer_id":"org","org_id":"org","alg":"Ed25519","public_key":%s},
		{"kid":"new","agent_id":"a1","issuer_id":"org","org_id":"org","alg":"Ed25519","public_key":%s}
	]}`, pk(1), pk(2), pk(3))
	s, err := keys.Load("rotation.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	d := dir(t, s)
	for _, c := range []struct {
		kid, agent, issuer, org string
		want                    string
	}{
		{"org", "a1", "org", "org", "old new"}, // the agent bind: both of a1's keys
		{"org", "a1", "", "org", "old new"},    // by org_id alone
		{"new", "a1", "org", "org", "new"},     // an exact kid names one key
		{"org", "a9", "org", "org", "old"},     // no bind: the first loose match only
		{"org", "", "", "", "old"},
	} {
		ks, err := d.ResolveAsqavCandidates(c.kid, c.agent, c.issuer, c.org)
		var got []string
		for _, k := range ks {
			got = append(got, k.KID)
		}
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("ResolveAsqavCandidates(%q,%q,%q,%q) = %v, %v; want %s", c.kid, c.agent, c.issuer, c.org, got, err, c.want)
		}
		if k, err := d.ResolveAsqav(c.kid, c.agent, c.issuer, c.org); err != nil || k != ks[0] {
			t.Errorf("ResolveAsqav(%q,%q,%q,%q) = %v, %v; want the first candidate", c.kid, c.agent, c.issuer, c.org, k, err)
		}
	}
}

// Entries whose key material is unusable are recorded in Skipped with
// their reason and position; those whose ids loaded stay resolvable as keys
// with Err set, so a receipt naming one is judged (and fails) rather than
// reported as naming an unknown key.
func TestLoadSkipsEntries(t *testing.T) {
	t.Parallel()
	good := jsonB64(ed25519Pub(7))
	data := `{"keys":[
		{"kid":"num","alg":"Ed25519","public_key":12},
		{"kid":"null","alg":"Ed25519","public_key":null},
		{"kid":"obj","alg":"Ed25519","public_key":{"x":"y"}},
		{"kid":"good","alg":"Ed25519","public_key":` + good + `},
		{"kid":"rsa","alg":"RS256","public_key":` + good + `},
		{"kid":"short","alg":"Ed25519","public_key":"AAAA"},
		{"kid":"badb64","alg":"Ed25519","public_key":"@@@@"},
		{"kid":"nokind"},
		"not an object",
		{"kid":"when","alg":"Ed25519","public_key":` + good + `,"revoked_at":"yesterday"},
		{"kid":5,"alg":"Ed25519","public_key":` + good + `},
		{"kid":"mldsa-as-ed","alg":"Ed25519","public_key":"` + strings.Repeat("A", 2604) + `"}
	]}`
	s, err := keys.Load("mixed.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var usable, broken []string
	for _, k := range s.Keys {
		if k.Err == nil {
			usable = append(usable, k.KID)
		} else if k.Public == nil {
			broken = append(broken, k.KID)
		}
	}
	if len(usable) != 1 || usable[0] != "good" {
		t.Fatalf("usable keys %v", usable)
	}
	if want := "num null obj rsa short badb64 nokind mldsa-as-ed"; strings.Join(broken, " ") != want {
		t.Fatalf("broken keys %v, want %s", broken, want)
	}
	want := map[int]keys.Reason{
		0: keys.ReasonMalformedKey, 1: keys.ReasonMalformedKey, 2: keys.ReasonMalformedKey,
		4: keys.ReasonUnsupportedAlg, 5: keys.ReasonMalformedKey, 6: keys.ReasonMalformedKey,
		7: keys.ReasonMalformedKey, 8: keys.ReasonMalformedKey, 9: keys.ReasonMalformedKey,
		10: keys.ReasonMalformedKey, 11: keys.ReasonMalformedKey,
	}
	if len(s.Skipped) != len(want) {
		t.Fatalf("%d skipped, want %d: %v", len(s.Skipped), len(want), s.Skipped)
	}
	for _, e := range s.Skipped {
		if e.File != "mixed.json" || want[e.Index] != e.Reason {
			t.Errorf("skipped %v: reason %s, want %s", e, e.Reason, want[e.Index])
		}
	}

	// A file in which no entry loaded at all fails as a whole.
	_, err = keys.Load("none.json", []byte(`{"keys":[1,{"public_key":1}]}`))
	if !errors.Is(err, keys.ErrNoKeys) {
		t.Fatalf("all skipped: %v", err)
	}
}

func TestLoadFileErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, data string
		want       error
	}{
		{"empty", "", keys.ErrMalformedFile},
		{"space", " \n", keys.ErrMalformedFile},
		{"array", `[1]`, keys.ErrMalformedFile},
		{"number", `12`, keys.ErrMalformedFile},
		{"truncated", `{"keys":[`, keys.ErrMalformedFile},
		{"trailing", `{"a":"` + strings.Repeat("00", 32) + `"} {}`, keys.ErrMalformedFile},
		{"dup-member", `{"a":"` + strings.Repeat("00", 32) + `","a":"` + strings.Repeat("11", 32) + `"}`, keys.ErrMalformedFile},
		{"bad-utf8", "{\"a\xff\":\"00\"}", keys.ErrMalformedFile},
		{"keys-not-array-empty-map", `{}`, keys.ErrNoKeys},
		{"empty-set", `{"keys":[]}`, keys.ErrNoKeys},
		{"too-big", strings.Repeat(" ", keys.MaxFileBytes+1), keys.ErrLimit},
		{"too-many", `{"keys":[` + strings.Repeat(`1,`, keys.MaxEntriesPerFile) + `1]}`, keys.ErrLimit},
	} {
		_, err := keys.Load(c.name, []byte(c.data))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// A duplicate member inside one entry makes only that entry bad.
	good := jsonB64(ed25519Pub(9))
	s, err := keys.Load("dup-entry", []byte(`{"keys":[{"kid":"a","kid":"b","public_key":`+good+`},{"kid":"c","public_key":`+good+`}]}`))
	if err != nil || len(s.Keys) != 1 || len(s.Skipped) != 1 || s.Skipped[0].Reason != keys.ReasonMalformedKey {
		t.Fatalf("dup in entry: %v %v", s, err)
	}
}

func TestMaps(t *testing.T) {
	t.Parallel()
	// aerf-up-06 holds three keys; AERF receipts name them by key_id.
	d := dir(t, load(t, "aerf-up-06-impact-with-parent-sig/keys.json"))
	k, err := d.ByID("dfe937603b2f3312")
	if err != nil || k.Source.Index != 1 || hex.EncodeToString(k.Public.Bytes()) != "c1288da6447ff90e3508c520ed86a65d9a81aa19c92952131bf1a97c1fb9f92e" {
		t.Fatalf("ByID: %v %v", k, err)
	}
	if _, err := d.ByID("DFE937603B2F3312"); !errors.Is(err, keys.ErrUnknownKey) {
		t.Fatalf("ids are case-sensitive: %v", err)
	}
	if _, err := d.ByID("dfe937603b2f3312#x"); !errors.Is(err, keys.ErrUnknownKey) {
		t.Fatalf("fragment dropped for a non-DID id: %v", err)
	}

	// agentreceipts-06 names its key by DID URL; the map keys the DID.
	d = dir(t, load(t, "agentreceipts-06-wrong-key/did_map.json"))
	k, err = d.ResolveDID("did:agent:impersonator-001#key-1")
	if err != nil || k.KID != "did:agent:impersonator-001" || k.Source.Format != keys.FormatDIDMap {
		t.Fatalf("ResolveDID: %v %v", k, err)
	}

	// Map values may be did:key, upper-case hex or an ML-DSA key; anything
	// else is skipped.
	mldsa := strings.Repeat("ab", 1952)
	s, err := keys.Load("m", []byte(`{"a":"did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw","b":"`+strings.ToUpper(strings.Repeat("0f", 32))+`","c":"`+mldsa+`","d":"abcd","e":7,"f":"xyz"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != keys.FormatHexMap || len(s.Keys) != 3 || len(s.Skipped) != 3 {
		t.Fatalf("format %s keys %d skipped %v", s.Format, len(s.Keys), s.Skipped)
	}
	if s.Keys[0].Alg != sigalg.Ed25519 || s.Keys[2].Alg != sigalg.MLDSA65 {
		t.Fatalf("algs %s %s", s.Keys[0].Alg, s.Keys[2].Alg)
	}
	if s.Skipped[0].Reason != keys.ReasonUnsupportedAlg || s.Skipped[0].ID != "d" {
		t.Fatalf("4-byte key: %v", s.Skipped[0])
	}
}

// did:key v0.7 vectors from agentreceipts-upstream-interop/did_key_vectors.json.
var didKeyVectors = []struct{ hex, did string }{
	{"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"},
	{"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"},
	{"3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29", "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"},
}

func TestDIDKey(t *testing.T) {
	t.Parallel()
	for _, v := range didKeyVectors {
		for _, ref := range []string{v.did, v.did + "#" + strings.TrimPrefix(v.did, "did:key:")} {
			k, err := keys.ParseDIDKey(ref)
			if err != nil {
				t.Fatalf("%s: %v", ref, err)
			}
			if hex.EncodeToString(k.Public.Bytes()) != v.hex || k.KID != v.did || k.Alg != sigalg.Ed25519 || k.Source.Format != keys.FormatDIDKey {
				t.Errorf("%s: %x %s", ref, k.Public.Bytes(), k.KID)
			}
			if got, err := keys.DIDKey(k.Public); err != nil || got != v.did {
				t.Errorf("DIDKey = %q, %v; want %s", got, err, v.did)
			}
		}
	}
	// A did:key file: text lines, or a JSON string.
	s, err := keys.Load("dids.txt", []byte(didKeyVectors[0].did+"\n\n"+didKeyVectors[1].did+"\r\ndid:key:zBad\n"))
	if err != nil || s.Format != keys.FormatDIDKey || len(s.Keys) != 2 || len(s.Skipped) != 1 || s.Skipped[0].Index != 3 {
		t.Fatalf("did:key lines: %v %v", s, err)
	}
	if s, err := keys.Load("did.json", []byte(`"`+didKeyVectors[2].did+`"`)); err != nil || len(s.Keys) != 1 {
		t.Fatalf("did:key string: %v %v", s, err)
	}

	p521 := "did:key:z2J9gaYxrKVpdoG9A4gRnmpnRCcxU6agDtFVVBVdn1JedouoZN7SzcyREXXzWgt3gGiwpoHq7K68X4m32D8HgzG8wv3sY5j7" // multicodec 0x1202
	for ref, want := range map[string]error{
		p521: keys.ErrUnsupportedAlg,
		"did:key:" + strings.TrimPrefix(didKeyVectors[0].did, "did:key:")[:20]: keys.ErrMalformedKey,
		didKeyVectors[0].did + "#key-1":                                        keys.ErrMalformedKey,
		"did:key:u7QHXWpgBgrEKt9VL_tPJZAc6DuFy89qmIyWvAhpo9wdRGg":              keys.ErrMalformedKey,
		"did:web:example.com":                                                  keys.ErrMalformedKey,
		"did:key:z":                                                            keys.ErrMalformedKey,
	} {
		if _, err := keys.ParseDIDKey(ref); !errors.Is(err, want) {
			t.Errorf("ParseDIDKey(%q) = %v, want %v", ref, err, want)
		}
	}
}

// TestDIDKeyECDSA decodes the did:keys of the W3C ecdsa cryptosuite test
// vectors (compressed P-256 and P-384 points) and encodes them back.
func TestDIDKeyECDSA(t *testing.T) {
	t.Parallel()
	for did, want := range map[string]struct {
		alg sigalg.Alg
		x   string // base64url of X, from the did:key specification's JWK
	}{
		"did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169":                       {sigalg.ES256, "fyNYMN0976ci7xqiSdag3buk-ZCwgXU4kz9XNkBlNUI"},
		"did:key:zDnaepBuvsQ8cpsWrVKw8fbpGpvPeNSjVPTWoq6cRqaYzBKVP":                       {sigalg.ES256, ""},
		"did:key:z82LkuBieyGShVBhvtE2zoiD6Kma4tJGFtkAhxR5pfkp5QPw4LutoYWhvQCnGjdVn14kujQ": {sigalg.ES384, ""},
	} {
		k, err := keys.ParseDIDKey(did + "#" + strings.TrimPrefix(did, "did:key:"))
		if err != nil {
			t.Fatalf("%s: %v", did, err)
		}
		raw := k.Public.Bytes()
		if k.Alg != want.alg || len(raw) != want.alg.PublicKeySize() || raw[0] != 0x04 {
			t.Errorf("%s: %s key of %d bytes", did, k.Alg, len(raw))
		}
		if n := (len(raw) - 1) / 2; want.x != "" && base64.RawURLEncoding.EncodeToString(raw[1:1+n]) != want.x {
			t.Errorf("%s: X = %x", did, raw[1:1+n])
		}
		if got, err := keys.DIDKey(k.Public); err != nil || got != did {
			t.Errorf("DIDKey = %q, %v; want %s", got, err, did)
		}
	}
	// An X beyond the field's prime is no point.
	bad := append([]byte{0x80, 0x24, 0x02}, bytes.Repeat([]byte{0xff}, 32)...)
	if _, err := keys.ParseDIDKey("did:key:z" + sigalg.EncodeBase58(bad)); !errors.Is(err, keys.ErrMalformedKey) {
		t.Errorf("off-curve P-256 did:key: %v", err)
	}
}

// agentreceipts-01-didkey-genesis: Ed25519 over RFC 8785 of the receipt
// minus "proof", key from the issuer's did:key. The JCS bytes are written
// out (all ASCII, so sorted member names are plain byte order).
func TestAgentReceiptsDIDKeyVerify(t *testing.T) {
	t.Parallel()
	msg := []byte(`{"@context":["https://www.w3.org/ns/credentials/v2","https://agentreceipts.ai/context/v1"],"credentialSubject":{"action":{"id":"act_00000000-0000-0000-0000-000000000001","risk_level":"low","timestamp":"2026-05-04T12:00:00Z","type":"filesystem.file.read"},"chain":{"chain_id":"chain_didkey_demo","previous_receipt_hash":null,"sequence":1},"outcome":{"status":"success"},"principal":{"id":"did:user:alice"}},"id":"urn:receipt:11111111-0000-4000-8000-000000000001","issuanceDate":"2026-05-04T12:00:00Z","issuer":{"id":"did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"},"type":["VerifiableCredential","AgentReceipt"],"version":"0.1.0"}`)
	const vm = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw#z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
	k, err := dir(t).ResolveDID(vm)
	if err != nil {
		t.Fatal(err)
	}
	base, sig, err := sigalg.DecodeMultibase("u0RGtoFwGVVgZ-t0mwsvN5ikthL-eMOswR2UnMuAbMrCO48kBPHlWrDR21sF4LWMV1Ng7VDRzOp5c3xTMFwXIDA")
	if err != nil || base != 'u' {
		t.Fatal(err)
	}
	if err := k.Verify(msg, sig); err != nil {
		t.Fatalf("agentreceipts-01: %v", err)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	k := load(t, "asqav-07-revoked-key/jwks.json").Keys[0]
	if k.Status != keys.StatusRevoked || !errors.Is(k.CheckStatus(at, at), keys.ErrKeyRevoked) {
		t.Fatalf("asqav-07: status %q, %v", k.Status, k.CheckStatus(at, at))
	}
	if k := load(t, "asqav-01-genesis-permit/jwks.json").Keys[0]; k.CheckStatus(at, at) != nil {
		t.Fatalf("asqav-01: %v", k.CheckStatus(at, at))
	}
	good := jsonB64(ed25519Pub(3))
	s, err := keys.Load("st.json", []byte(`{"keys":[
		{"kid":"a","public_key":`+good+`},
		{"kid":"b","public_key":`+good+`,"status":"Suspended"},
		{"kid":"c","public_key":`+good+`,"status":"compromised"},
		{"kid":"d","public_key":`+good+`,"status":"paused"},
		{"kid":"e","public_key":`+good+`,"status":"active","revoked_at":"2026-06-01T12:00:00Z"},
		{"kid":"f","public_key":`+good+`,"status":null,"revoked_at":null}
	]}`))
	if err != nil || len(s.Keys) != 6 {
		t.Fatal(s, err)
	}
	for i, c := range []struct {
		status keys.Status
		ok     bool
	}{
		{keys.StatusActive, true}, {keys.StatusSuspended, false}, {keys.StatusCompromised, false},
		{"paused", false}, {keys.StatusActive, false}, {keys.StatusActive, true},
	} {
		k := s.Keys[i]
		if k.Status != c.status || (k.CheckStatus(at, at) == nil) != c.ok {
			t.Errorf("%s: status %q check %v", k.KID, k.Status, k.CheckStatus(at, at))
		}
	}
	// revoked_at is a boundary: before it the key is still good.
	if err := s.Keys[4].CheckStatus(at.Add(-time.Nanosecond), at); err != nil {
		t.Errorf("before revoked_at: %v", err)
	}
	if k := s.Keys[0]; k.Alg != sigalg.Ed25519 {
		t.Errorf("alg not inferred from size: %s", k.Alg)
	}
}

// TestStatusRevokedAfterIssue pins the Asqav reference's check_key_status:
// a key revoked after the receipt's claimed issue time cannot be judged
// (the claim is the signer's), one revoked at or before it fails, and so
// does a revoked key when nothing places the receipt before the revocation.
func TestStatusRevokedAfterIssue(t *testing.T) {
	t.Parallel()
	rev := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	now := rev.Add(24 * time.Hour)
	good := jsonB64(ed25519Pub(3))
	s, err := keys.Load("rev.json", []byte(`{"keys":[
		{"kid":"r","public_key":`+good+`,"status":"revoked","revoked_at":"2026-06-01T12:00:00Z"},
		{"kid":"c","public_key":`+good+`,"status":"Compromised","revoked_at":"2026-06-01T12:00:00Z"},
		{"kid":"n","public_key":`+good+`,"status":"revoked"}
	]}`))
	if err != nil || len(s.Keys) != 3 {
		t.Fatal(s, err)
	}
	r, c, n := s.Keys[0], s.Keys[1], s.Keys[2]
	for _, tc := range []struct {
		name   string
		k      *keys.Key
		issued time.Time
		want   error
	}{
		{"revoked after issue", r, rev.Add(-time.Second), keys.ErrRevokedAfterIssue},
		{"compromised after issue", c, rev.Add(-time.Second), keys.ErrRevokedAfterIssue},
		{"revoked at issue", r, rev, keys.ErrKeyRevoked},
		{"revoked before issue", r, rev.Add(time.Second), keys.ErrKeyRevoked},
		{"no issue time", r, time.Time{}, keys.ErrKeyRevoked},
		{"no revoked_at", n, rev.Add(-time.Hour), keys.ErrKeyRevoked},
	} {
		err := tc.k.CheckStatus(tc.issued, now)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if tc.want == keys.ErrKeyRevoked && errors.Is(err, keys.ErrRevokedAfterIssue) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestParseJWKAndDirectoryOrder(t *testing.T) {
	t.Parallel()
	k, err := keys.ParseJWK("authproof", []byte(`{"kty":"EC","crv":"P-256","x":"yMVhXZILz_GGg8wwWuea3gOYkTvvYwzM42bgY5k_zgM","y":"KeSjl2d1A6yOlxVhMvaiMmB07ze7DBRc16HgZU_4fE8"}`))
	if err != nil || k.Alg != sigalg.ES256 || k.Source.Format != keys.FormatJWK {
		t.Fatalf("ParseJWK: %v %v", k, err)
	}
	if _, err := keys.ParseJWK("x", []byte(`{"kty":"OKP","crv":"Ed25519","alg":"ES256","x":"PM0kHP_Js2GARLl9A22GFFk9iwF8NA8d7odzOFUXZUs"}`)); !errors.Is(err, keys.ErrMalformedKey) {
		t.Fatalf("alg/kty mismatch: %v", err)
	}
	// Two files giving the same kid the same key: one key, named after the
	// first file.
	a, b := load(t, "acta-01-genesis/acta-keys.json"), load(t, "acta-02-chain-link/acta-keys.json")
	d := dir(t, b, a)
	if k, _ := d.ByID("sb:issuer:acta-oracle-vec-key"); k.Source.File != b.Name {
		t.Fatalf("the first snapshot should name the key, got %s", k.Source.File)
	}
	if d.Len() != 1 || len(d.Snapshots()) != 2 || len(d.Keys()) != 1 || len(d.Combined()) != 0 {
		t.Fatalf("directory sizes %d %d", d.Len(), len(d.Snapshots()))
	}
}

func TestErrorsAs(t *testing.T) {
	t.Parallel()
	_, err := dir(t).ByID("missing")
	var ke *keys.Error
	if !errors.As(err, &ke) || ke.Reason != keys.ReasonUnknownKey || ke.ID != "missing" {
		t.Fatalf("%v", err)
	}
	if errors.Is(err, keys.ErrMalformedKey) {
		t.Fatal("unknown_key matched malformed_key")
	}
	// Causes from sigalg stay reachable.
	_, err = keys.ParseJWK("x", []byte(`{"kty":"OKP","crv":"Ed25519","x":"AAAA"}`))
	var se *sigalg.SizeError
	if !errors.Is(err, keys.ErrMalformedKey) || !errors.As(err, &se) || se.Got != 3 {
		t.Fatalf("%v", err)
	}
}

func ed25519Pub(b byte) []byte {
	seed := make([]byte, 32)
	seed[0] = b
	return ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
}

func jsonB64(raw []byte) string {
	q, _ := json.Marshal(raw) // []byte marshals as padded standard base64
	return string(q)
}
