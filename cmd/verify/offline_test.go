package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// TestBinaryLinksNoNetworkCode builds the command and reads its symbol
// table: an offline verifier has no HTTP client, no TLS and no dialer in
// it, so no dependency (a flag library reading config from a URL, say)
// can reach the network whatever its input. A dependency that starts to
// link such code fails this test, naming the symbols.
func TestBinaryLinksNoNetworkCode(t *testing.T) {
	testenv.Long(t) // builds the binary
	bin := builtBinary(t)
	out, err := exec.Command(goCommand(t), "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	// Package net's initialisation is linked whenever a dependency imports
	// it for a type (net.IP); what must be absent is what connects.
	forbidden := regexp.MustCompile(`^(net/http|net/rpc|net/smtp|crypto/tls)\.|^net\..*([Dd]ial|[Ll]isten|[Ss]ocket|Resolver|[Cc]onnect|Conn\b)`)
	var found []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// "  4a1b20 T net/http.(*Client).Do": address, kind, name.
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		if name := fields[len(fields)-1]; forbidden.MatchString(name) {
			found = append(found, name)
		}
	}
	if len(found) > 0 {
		if len(found) > 20 {
			found = append(found[:20], "...")
		}
		t.Errorf("the binary links network code (%d symbols):\n%s", len(found), strings.Join(found, "\n"))
	}
	if !bytes.Contains(out, []byte(" main.main")) {
		t.Fatalf("go tool nm printed no main.main: not the symbol table of the binary?")
	}
}

// goCommand is the go command, which building the binary needs.
func goCommand(t *testing.T) string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the binary: %v", err)
	}
	return gocmd
}

// builtBinary is the command built for a test that needs the real
// executable, not the test binary: a development build, with no VCS
// revision recorded (-buildvcs=false), whatever the checkout. It is built
// once per run of the package's tests (linking the DuckDB engine is most
// of a build's time) into a directory TestMain removes; tests must not
// change it.
func builtBinary(t *testing.T) string {
	t.Helper()
	gocmd := goCommand(t)
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "verify-test-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir, built.bin = dir, filepath.Join(dir, "verify")
		if out, err := exec.Command(gocmd, "build", "-buildvcs=false", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is builtBinary's one build.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// removeBuilt removes builtBinary's build, if there was one.
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// TestPlanOfAnotherBuildRefused: a build that records no VCS revision is
// named by its executable's SHA-256, so a map step run by another build
// than the plan's (here the same binary with a byte appended) is refused,
// exit 65, naming both builds.
func TestPlanOfAnotherBuildRefused(t *testing.T) {
	testenv.Long(t) // builds the binary
	bin := builtBinary(t)
	dir := t.TempDir()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "verify-other")
	if err := os.WriteFile(other, append(b, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "a.jsonl")
	demo, err := os.ReadFile("../../testdata/demo/receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, demo, 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.json")
	if out, err := exec.Command(bin, "plan", "--at", "2026-12-01T00:00:00Z", "-o", plan, input).CombinedOutput(); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	cmd := exec.Command(other, "receipts", "--plan", plan, "--emit", filepath.Join(dir, "out"), "--shard", "0")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitDataErr || !strings.Contains(string(out), "run every step of a sharded run with one build") || !strings.Contains(string(out), "sha256:") {
		t.Fatalf("map step of another build: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "receipts", "--plan", plan, "--emit", filepath.Join(dir, "out"), "--shard", "0").CombinedOutput(); err != nil {
		t.Fatalf("map step of the plan's build: %v\n%s", err, out)
	}
}
