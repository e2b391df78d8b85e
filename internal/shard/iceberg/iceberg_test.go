package iceberg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iskorotkov/avro/v2/ocf"
)

var testSchema = []Field{
	{ID: 1, Name: "source", Type: "string"},
	{ID: 2, Name: "reasons", Type: List{ElementID: 4, Element: "string"}},
	{ID: 3, Name: "day", Type: "date"},
}

func testCommit(id int64, days ...string) Commit {
	c := Commit{Schema: testSchema, Partition: "day", SnapshotID: id, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	for i, d := range days {
		day, _ := time.Parse(time.DateOnly, d)
		c.Files = append(c.Files, DataFile{Path: fmt.Sprintf("data/day=%s/%d-%d.parquet", d, id, i), Day: day, Records: 10, Bytes: 100})
	}
	return c
}

// manifests reads the current snapshot's manifest list and the data
// files of each manifest it names, by partition day.
func manifests(t *testing.T, dir string) (*Metadata, []manifestFile, map[string][]string) {
	t.Helper()
	m, _, err := Read(dir)
	if err != nil || m == nil {
		t.Fatalf("read: %v, %v", m, err)
	}
	list, err := readManifestList(m.local(dir, m.current().ManifestList))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{}
	for _, mf := range list {
		f, err := os.Open(m.local(dir, mf.Path))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := ocf.NewDecoder(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(dec.Metadata()["format-version"]); got != "2" {
			t.Errorf("%s: format-version %q", mf.Path, got)
		}
		for dec.HasNext() {
			var e map[string]any
			if err := dec.Decode(&e); err != nil {
				t.Fatal(err)
			}
			df := e["data_file"].(map[string]any)
			day := df["partition"].(map[string]any)["day"].(time.Time).Format(time.DateOnly)
			files[day] = append(files[day], df["file_path"].(string))
		}
		f.Close()
	}
	return m, list, files
}

func TestAppend(t *testing.T) {
	dir := t.TempDir()
	if err := Append(dir, testCommit(7, "2026-11-30", "2026-12-01")); err != nil {
		t.Fatal(err)
	}
	if err := Append(dir, testCommit(9, "2026-12-01")); err != nil {
		t.Fatal(err)
	}
	if err := Append(dir, testCommit(7, "2026-11-30")); !errors.Is(err, ErrCommitted) {
		t.Fatalf("the same snapshot again: %v, want ErrCommitted", err)
	}
	m, list, files := manifests(t, dir)
	if len(m.Snapshots) != 2 || *m.CurrentSnapshotID != 9 || *m.Snapshots[1].Parent != 7 || m.LastSequenceNumber != 2 {
		t.Errorf("snapshots %+v, current %d, sequence %d", m.Snapshots, *m.CurrentSnapshotID, m.LastSequenceNumber)
	}
	if len(list) != 2 || list[0].AddedSnapshotID != 7 || list[1].SequenceNumber != 2 || list[1].AddedRows != 10 {
		t.Errorf("manifest list %+v", list)
	}
	loc := m.Location + "/data/"
	if len(files["2026-11-30"]) != 1 || len(files["2026-12-01"]) != 2 || !strings.HasPrefix(files["2026-12-01"][1], loc) {
		t.Errorf("data files by day %v, want them under %s", files, loc)
	}
	if m.Snapshots[1].Summary["total-records"] != "30" {
		t.Errorf("summary %v", m.Snapshots[1].Summary)
	}
	if hint, _ := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text")); string(hint) != "2" {
		t.Errorf("version-hint.text %q", hint)
	}
}

// TestAppendConcurrent: commits at once each take a version of their
// own (a commit that loses the race reads the table again), and none is
// lost.
func TestAppendConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() { errs[i] = Append(dir, testCommit(int64(i+1), "2026-12-01")) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("commit %d: %v", i+1, err)
		}
	}
	m, list, _ := manifests(t, dir)
	if len(m.Snapshots) != len(errs) || len(list) != len(errs) {
		t.Errorf("%d snapshots, %d manifests, want %d", len(m.Snapshots), len(list), len(errs))
	}
	if hint, _ := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text")); string(hint) != fmt.Sprint(len(errs)) {
		t.Errorf("version-hint.text %q, want the newest version, %d", hint, len(errs))
	}
}

// TestReadable: every directory and file of a table is readable by
// another user, whatever the umask.
func TestReadable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lake", "receipts")
	if err := Append(dir, testCommit(3, "2026-12-01")); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(filepath.Dir(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if want := map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()]; fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefused(t *testing.T) {
	dir := t.TempDir()
	c := testCommit(1, "2026-12-01")
	c.Location = "s3://bucket/receipts"
	if err := Append(dir, c); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Commit{
		"another location": {Location: "gs://other/receipts", Schema: testSchema, Partition: "day", SnapshotID: 2},
		"another schema":   {Schema: testSchema[1:], Partition: "day", SnapshotID: 2},
		"no date column":   {Schema: testSchema, Partition: "source", SnapshotID: 2},
		"no snapshot id":   {Schema: testSchema, Partition: "day"},
	} {
		if err := Append(dir, c); err == nil {
			t.Errorf("%s: committed", name)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata", "v2.metadata.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "v2.metadata.json") {
		t.Errorf("broken metadata: %v, want an error naming its file", err)
	}
}
