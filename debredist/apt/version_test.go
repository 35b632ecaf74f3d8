package apt

import (
	"reflect"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0},
		{"1.0-1", "1.0-2", -1},
		{"1:1.0", "2.0", 1},
		{"1.0~rc1", "1.0", -1},
		{"1.0~~", "1.0~", -1},
		{"10.3.0.30-1+cuda12.5", "10.3.0.30-1+cuda12.4", 1},
		{"10.3.0.30-1+cuda12.5", "10.3.0.30-1", 1},
		{"8.5.2-1+cuda11.4", "8.5.10-1+cuda11.4", -1},
		{"12.6.68-1", "12.6.77-1", -1},
		{"36.4.3-20250107174145", "36.4.4-20250616085344", -1},
		{"0:1.0", "1.0", 0},
		{"1.0a", "1.0+", -1},
		{"1.0.0", "1.0", 1},
	}
	for _, tt := range tests {
		got, err := CompareVersions(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("CompareVersions(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
		rev, _ := CompareVersions(tt.b, tt.a)
		if rev != -tt.want {
			t.Errorf("CompareVersions(%q, %q) = %d, not antisymmetric", tt.b, tt.a, rev)
		}
	}
	for _, bad := range [][2]string{{"", "1"}, {"1", "a1"}, {"1 2", "1"}, {"x:1", "1"}} {
		if _, err := CompareVersions(bad[0], bad[1]); err == nil {
			t.Errorf("CompareVersions(%q, %q) accepted an invalid version", bad[0], bad[1])
		}
	}
}

func TestNewest(t *testing.T) {
	p := func(repo, name, ver, file string) Package {
		return Package{Repo: repo, Name: name, Version: ver, Filename: file}
	}
	in := []Package{
		p("t234", "nvidia-l4t-core", "36.4.3-20250107174145", "a"),
		p("common", "libnvinfer10", "10.3.0.30-1+cuda12.5", "b"),
		p("common", "libnvinfer10", "10.3.0.30-1+cuda12.5", "b-dup"), // tie: first seen wins
		p("common", "libnvinfer10", "10.3.0.29-1+cuda12.6", "c"),
		p("t234", "nvidia-l4t-core", "36.4.4-20250616085344", "d"),
		p("common", "epoch", "1:1.0", "e"),
		p("common", "epoch", "9.9", "f"),
		p("common", "tilde", "2.0~rc1", "g"),
		p("common", "tilde", "2.0", "h"),
		p("common", "tilde", "2.0~rc2", "i"),
		p("common", "invalid", "bogus", "j"),
		p("common", "invalid", "0.1", "k"),
		p("common", "invalid2", "bogus", "l"),
		p("common", "invalid2", "also-bogus", "m"),
		p("t234", "libnvinfer10", "1.0", "n"), // other repo, kept apart
	}
	got := Newest(in)
	var files []string
	for _, g := range got {
		files = append(files, g.Repo+"/"+g.Name+"="+g.Filename)
	}
	want := []string{
		"common/epoch=e", "common/invalid=k", "common/invalid2=l", "common/libnvinfer10=b",
		"common/tilde=h", "t234/libnvinfer10=n", "t234/nvidia-l4t-core=d",
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("Newest = %v\nwant     %v", files, want)
	}
	if in[0].Filename != "a" || len(in) != 15 {
		t.Error("Newest modified its input")
	}
	if len(Newest(nil)) != 0 {
		t.Error("Newest(nil) not empty")
	}
}
