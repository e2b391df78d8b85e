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

const htmlStyle = `
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#1f2328;max-width:1200px;margin:24px auto;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;cursor:pointer;user-select:none;white-space:nowrap}
th[data-sort=asc]::after{content:" \25B2"}th[data-sort=desc]::after{content:" \25BC"}
tr:nth-child(even) td{background:#fafbfc}
code{font-size:12px;background:#f6f8fa;padding:1px 4px;border-radius:3px}
blockquote{border-left:4px solid #bf8700;background:#fff8c5;margin:8px 0;padding:4px 12px}
figure.chart{margin:8px 0;overflow-x:auto}
`

// htmlScript sorts a table by the column whose header is clicked: as
// numbers when every cell of the column is one, as text otherwise; a
// second click reverses. It marks the body data-ready once set up, and
// data-error on a script error, for tests.
const htmlScript = `
(function(){
  window.addEventListener("error", function(e){ document.body.setAttribute("data-error", String(e.message)); });
  function cellText(row, i){ var c = row.cells[i]; return c ? c.textContent.trim() : ""; }
  function sortTable(table, i, th){
    var body = table.tBodies[0]; if (!body) return;
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function(r){ var t = cellText(r, i); return t === "" || !isNaN(Number(t)); });
    var dir = th.getAttribute("data-sort") === "asc" ? "desc" : "asc";
    Array.prototype.forEach.call(th.parentNode.cells, function(h){ h.removeAttribute("data-sort"); });
    th.setAttribute("data-sort", dir);
    rows.sort(function(a, b){
      var x = cellText(a, i), y = cellText(b, i);
      var c = numeric ? (Number(x) - Number(y)) : x.localeCompare(y);
      return dir === "asc" ? c : -c;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function(table){
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, i){
      th.title = "sort by this column";
      th.addEventListener("click", function(){ sortTable(table, i, th); });
    });
  });
  var m = /^#sort=(\d+),(\d+)$/.exec(location.hash);
  if (m) { var t = document.querySelectorAll("table")[+m[1]]; if (t) t.tHead.rows[0].cells[+m[2]].click(); }
  document.body.setAttribute("data-ready", "1");
})();
`
