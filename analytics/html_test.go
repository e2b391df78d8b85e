package analytics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// browser is a headless Chromium or Chrome on PATH (or $CHROME), or "".
func browser() string {
	if c := os.Getenv("CHROME"); c != "" {
		return c
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserFlags start a headless browser that stays off the network and
// keeps its shared memory out of a possibly small /dev/shm.
var browserFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
	"--disable-quic", "--no-first-run", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--disable-crash-reporter",
	"--virtual-time-budget=3000", "--dump-dom",
}

// loadInBrowser returns the DOM of url after its scripts ran. A browser
// that dies of a signal before printing anything is a broken browser, not a
// broken page: it is retried, and after three such deaths the test is
// skipped, unless VERIFY_BROWSER=required, where it fails.
func loadInBrowser(t *testing.T, chrome, url string) []byte {
	t.Helper()
	var last string
	for attempt := 1; attempt <= 3; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		args := append(append([]string(nil), browserFlags...), "--user-data-dir="+t.TempDir(), url)
		cmd := exec.CommandContext(ctx, chrome, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		dom, err := cmd.Output()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil {
			return dom
		}
		var exit *exec.ExitError
		crashed := errors.As(err, &exit) && !exit.Exited() && len(dom) == 0 && !timedOut
		if !crashed {
			t.Fatalf("%s: %v\n%s", chrome, err, stderr.Bytes())
		}
		last = fmt.Sprintf("%s (attempt %d): %v\n%.3000s", chrome, attempt, err, stderr.Bytes())
		t.Log(last)
	}
	if os.Getenv("VERIFY_BROWSER") == "required" {
		t.Fatalf("the browser crashed three times; last:\n%s", last)
	}
	t.Skip("the browser crashed three times before loading the page (VERIFY_BROWSER=required makes this a failure)")
	return nil
}

// TestSummaryHTML: summary.html references nothing outside itself (the
// chart is inline), and in a real headless browser it loads without a
// script error, shows the verdict line first, and sorts a table by a
// column when its header is clicked. Skipped without a browser, unless
// VERIFY_BROWSER=required (as in CI).
func TestSummaryHTML(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	dir := t.TempDir()
	if _, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: dir, ToolVersion: "test", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, hTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)\b(src|srcset)\s*=|href\s*=\s*"(https?:)?//|url\(`).Find(page); m != nil {
		t.Errorf("summary.html loads %q", m)
	}
	if !bytes.Contains(page, []byte(`<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg"`)) {
		t.Errorf("the chart is not inline")
	}

	chrome := browser()
	if chrome == "" {
		if os.Getenv("VERIFY_BROWSER") == "required" {
			t.Fatal("no headless Chromium to load summary.html in, and VERIFY_BROWSER=required (.ci/setup installs it)")
		}
		t.Skip("no headless Chromium (apt-get install chromium) to load summary.html in")
	}
	dom := loadInBrowser(t, chrome, "file://"+filepath.Join(dir, hTMLFile)+"#sort=0,0")
	if !bytes.Contains(dom, []byte(`<body data-ready="1">`)) {
		t.Errorf("the page's script did not finish (or failed):\n%.2000s", dom)
	}
	if m := regexp.MustCompile(`<p><strong>Verdict: action needed\.</strong> 2 of 5 receipt\(s\) failed verification`).FindIndex(dom); m == nil || bytes.Index(dom, []byte("<p>")) != m[0] {
		t.Errorf("the verdict is not the first paragraph:\n%.2000s", dom)
	}
	rows := regexp.MustCompile(`<tr>\s*<td>(f1\.jsonl:\d+)</td>`).FindAllSubmatch(dom, 2)
	if len(rows) != 2 || string(rows[0][1]) != "f1.jsonl:6" || string(rows[1][1]) != "f1.jsonl:7" {
		t.Errorf("failed receipts not sorted by file:line after a click: %q", rows)
	}
}
