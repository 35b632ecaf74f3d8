package apt

import (
	"github.com/debredist/debredist/internal/jsonpos"

	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLockSourceInfo(t *testing.T) {
	f, err := os.Open("testdata/sourceinfo-r36.5-subset.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ReadLock(f)
	if err != nil {
		t.Fatal(err)
	}
	if l.Suite != "" {
		t.Errorf("Suite = %q, want empty for sourceinfo", l.Suite)
	}
	l.Suite = "r36.5"
	var buf bytes.Buffer
	if err := WriteLock(&buf, l); err != nil {
		t.Fatal(err)
	}
	checkGoldenBytes(t, "lock-r36.5-subset.golden.json", buf.Bytes())
	byName := map[string]Package{}
	for _, p := range l.Packages {
		byName[p.Repo+"/"+p.Name] = p
	}
	trt := byName["common/libnvinfer10"]
	if trt.Source != "tensorrt" || trt.Version != "10.3.0.30-1+cuda12.5" || trt.Size != 0 ||
		trt.Filename != "pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1+cuda12.5_arm64.deb" {
		t.Errorf("libnvinfer10 = %+v", trt)
	}
	if p := byName["common/nvidia-cuda"]; p.Source != "nvidia-cuda" || p.SourceVersion != "6.2.2" {
		t.Errorf("nvidia-cuda source = %q %q, want split name and version", p.Source, p.SourceVersion)
	}
	if p := byName["t234/nvidia-l4t-core"]; p.Source != "nvidia-l4t-core" {
		t.Errorf("absent source: got %q, want the package name", p.Source)
	}
}

// TestReadLockInventories reads every real inventory shipped in the
// repository's testdata (copied from jetpack-nixos-format data).
func TestReadLockInventories(t *testing.T) {
	files, err := filepath.Glob("../../testdata/inventories/*-debs.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("found %d inventories, want 5: %v", len(files), files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			l, err := ReadLock(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if want := bytes.Count(data, []byte(`"filename":`)); len(l.Packages) != want {
				t.Errorf("%d packages, want %d", len(l.Packages), want)
			}
			repos := map[string]int{}
			for _, p := range l.Packages {
				repos[p.Repo]++
				if p.Source == "" || strings.Contains(p.Source, "(") {
					t.Errorf("%s: source %q not split", p.Name, p.Source)
				}
			}
			if repos["common"] == 0 || len(repos) != 2 {
				t.Errorf("repos %v", repos)
			}
			// Round trip through debredist's format.
			l.Suite = "r" + strings.TrimSuffix(filepath.Base(file), "-debs.json")[1:]
			var buf bytes.Buffer
			if err := WriteLock(&buf, l); err != nil {
				t.Fatal(err)
			}
			l2, err := ReadLock(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			var buf2 bytes.Buffer
			if err := WriteLock(&buf2, l2); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
				t.Error("WriteLock(ReadLock(WriteLock(l))) differs from WriteLock(l)")
			}
		})
	}
}

func TestWriteLockDeterministic(t *testing.T) {
	h := sum256("x")
	pk := func(repo, name string) Package {
		return Package{Repo: repo, Name: name, Version: "1.0-1", Filename: "pool/" + name + ".deb", SHA256: h, Size: 7,
			Description: "dropped", Fields: map[string]string{"X": "dropped"}}
	}
	l := &Lock{
		Suite:    "r36.5",
		Base:     "https://mirror.example/jetson",
		Packages: []Package{pk("t234", "b"), pk("common", "z"), pk("common", "a")},
	}
	var a, b bytes.Buffer
	if err := WriteLock(&a, l); err != nil {
		t.Fatal(err)
	}
	l.Packages[0], l.Packages[2] = l.Packages[2], l.Packages[0]
	if err := WriteLock(&b, l); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("output depends on input order:\n%s\n%s", a.Bytes(), b.Bytes())
	}
	if l.Packages[0].Name != "a" || l.Packages[2].Name != "b" {
		t.Error("WriteLock reordered its input")
	}
	checkGoldenBytes(t, "lock-small.golden.json", a.Bytes())
	got, err := ReadLock(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Suite != "r36.5" || got.Base != l.Base || len(got.Packages) != 3 || got.Packages[0].Source != "a" ||
		got.Packages[0].Size != 7 || got.Packages[0].Repo != "common" || got.Packages[2].Repo != "t234" {
		t.Errorf("round trip: %+v", got)
	}
}

func TestLockErrors(t *testing.T) {
	h := sum256("x")
	own := func(entry string) string {
		return `{"version": 1, "suite": "r36.5", "packages": [` + entry + `]}`
	}
	good := `{"repo": "common", "package": "a", "version": "1", "filename": "pool/a.deb", "sha256": "` + h +
		`", "size": 1, "source": "a"}`
	if _, err := ReadLock(strings.NewReader(own(good))); err != nil {
		t.Fatalf("valid lock refused: %v", err)
	}
	tests := []struct {
		name, in string
		entry    bool // a *LockError is expected
	}{
		{"not json", "Package: a", false},
		{"array", "[]", false},
		{"wrong format version", `{"version": 2, "packages": []}`, false},
		{"unknown field", `{"version": 1, "packages": [], "extra": 1}`, false},
		{"bad suite", `{"version": 1, "suite": "36.5", "packages": []}`, false},
		{"unsafe filename", own(strings.Replace(good, "pool/a.deb", "../a.deb", 1)), true},
		{"absolute filename", own(strings.Replace(good, "pool/a.deb", "/etc/a.deb", 1)), true},
		{"short sha", own(strings.Replace(good, h, "abc", 1)), true},
		{"negative size", own(strings.Replace(good, `"size": 1`, `"size": -1`, 1)), true},
		// issue 37: a size of 0 would turn the download's size check off
		{"zero size", own(strings.Replace(good, `"size": 1`, `"size": 0`, 1)), true},
		{"minus zero size", own(strings.Replace(good, `"size": 1`, `"size": -0`, 1)), true},
		// issue 37: keys are case-sensitive and given once
		{"case-folded key", own(strings.Replace(good, `"size": 1`, `"size": 1, "SHA256": "`+h+`"`, 1)), false},
		{"Suite beside suite", `{"version": 1, "suite": "r36.5", "Suite": "r36.4", "packages": []}`, false},
		{
			"two sha256",
			own(strings.Replace(good, `"size": 1`, `"size": 1, "sha256": "`+strings.Repeat("0", 64)+`"`, 1)),
			false,
		},
		{"invalid UTF-8", own(strings.Replace(good, `"source": "a"`, "\"source\": \"a\xff\"", 1)), false},
		{"bad version", own(strings.Replace(good, `"version": "1"`, `"version": "a"`, 1)), true},
		{"bad repo", own(strings.Replace(good, `"common"`, `"../x"`, 1)), true},
		{"duplicate", own(good + "," + good), true},
		{"sourceinfo not nested", `{"common": "x"}`, false},
		{"sourceinfo bad hash", `{"common": {"a": {"filename": "pool/a.deb", "sha256": "zz", "version": "1"}}}`, true},
		{
			"sourceinfo unsafe",
			`{"common": {"a": {"filename": "pool/../../a.deb", "sha256": "` + h + `", "version": "1"}}}`,
			true,
		},
		{"sourceinfo missing filename", `{"common": {"a": {"sha256": "` + h + `", "version": "1"}}}`, true},
		{
			"sourceinfo bad source",
			`{"common": {"a": {"filename": "a.deb", "sha256": "` + h + `", "version": "1", "source": "x ("}}}`,
			true,
		},
		{
			"sourceinfo unknown key",
			`{"common": {"a": {"filename": "a.deb", "sha256": "` + h + `", "version": "1", "url": "x"}}}`,
			false,
		},
	}
	for _, tt := range tests {
		_, err := ReadLock(strings.NewReader(tt.in))
		var le *LockError
		var je *jsonpos.Error
		if err == nil || errors.As(err, &le) != tt.entry {
			t.Errorf("%s: err = %v (LockError want %v)", tt.name, err, tt.entry)
		}
		// Whatever is wrong is said in words: no Go type name.
		if err != nil &&
			(strings.Contains(err.Error(), "Go value") || strings.Contains(err.Error(), "json.RawMessage") ||
				strings.Contains(err.Error(), "map[")) {
			t.Errorf("%s: %v names Go types", tt.name, err)
		}
		if err != nil && !tt.entry && tt.name != "wrong format version" && tt.name != "bad suite" && !errors.As(err, &je) {
			t.Errorf("%s: %v is not located in the file (*jsonpos.Error)", tt.name, err)
		}
	}
	for in, want := range map[string]string{
		"garbage ©": "lock:1:1: want a JSON object: a debredist lock",
		`{"hello":"world"}`: `lock:1:2: "hello": not a debredist lock (no "packages" array) and, read as a ` +
			`jetpack-nixos sourceinfo file, a repo must map to an object of packages`,
		"{\n \"version\": 1,\n": "lock:3:1: the JSON ends before the value is complete",
		"":                      "lock: the file is empty",
	} {
		if _, err := ReadLock(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadLock(%q) = %v, want %q", in, err, want)
		}
	}
	err := WriteLock(&bytes.Buffer{}, &Lock{
		Suite:    "r36.5",
		Packages: []Package{{Repo: "common", Name: "a", Version: "1", Filename: "/x", SHA256: h}},
	})
	if err == nil {
		t.Error("WriteLock wrote an unsafe filename")
	}
}
