package receiptgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/receiptverify/verify/verify/sigalg"
)

// Config describes one corpus. The zero value of every field except N
// means its default (see Defaults); N = 0 writes an empty receipts file.
type Config struct {
	Seed uint64 // every random choice derives from it

	// N is the number of lines written to receipts.jsonl. Receipts removed
	// to plant "absent" anomalies are generated and signed but not counted:
	// N is what a reader of the file sees.
	N int

	// Rate is the fraction of the N lines that carry exactly one planted
	// anomaly (0 to 0.5), rounded to the nearest whole receipt and spread
	// evenly over the eight single-receipt kinds.
	Rate float64

	Start time.Time // first instant of the window, normally a UTC midnight
	Days  int       // window length; every issued_at is in [Start, Start+Days)

	Agents           int // agents with an active key (the revoked agent is extra)
	SessionsPerAgent int // 0 picks a number giving chains of about 25 receipts
	Orgs             int // issuers; agents are spread over them

	// Algs is the algorithm mix of the agents' keys, by weight. Agents are
	// allotted to algorithms in proportion (largest remainder) and then
	// shuffled. The revoked key uses the heaviest algorithm.
	Algs []AlgWeight

	// Mix is how many of the N lines are receipts of other formats (Asqav
	// hash mode, DSSE, agentreceipts); the zero Mix writes Asqav payload
	// mode only.
	Mix Mix

	// Completeness is how many sets of completeness plants the corpus
	// carries (see planCompleteness): each set takes plantLines of the N
	// lines and adds keys/witness.json and checkpoints.jsonl. Zero plants
	// none.
	Completeness int

	// Gzip writes receipts.jsonl.gz instead of receipts.jsonl.
	Gzip bool

	// Workers is the number of signing goroutines (0: GOMAXPROCS). The
	// output does not depend on it.
	Workers int
}

// AlgWeight is one algorithm's share of the agents.
type AlgWeight struct {
	Alg    sigalg.Alg
	Weight int
}

// defaultStart is the default first day, 2026-11-01 (after the Asqav
// switch to UTF-16 member order).
var defaultStart = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// defaultAlgs is mostly ML-DSA-65 with some ML-DSA-44, ML-DSA-87 and
// Ed25519.
var defaultAlgs = []AlgWeight{{sigalg.MLDSA65, 6}, {sigalg.MLDSA44, 2}, {sigalg.MLDSA87, 2}, {sigalg.Ed25519, 2}}

// Ed25519Only is the fast mix, for large streams in tests.
func Ed25519Only() []AlgWeight { return []AlgWeight{{sigalg.Ed25519, 1}} }

// Default is the corpus the receiptgen command writes without flags: a
// thousand lines, 5% of them anomalous, one set of completeness plants.
func Default() Config { return Config{Seed: 1, N: 1000, Rate: 0.05, Completeness: 1} }

// DefaultStart is the default first day (Config.Start).
func DefaultStart() time.Time { return defaultStart }

// Defaults for the zero fields.
const (
	DefaultDays   = 7
	DefaultAgents = 12
	DefaultOrgs   = 2
	chainTarget   = 25 // receipts per session when SessionsPerAgent is 0
)

// withDefaults fills zero fields and validates.
func (c Config) withDefaults() (Config, error) {
	if c.Start.IsZero() {
		c.Start = defaultStart
	}
	c.Start = c.Start.UTC()
	if c.Days == 0 {
		c.Days = DefaultDays
	}
	if c.Agents == 0 {
		c.Agents = DefaultAgents
	}
	if c.Orgs == 0 {
		c.Orgs = DefaultOrgs
	}
	if len(c.Algs) == 0 {
		c.Algs = defaultAlgs
	}
	switch {
	case c.N < 0:
		return c, errors.New("receiptgen: n must not be negative")
	case math.IsNaN(c.Rate) || c.Rate < 0 || c.Rate > 0.5:
		return c, errors.New("receiptgen: rate must be between 0 and 0.5")
	case c.Days < 0 || c.Agents < 0 || c.Orgs < 0 || c.SessionsPerAgent < 0 || c.Workers < 0:
		return c, errors.New("receiptgen: days, agents, orgs, sessions per agent and workers must not be negative")
	case c.Orgs > c.Agents:
		return c, errors.New("receiptgen: more orgs than agents")
	case c.Completeness < 0:
		return c, errors.New("receiptgen: completeness must not be negative")
	case c.Mix.Hash < 0 || c.Mix.DSSE < 0 || c.Mix.AgentReceipts < 0 || c.Mix.total() > c.N:
		return c, errors.New("receiptgen: the mix's counts must be non-negative and at most n")
	}
	total := 0
	for _, a := range c.Algs {
		if !a.Alg.Valid() || a.Alg.IsECDSA() || a.Alg == sigalg.PS256 {
			return c, fmt.Errorf("receiptgen: algorithm %q cannot sign Asqav receipts", a.Alg)
		}
		if a.Weight < 0 {
			return c, errors.New("receiptgen: negative algorithm weight")
		}
		total += a.Weight
	}
	if total == 0 {
		return c, errors.New("receiptgen: algorithm weights sum to zero")
	}
	return c, nil
}

// ParseAlgs reads an algorithm mix such as "ML-DSA-65=6,ML-DSA-44=2,
// Ed25519=2"; a name without "=weight" weighs 1 ("Ed25519" alone is the
// Ed25519-only mix).
func ParseAlgs(s string) ([]AlgWeight, error) {
	var out []AlgWeight
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, hasW := strings.Cut(part, "=")
		a, err := sigalg.ParseAlg(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		weight := 1
		if hasW {
			if weight, err = strconv.Atoi(strings.TrimSpace(w)); err != nil || weight < 0 {
				return nil, fmt.Errorf("bad weight %q for %s", w, a)
			}
		}
		out = append(out, AlgWeight{a, weight})
	}
	if len(out) == 0 {
		return nil, errors.New("empty algorithm mix")
	}
	return out, nil
}

// allot splits n agents over the weights by largest remainder (ties to the
// earlier entry).
func allot(n int, ws []AlgWeight) []sigalg.Alg {
	total := 0
	for _, w := range ws {
		total += w.Weight
	}
	counts := make([]int, len(ws))
	rems := make([]int, len(ws))
	given := 0
	for i, w := range ws {
		counts[i] = n * w.Weight / total
		rems[i] = n * w.Weight % total
		given += counts[i]
	}
	for ; given < n; given++ {
		best := -1
		for i := range ws {
			if ws[i].Weight > 0 && (best < 0 || rems[i] > rems[best]) {
				best = i
			}
		}
		counts[best]++
		rems[best] = -1
	}
	var out []sigalg.Alg
	for i, w := range ws {
		for range counts[i] {
			out = append(out, w.Alg)
		}
	}
	return out
}

// heaviest is the algorithm with the largest weight (the first of ties).
func heaviest(ws []AlgWeight) sigalg.Alg {
	best := ws[0]
	for _, w := range ws[1:] {
		if w.Weight > best.Weight {
			best = w
		}
	}
	return best.Alg
}
