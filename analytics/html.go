package analytics

import (
	"bytes"
	"fmt"
	"html"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// hTMLFile is summary.md as one self-contained page.
const hTMLFile = "summary.html"

// summaryHTML is summary.md rendered as HTML (goldmark, GitHub tables; raw
// HTML in the Markdown is dropped, and receipt text was escaped for
// Markdown already), with the chart inline instead of linked, and the
// tables sortable by a click on a column's header. The page loads nothing:
// its Content-Security-Policy allows no source at all but its own inline
// style and script.
func summaryHTML(day string, md, chart []byte) ([]byte, error) {
	img := fmt.Sprintf(`<img src="%s" alt="Distinct tool fingerprints per tool per day">`, chartFile)
	inline := func(page []byte) []byte {
		return bytes.Replace(page, []byte(img), append(append([]byte(`<figure class="chart">`), chart...), "</figure>"...), 1)
	}
	return htmlPage("Receipt report for "+day+" (UTC)", md, inline)
}

// htmlPage renders md as one self-contained page titled title, edit (if
// not nil) changing the rendered body.
func htmlPage(title string, md []byte, edit func([]byte) []byte) ([]byte, error) {
	var body bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.Table)).Convert(md, &body); err != nil {
		return nil, err
	}
	page := body.Bytes()
	if edit != nil {
		page = edit(page)
	}
	page = accessible(page)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>%s</style>
</head>
<body>
%s<script>%s</script>
</body>
</html>
`, html.EscapeString(title), htmlStyle, page, htmlScript)
	return b.Bytes(), nil
}

// accessible makes goldmark's HTML read on a phone and by a screen
// reader: each table in a box of its own that scrolls sideways (the page
// itself never does), column headers scoped to their column, and the
// verdict paragraph marked with its kind, which the style colours (the
// words say it too).
func accessible(page []byte) []byte {
	page = bytes.ReplaceAll(page, []byte("<table>"), []byte(`<div class="table-box" role="region" aria-label="table, scrolls sideways" tabindex="0"><table>`))
	page = bytes.ReplaceAll(page, []byte("</table>"), []byte("</table></div>"))
	page = bytes.ReplaceAll(page, []byte("<th>"), []byte(`<th scope="col">`))
	page = bytes.ReplaceAll(page, []byte(`<th style="`), []byte(`<th scope="col" style="`))
	for _, v := range []struct{ text, class string }{
		{"Verdict: action needed.", "verdict fail"},
		{"Verdict: clean.", "verdict pass"},
		{"Verdict: nothing to judge.", "verdict empty"},
	} {
		page = bytes.Replace(page, []byte("<p><strong>"+v.text), []byte(`<p class="`+v.class+`"><strong>`+v.text), 1)
	}
	return page
}

const htmlStyle = `
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#1f2328;max-width:1200px;margin:24px auto;padding:0 16px;overflow-wrap:anywhere}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}h3{font-size:15px}
.table-box{max-width:100%;overflow-x:auto;margin:8px 0}
.table-box:focus{outline:2px solid #0969da;outline-offset:2px}
table{border-collapse:collapse;font-size:13px;overflow-wrap:normal}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;white-space:nowrap}
th button{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:0;cursor:pointer;text-align:left}
th button:focus-visible{outline:2px solid #0969da;outline-offset:2px}
th[aria-sort=ascending] button::after{content:" \25B2"}th[aria-sort=descending] button::after{content:" \25BC"}
tr:nth-child(even) td{background:#fafbfc}
code{font-size:12px;background:#f6f8fa;padding:1px 4px;border-radius:3px}
blockquote{border-left:4px solid #bf8700;background:#fff8c5;margin:8px 0;padding:4px 12px}
.verdict{padding:8px 12px;border-left:6px solid;border-radius:3px}
.verdict.fail{background:#ffebe9;border-color:#cf222e}
.verdict.pass{background:#dafbe1;border-color:#1a7f37}
.verdict.empty{background:#fff8c5;border-color:#bf8700}
figure.chart{margin:8px 0;overflow-x:auto;max-width:100%}
`

// htmlScript makes each column header a button that sorts its table by
// that column (aria-sort says how): as numbers when every cell of the
// column is one, otherwise as text with the digits in it compared as
// numbers, so that f.jsonl:8 comes before f.jsonl:1012; a second press
// reverses. It marks the body data-ready once set up, and data-error on a
// script error, for tests.
const htmlScript = `
(function(){
  window.addEventListener("error", function(e){ document.body.setAttribute("data-error", String(e.message)); });
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});
  function cellText(row, i){ var c = row.cells[i]; return c ? c.textContent.trim() : ""; }
  function sortTable(table, i, th){
    var body = table.tBodies[0]; if (!body) return;
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function(r){ var t = cellText(r, i); return t === "" || !isNaN(Number(t)); });
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    Array.prototype.forEach.call(th.parentNode.cells, function(h){ h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
    rows.sort(function(a, b){
      var x = cellText(a, i), y = cellText(b, i);
      var c = numeric ? (Number(x) - Number(y)) : collator.compare(x, y);
      return dir === "ascending" ? c : -c;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function(table){
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, i){
      var b = document.createElement("button");
      b.type = "button";
      b.title = "sort by this column";
      while (th.firstChild) b.appendChild(th.firstChild);
      th.appendChild(b);
      th.setAttribute("aria-sort", "none");
      b.addEventListener("click", function(){ sortTable(table, i, th); });
    });
  });
  var m = /^#sort=(\d+),(\d+)$/.exec(location.hash);
  if (m) { var t = document.querySelectorAll("table")[+m[1]]; if (t) t.tHead.rows[0].cells[+m[2]].querySelector("button").click(); }
  document.body.setAttribute("data-ready", "1");
})();
`
