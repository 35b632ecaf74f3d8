package apt

import (
	"path/filepath"
	"testing"
)

func TestRepoURLs(t *testing.T) {
	nv := NewRepo("", "common", "r36.5")
	if nv.Base != DefaultBase || nv.Component != "main" || nv.Arch != "arm64" {
		t.Fatalf("NewRepo defaults: %+v", nv)
	}
	const trt = "pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1+cuda12.5_arm64.deb"
	tests := []struct {
		name string
		got  func() (string, error)
		want string
	}{
		{"InRelease", func() (string, error) { return nv.DistURL("InRelease"), nil },
			"https://repo.download.nvidia.com/jetson/common/dists/r36.5/InRelease"},
		{"IndexPath", func() (string, error) { return nv.IndexPath("Packages.xz"), nil },
			"main/binary-arm64/Packages.xz"},
		{"IndexURL", func() (string, error) { return nv.IndexURL("Packages.gz"), nil },
			"https://repo.download.nvidia.com/jetson/common/dists/r36.5/main/binary-arm64/Packages.gz"},
		{"PoolURL escapes +", func() (string, error) { return nv.PoolURL(trt) },
			"https://repo.download.nvidia.com/jetson/common/pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1%2Bcuda12.5_arm64.deb"},
		{"PoolURL escapes space, %, ? and #", func() (string, error) { return nv.PoolURL("pool/a b/c%d?e#f.deb") },
			"https://repo.download.nvidia.com/jetson/common/pool/a%20b/c%25d%3Fe%23f.deb"},
		{"trailing slash on base", func() (string, error) {
			return NewRepo("http://mirror.local/jetson/", "t234", "r35.6").PoolURL("pool/x.deb")
		}, "http://mirror.local/jetson/t234/pool/x.deb"},
		{"file URL", func() (string, error) {
			return NewRepo("file:///srv/jetson", "som", "r38.4").PoolURL(trt)
		}, "file:///srv/jetson/som/pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1%2Bcuda12.5_arm64.deb"},
		{"directory: filesystem path, no escaping", func() (string, error) {
			return NewRepo("/srv/jetson", "common", "r36.5").PoolURL(trt)
		}, filepath.Join("/srv/jetson", "common", filepath.FromSlash(trt))},
		{"directory index", func() (string, error) {
			return NewRepo("mirror", "common", "r36.5").IndexURL("Packages"), nil
		}, filepath.Join("mirror", "common", "dists", "r36.5", "main", "binary-arm64", "Packages")},
	}
	for _, tt := range tests {
		got, err := tt.got()
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "pool/../../x.deb", "pool/./x", "pool\\x", "pool/x\x00.deb",
		"pool//x", "pool/x/"} {
		if u, err := nv.PoolURL(bad); err == nil {
			t.Errorf("PoolURL(%q) = %q, want an error", bad, u)
		}
		if _, err := NewRepo("/srv", "common", "r36.5").PoolURL(bad); err == nil {
			t.Errorf("directory PoolURL(%q) accepted", bad)
		}
	}
}

func TestPoolURLRepoName(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "a\\b"} {
		if u, err := NewRepo("https://x", name, "r36.5").PoolURL("pool/a.deb"); err == nil {
			t.Errorf("repo name %q accepted: %s", name, u)
		}
	}
}

func TestRepoValidate(t *testing.T) {
	if err := NewRepo("", "common", "r36.5").Validate(); err != nil {
		t.Error(err)
	}
	for _, r := range []Repo{
		NewRepo("", "../x", "r36.5"), NewRepo("", "a/b", "r36.5"), NewRepo("", "", "r36.5"),
		NewRepo("", "common", ""), {Name: "common", Suite: "r36.5", Component: "main", Arch: "arm64"},
	} {
		if err := r.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted", r)
		}
	}
}
