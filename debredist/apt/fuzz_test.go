package apt

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

func FuzzParsePackages(f *testing.F) {
	sample, err := os.ReadFile("testdata/Packages.sample")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add([]byte(sampleIndex))
	f.Add([]byte(strings.ReplaceAll(sampleIndex, "\n", "\r\n")))
	f.Add(goCompress(f, "gzip", []byte(sampleIndex)))
	f.Add(goCompress(f, "xz", []byte(sampleIndex)))
	f.Add(goCompress(f, "zstd", []byte(sampleIndex)))
	f.Add([]byte("Package: a\n continuation\n .\n\n\n\tb: c\n"))
	f.Add([]byte("Package: a\nSource: b (1\nVersion: 1:\n"))
	f.Add([]byte{0x00, 0xff, 0xfe, '\n', ':'})
	f.Fuzz(func(t *testing.T, data []byte) {
		pkgs, probs, err := ParsePackages(bytes.NewReader(data), ParseOptions{MaxStanzaBytes: 4096, MaxProblems: 50})
		if err != nil {
			return
		}
		for _, p := range pkgs {
			if err := CheckFilename(p.Filename); err != nil {
				t.Errorf("unsafe Filename returned: %v", err)
			}
			if s, msg := sha256Problem(p.SHA256); msg != "" || s != p.SHA256 {
				t.Errorf("bad SHA256 %q returned", p.SHA256)
			}
			if p.Size < 0 || nameProblem(p.Name) != "" || versionProblem(p.Version) != "" || nameProblem(p.Source) != "" {
				t.Errorf("invalid package returned: %+v", p)
			}
			if p.Line < 1 || p.Field("Package") != p.Name {
				t.Errorf("line %d, Field(Package) %q, Name %q", p.Line, p.Field("Package"), p.Name)
			}
		}
		for _, pr := range probs {
			if pr.Line < 1 || pr.Reason == "" {
				t.Errorf("bad problem %+v", pr)
			}
		}
	})
}

func FuzzParseRelease(f *testing.F) {
	h := sum256("")
	f.Add(
		[]byte(
			"Origin: NVIDIA\nSuite: r36.5\nArchitectures: arm64\nComponents: main\nSHA256:\n " + h +
				" 0 main/binary-arm64/Packages\n",
		),
	)
	f.Add([]byte("Origin: x\r\nSHA256:\r\n " + strings.ToUpper(h) + " 12 a\r\n\r\n"))
	f.Add([]byte("-----BEGIN PGP SIGNED MESSAGE-----\n"))
	f.Add([]byte("SHA256:\n a b c d\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rel, err := ParseReleaseFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		for path, fh := range rel.SHA256 {
			if fh.Path != path || fh.Size < 0 || len(fh.SHA256) != 64 || !rel.Has(path) {
				t.Errorf("bad entry %+v", fh)
			}
			if err := rel.Verify(path, bytes.NewReader(nil)); err != nil && (fh.Size == 0 && fh.SHA256 == h) {
				t.Errorf("empty file does not verify against %+v: %v", fh, err)
			}
		}
	})
}

func FuzzReadLock(f *testing.F) {
	sub, err := os.ReadFile("testdata/sourceinfo-r36.5-subset.json")
	if err != nil {
		f.Fatal(err)
	}
	own, err := os.ReadFile("testdata/lock-small.golden.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sub)
	f.Add(own)
	f.Add([]byte(`{"common": {}}`))
	f.Add([]byte(`{"version": 1, "packages": []}`))
	f.Add([]byte(`{"packages": {"a": {"filename": "a", "sha256": "", "version": "1"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ReadLock(bytes.NewReader(data))
		if err != nil {
			return
		}
		var a bytes.Buffer
		if err := WriteLock(&a, l); err != nil {
			t.Fatalf("ReadLock accepted a lock WriteLock refuses: %v", err)
		}
		l2, err := ReadLock(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("ReadLock refuses WriteLock's output: %v\n%s", err, a.Bytes())
		}
		if !reflect.DeepEqual(l.Packages, l2.Packages) && (len(l.Packages) != 0 || len(l2.Packages) != 0) {
			t.Errorf("round trip changed the packages:\n%+v\n%+v", l.Packages, l2.Packages)
		}
		var b bytes.Buffer
		if err := WriteLock(&b, l2); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("WriteLock not stable: %v", err)
		}
	})
}
