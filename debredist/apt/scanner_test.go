package apt

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func TestParsePackagesGolden(t *testing.T) {
	f, err := os.Open("testdata/Packages.sample")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgs, probs, err := ParsePackages(f, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		Package
		Fields map[string]string `json:"fields"`
		Line   int               `json:"line"`
		IsMeta bool              `json:"is_meta"`
	}
	var outs []out
	for _, p := range pkgs {
		outs = append(outs, out{Package: p, Fields: p.Fields, Line: p.Line, IsMeta: p.IsMeta()})
	}
	var ps []string
	for _, p := range probs {
		ps = append(ps, p.String())
	}
	checkGolden(t, "Packages.sample.golden.json", map[string]any{"packages": outs, "problems": ps})
	if len(pkgs) != 5 || len(probs) != 5 {
		t.Errorf("got %d packages and %d problems, want 5 and 5", len(pkgs), len(probs))
	}
}

func TestParsePackages(t *testing.T) {
	const sum = "0518e4f42f59d8fcc9081c331cce28b87494f2d66ae3d88a6bec35aa4fdb89d1"
	problemIndex := stanza("good", "1") + "\n" +
		"Package: nofile\nVersion: 1\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: badsize\nVersion: 1\nFilename: a.deb\nSize: 12x\nSHA256: " + sum + "\n\n" +
		"Package: plus\nVersion: 1\nFilename: a.deb\nSize: +12\nSHA256: " + sum + "\n\n" +
		"Package: nohash\nVersion: 1\nFilename: a.deb\nSize: 1\nMD5sum: abc\n\n" +
		"Package: badhash\nVersion: 1\nFilename: a.deb\nSize: 1\nSHA256: " + strings.Replace(sum, "0", "g", 1) + "\n\n" +
		"Package: backslash\nVersion: 1\nFilename: a\\b.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: dotdot\nVersion: 1\nFilename: pool/../x.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: dblslash\nVersion: 1\nFilename: pool//x.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Version: 1\nFilename: a.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: Upper\nVersion: 1\nFilename: a.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: badver\nVersion: x1\nFilename: a.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: dup\nVersion: 1\nVersion: 2\nFilename: a.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		"Package: badsrc\nVersion: 1\nSource: foo (1\nFilename: a.deb\nSize: 1\nSHA256: " + sum + "\n\n" +
		stanza("last", "2")
	at := func(marker string) int { return lineOf(t, problemIndex, marker) }
	tests := []struct {
		name     string
		in       string
		want     []Package // compared on the fields set here (Fields and Line ignored unless set)
		problems []Problem
		fields   map[string]string // extra checks on the first package via Field()
	}{
		{
			name: "empty index",
			in:   "",
		},
		{
			name: "only blank lines",
			in:   "\n \n\t\n\r\n",
		},
		{
			name: "CRLF line endings",
			in:   strings.ReplaceAll(stanza("cuda-cudart-12-6", "12.6.68-1", "Source: cuda-cudart"), "\n", "\r\n"),
			want: []Package{{Name: "cuda-cudart-12-6", Version: "12.6.68-1", Size: 1234, SHA256: sum, Source: "cuda-cudart",
				Filename: "pool/main/c/cuda-cudart-12-6/cuda-cudart-12-6_12.6.68-1_arm64.deb", Line: 1}},
		},
		{
			name: "stanzas separated by whitespace-only lines, leading blank lines",
			in:   "\n\n" + stanza("a", "1") + "  \t \n" + stanza("b", "2"),
			want: []Package{{Name: "a", Version: "1", Source: "a", Line: 3}, {Name: "b", Version: "2", Source: "b", Line: 9}},
		},
		{
			name: "continuation lines and first-line description",
			in: stanza("libcudnn9-cuda-12", "9.3.0.75-1", "Description: cuDNN runtime libraries",
				" for CUDA 12.6", " .", "\tthird line", "Depends: libc6,", " libstdc++6"),
			want: []Package{{Name: "libcudnn9-cuda-12", Description: "cuDNN runtime libraries", Depends: "libc6,\nlibstdc++6"}},
			fields: map[string]string{
				"description": "cuDNN runtime libraries\nfor CUDA 12.6\n\nthird line",
			},
		},
		{
			name: "unknown fields kept, case-insensitive lookup",
			in:   stanza("x", "1", "X-Cuda-Tag: cuda12.6", "multi-arch: same", "homepage: https://nvidia.com/a:b"),
			want: []Package{{Name: "x"}},
			fields: map[string]string{
				"x-cuda-tag": "cuda12.6",
				"Multi-Arch": "same",
				"HOMEPAGE":   "https://nvidia.com/a:b",
				"Absent":     "",
			},
		},
		{
			name: "known fields in other case",
			in:   "package: lower\nversion: 1:2.0~rc1-3\nfilename: pool/x.deb\nsize: 0\nsha256: " + strings.ToUpper(sum) + "\n",
			want: []Package{
				{Name: "lower", Version: "1:2.0~rc1-3", Filename: "pool/x.deb", Size: 0, SHA256: sum, Source: "lower"},
			},
		},
		{
			name: "Source with version",
			in:   stanza("libnvinfer10", "10.3.0.30-1+cuda12.5", "Source: tensorrt (8.5.2-1+cuda11.4)"),
			want: []Package{{Name: "libnvinfer10", Source: "tensorrt", SourceVersion: "8.5.2-1+cuda11.4"}},
		},
		{
			name: "Source absent",
			in:   stanza("nvidia-l4t-core", "36.4.3-20250107174145"),
			want: []Package{{Name: "nvidia-l4t-core", Source: "nvidia-l4t-core", SourceVersion: ""}},
		},
		{
			name: "problems are skipped with package and line",
			in:   problemIndex,
			want: []Package{{Name: "good"}, {Name: "last", Line: at("Package: last")}},
			problems: []Problem{
				{"nofile", at("Package: nofile"), "missing Filename field"},
				{"badsize", at("Package: badsize"), `Size "12x" is not a non-negative integer`},
				{"plus", at("Package: plus"), `Size "+12" is not a non-negative integer`},
				{"nohash", at("Package: nohash"), "missing SHA256"},
				{
					"badhash",
					at("Package: badhash"),
					`malformed SHA256 "g518e4f42f59d8fcc9081c331cce28b87494f2d66ae3d88a6bec35aa4fdb89d1": want 64 hex digits`,
				},
				{"backslash", at("Package: backslash"), `unsafe Filename "a\\b.deb": contains a backslash`},
				{"dotdot", at("Package: dotdot"), `unsafe Filename "pool/../x.deb": contains a .. segment`},
				{"dblslash", at("Package: dblslash"), `unsafe Filename "pool//x.deb": empty path segment`},
				{"", at("Version: 1\nFilename: a.deb\nSize: 1\nSHA256: " + sum + "\n\nPackage: Upper"), "missing Package field"},
				{"", at("Package: Upper"), `invalid package name "Upper"`},
				{"badver", at("Package: badver"), `invalid Version "x1"`},
				{"dup", at("Package: dup"), "duplicate field Version"},
				{"badsrc", at("Package: badsrc"), `malformed Source "foo (1"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkgs, probs, err := ParsePackages(strings.NewReader(tt.in), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(pkgs) != len(tt.want) {
				t.Fatalf("got %d packages %+v, want %d", len(pkgs), pkgs, len(tt.want))
			}
			for i, w := range tt.want {
				comparePackage(t, pkgs[i], w)
			}
			if len(probs) != len(tt.problems) {
				t.Fatalf("got problems %v, want %v", probs, tt.problems)
			}
			for i := range probs {
				if probs[i] != tt.problems[i] {
					t.Errorf("problem %d = %+v, want %+v", i, probs[i], tt.problems[i])
				}
			}
			for k, v := range tt.fields {
				if got := pkgs[0].Field(k); got != v {
					t.Errorf("Field(%q) = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// comparePackage compares the non-zero fields of want.
func comparePackage(t *testing.T, got, want Package) {
	t.Helper()
	check := func(name, g, w string) {
		if w != "" && g != w {
			t.Errorf("%s: %s = %q, want %q", got.Name, name, g, w)
		}
	}
	check("Name", got.Name, want.Name)
	check("Version", got.Version, want.Version)
	check("Filename", got.Filename, want.Filename)
	check("SHA256", got.SHA256, want.SHA256)
	check("Source", got.Source, want.Source)
	check("SourceVersion", got.SourceVersion, want.SourceVersion)
	check("Description", got.Description, want.Description)
	check("Depends", got.Depends, want.Depends)
	if want.Size != 0 && got.Size != want.Size {
		t.Errorf("%s: Size = %d, want %d", got.Name, got.Size, want.Size)
	}
	if want.Line != 0 && got.Line != want.Line {
		t.Errorf("%s: Line = %d, want %d", got.Name, got.Line, want.Line)
	}
	if want.Source == "" && got.Source == "" {
		t.Errorf("%s: empty Source", got.Name)
	}
}

func TestParsePackagesSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"line without colon", stanza("a", "1") + "\n" + "Package: b\nthis is not a field\n", 8, "line without a colon"},
		{"continuation first", " leading continuation\n", 1, "continuation line outside a field"},
		{"continuation after blank", stanza("a", "1") + "\n continued\n", 7, "continuation line outside a field"},
		{"comment", "# comment\n" + stanza("a", "1"), 1, "comments are not allowed"},
		{"space in field name", "Pack age: a\n", 1, "invalid field name"},
		{"empty field name", ": a\n", 1, "empty field name"},
		{"binary junk", "Package: a\nVersion: 1\x00\x01\x02\n", 2, "control character"},
		{"html error page", "<!DOCTYPE html>\n<html><body>404</body></html>\n", 1, "line without a colon"},
		{"stanza too large", "Package: a\nDescription: x\n" + strings.Repeat(" yyyyyyyy\n", 200), 0, "exceeds 1000 bytes"},
		{"line too long", "Package: " + strings.Repeat("a", 2000) + "\n", 1, "line longer than 1000 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkgs, _, err := ParsePackages(strings.NewReader(tt.in), ParseOptions{MaxStanzaBytes: 1000})
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%d packages), want *SyntaxError", err, len(pkgs))
			}
			if (tt.line != 0 && se.Line != tt.line) || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", se.Line, se.Msg, tt.line, tt.msg)
			}
		})
	}
}

func TestScannerStreaming(t *testing.T) {
	in := stanza("a", "1") + "\n" + "Package: bad\n\n" + stanza("b", "1") + "\nnot a field\n"
	s, err := NewScanner(strings.NewReader(in), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Next()
	if err != nil || p.Name != "a" {
		t.Fatalf("first: %v, %v", p, err)
	}
	p, err = s.Next()
	if err != nil || p.Name != "b" {
		t.Fatalf("second: %v, %v", p, err)
	}
	if len(s.Problems()) != 1 || s.Problems()[0].Package != "bad" {
		t.Errorf("problems %v", s.Problems())
	}
	_, err = s.Next()
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 15 {
		t.Fatalf("third: err = %v, want SyntaxError at line 15", err)
	}
	if _, err2 := s.Next(); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("after an error Next returned %v, want the same error", err2)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

func TestScannerClose(t *testing.T) {
	s, err := NewScanner(strings.NewReader(stanza("a", "1")), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close = %v, want an error", err)
	}
}

func TestTooManyProblems(t *testing.T) {
	var sb strings.Builder
	for range 5 {
		sb.WriteString("Package: nofile\nVersion: 1\n\n")
	}
	_, probs, err := ParsePackages(strings.NewReader(sb.String()), ParseOptions{MaxProblems: 3})
	var tm *TooManyProblemsError
	if !errors.As(err, &tm) || tm.Limit != 3 || len(probs) != 3 {
		t.Errorf("err = %v, %d problems; want TooManyProblemsError after 3", err, len(probs))
	}
}

func TestIsMeta(t *testing.T) {
	tests := []struct {
		desc string
		want bool
	}{
		{"CUDA Toolkit 12.6 meta-package", true},
		{"NVIDIA Jetpack Meta Package", true},
		{"short\nThis is a\nmetapackage for cuDNN.", true},
		{"short\nthis meta\npackage spans lines", true},
		{"Meta-Package", true},
		{"CUDA Runtime native Libraries", false},
		{"metadata package", false},
	}
	for _, tt := range tests {
		p := Package{Fields: map[string]string{"Description": tt.desc}}
		if got := p.IsMeta(); got != tt.want {
			t.Errorf("IsMeta(%q) = %v, want %v", tt.desc, got, tt.want)
		}
	}
	if !(&Package{Description: "a meta-package"}).IsMeta() {
		t.Error("IsMeta without Fields ignores Description")
	}
}

func TestSplitSource(t *testing.T) {
	tests := []struct {
		in, name, ver string
		bad           bool
	}{
		{"cudnn", "cudnn", "", false},
		{"tensorrt (8.5.2-1+cuda11.4)", "tensorrt", "8.5.2-1+cuda11.4", false},
		{"nvidia-jetpack (6.2)", "nvidia-jetpack", "6.2", false},
		{"  spaced   ( 1:2~3 ) ", "spaced", "1:2~3", false},
		{"foo (", "", "", true},
		{"foo (bar)", "", "", true},
		{"foo 1.0", "", "", true},
		{"Foo", "", "", true},
		{"", "", "", true},
	}
	for _, tt := range tests {
		name, ver, err := SplitSource(tt.in)
		if (err != nil) != tt.bad || name != tt.name || ver != tt.ver {
			t.Errorf("SplitSource(%q) = %q, %q, %v", tt.in, name, ver, err)
		}
	}
}

func TestKnownField(t *testing.T) {
	for i := 1; i < fCount; i++ {
		for _, n := range []string{knownNames[i], strings.ToLower(knownNames[i]), strings.ToUpper(knownNames[i])} {
			if got := knownField(n); got != i {
				t.Errorf("knownField(%q) = %d, want %d", n, got, i)
			}
		}
	}
	for _, n := range []string{"", "Packages", "SHA512", "X-Package", "Descriptio"} {
		if got := knownField(n); got != fOther {
			t.Errorf("knownField(%q) = %d, want fOther", n, got)
		}
	}
}
