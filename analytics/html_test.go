package analytics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/testenv"
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
	return loadInBrowserWith(t, chrome, url)
}

// loadInBrowserWith is loadInBrowser with more browser flags.
func loadInBrowserWith(t *testing.T, chrome, url string, flags ...string) []byte {
	t.Helper()
	var last string
	for attempt := 1; attempt <= 3; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		args := append(append(append([]string(nil), browserFlags...), flags...), "--user-data-dir="+t.TempDir(), url)
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

// TestSummaryHTML: summary.html and index.html reference nothing outside
// themselves (the chart is inline), and in a real headless browser, at
// phone (390 px) and desktop (1280 px) widths, they load without a script
// error, show the coloured verdict line first, never scroll the page
// sideways (tables scroll in their own box), give every column header
// scope="col" and a button with aria-sort, and sort file:line as numbers
// within text (:8 before :1012). The browser half is long: it runs with
// VERIFY_TESTS=all or VERIFY_BROWSER=required (as in CI), and is skipped
// without a browser, unless VERIFY_BROWSER=required.
func TestSummaryHTML(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	out := t.TempDir()
	dir := filepath.Join(out, "2026-11-02")
	sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: dir, ToolVersion: "test", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteIndex(out, []*ReportSummary{sum}); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{"summary": filepath.Join(dir, hTMLFile), "index": filepath.Join(out, IndexHTMLFile)}
	for name, path := range pages {
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`(?i)\b(src|srcset)\s*=|href\s*=\s*"(https?:)?//|url\(`).Find(page); m != nil {
			t.Errorf("%s loads %q", name, m)
		}
		if bytes.Contains(page, []byte("<th>")) {
			t.Errorf("%s has a column header without scope", name)
		}
	}
	page, _ := os.ReadFile(pages["summary"])
	if !bytes.Contains(page, []byte(`<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg"`)) {
		t.Errorf("the chart is not inline")
	}

	// The page in a browser: seconds of CPU, so a long test's half
	// (VERIFY_TESTS=all), run whenever VERIFY_BROWSER=required (as in CI).
	if os.Getenv("VERIFY_BROWSER") != "required" {
		testenv.Long(t)
	}
	chrome := browser()
	if chrome == "" {
		if os.Getenv("VERIFY_BROWSER") == "required" {
			t.Fatal("no headless Chromium to load summary.html in, and VERIFY_BROWSER=required (.ci/setup installs it)")
		}
		t.Skip("no headless Chromium (apt-get install chromium) to load summary.html in")
	}
	dom := loadInBrowser(t, chrome, "file://"+pages["summary"]+"#sort=0,0")
	if !bytes.Contains(dom, []byte(`<body data-ready="1">`)) {
		t.Errorf("the page's script did not finish (or failed):\n%.2000s", dom)
	}
	if m := regexp.MustCompile(`<p class="verdict fail"><strong>Verdict: action needed\.</strong> 2 of 5 receipt\(s\) failed verification`).FindIndex(dom); m == nil || bytes.Index(dom, []byte("<p")) != m[0] {
		t.Errorf("the verdict is not the first paragraph:\n%.2000s", dom)
	}
	rows := regexp.MustCompile(`<tr>\s*<td>(f1\.jsonl:\d+)</td>`).FindAllSubmatch(dom, 2)
	if len(rows) != 2 || string(rows[0][1]) != "f1.jsonl:6" || string(rows[1][1]) != "f1.jsonl:7" {
		t.Errorf("failed receipts not sorted by file:line after a click: %q", rows)
	}

	// Each page at each width, measured by a script added to a copy: the
	// page's own script sorts a table of file:line cells by a press of its
	// header's button.
	probe := `<table><thead><tr><th scope="col">where</th></tr></thead><tbody>` +
		`<tr><td>f.jsonl:1012</td></tr><tr><td>f.jsonl:8</td></tr><tr><td>f.jsonl:90</td></tr></tbody></table>`
	measure := `<script>(function(){
  var d = document.documentElement, ths = document.querySelectorAll("th"), ok = 0;
  Array.prototype.forEach.call(ths, function(th){ if (th.getAttribute("scope") === "col" && th.getAttribute("aria-sort") === "none" && th.querySelector("button")) ok++; });
  var t = document.querySelectorAll("table"); t = t[t.length-1];
  t.tHead.rows[0].cells[0].querySelector("button").click();
  var order = Array.prototype.map.call(t.tBodies[0].rows, function(r){ return r.cells[0].textContent; }).join(" ");
  var v = document.querySelector("p.verdict");
  parent.postMessage(JSON.stringify({scroll: d.scrollWidth, view: window.innerWidth, headers: ths.length, ok: ok,
    order: order, sort: t.tHead.rows[0].cells[0].getAttribute("aria-sort"), verdict: v ? getComputedStyle(v).backgroundColor : ""}), "*");
})();</script>`
	for _, name := range []string{"index", "summary"} {
		page, _ := os.ReadFile(pages[name])
		page = bytes.Replace(page, []byte("<script>"), []byte(probe+"<script>"), 1)
		page = bytes.Replace(page, []byte("</body>"), []byte(measure+"</body>"), 1)
		probed := filepath.Join(t.TempDir(), name+".html")
		if err := os.WriteFile(probed, page, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{390, 1280} {
			// A frame of the width: a headless window is at least 500 px.
			frame := filepath.Join(filepath.Dir(probed), fmt.Sprintf("frame%d.html", width))
			wrapper := fmt.Sprintf(`<!DOCTYPE html><html><body style="margin:0"><iframe src="%s.html" width="%d" height="900" style="border:0"></iframe>`+
				`<script>addEventListener("message", function(e){ document.body.setAttribute("data-measure", e.data); });</script></body></html>`, name, width)
			if err := os.WriteFile(frame, []byte(wrapper), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := loadInBrowserWith(t, chrome, "file://"+frame, "--window-size=1400,1000", "--allow-file-access-from-files")
			m := regexp.MustCompile(`data-measure="([^"]*)"`).FindSubmatch(dom)
			if m == nil {
				t.Errorf("%s at %d px: not measured:\n%.2000s", name, width, dom)
				continue
			}
			var got struct {
				Scroll, View, Headers, OK int
				Order, Sort, Verdict      string
			}
			if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &got); err != nil {
				t.Fatalf("%s at %d px: %v", name, width, err)
			}
			if got.View != width || got.Scroll > got.View {
				t.Errorf("%s at %d px: page %d px wide in a %d px viewport, want no sideways scroll", name, width, got.Scroll, got.View)
			}
			if got.Headers < 2 || got.OK != got.Headers {
				t.Errorf("%s at %d px: %d of %d headers with scope, button and aria-sort", name, width, got.OK, got.Headers)
			}
			if got.Order != "f.jsonl:8 f.jsonl:90 f.jsonl:1012" || got.Sort != "ascending" {
				t.Errorf("%s at %d px: sorted %q, aria-sort %q; want numbers within text", name, width, got.Order, got.Sort)
			}
			if got.Verdict != "rgb(255, 235, 233)" {
				t.Errorf("%s at %d px: verdict background %q, want the failing colour", name, width, got.Verdict)
			}
		}
	}
}
