package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBinaryLinksNoNetworkCode builds the command and reads its symbol
// table: an offline verifier has no HTTP client, no TLS and no dialer in
// it, so no dependency (a flag library reading config from a URL, say)
// can reach the network whatever its input. A dependency that starts to
// link such code fails this test, naming the symbols.
func TestBinaryLinksNoNetworkCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "verify")
	if out, err := exec.Command(gocmd, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(gocmd, "tool", "nm", bin).Output()
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
