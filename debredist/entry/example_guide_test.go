package entry_test

import (
	"archive/tar"
	"errors"
	"fmt"

	"github.com/debredist/debredist/debredist/entry"
)

// FromTar turns a tar header into the Header every stage shares: Path and
// Link as the tar stores them (each stage cleans names its own way), the
// permission bits with setuid/setgid/sticky as fs.FileMode flags. Devices
// and FIFOs are refused: they are not a Type.
func ExampleFromTar() {
	for _, h := range []*tar.Header{
		{Name: "./usr/local/cuda-12.6/bin/nvcc", Typeflag: tar.TypeReg, Mode: 0o4755, Size: 1234},
		{Name: "./usr/local/cuda-12.6/lib64", Typeflag: tar.TypeSymlink, Linkname: "targets/aarch64-linux/lib", Mode: 0o777},
		{Name: "./usr/local/cuda-12.6/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "./dev/nvhost-ctrl", Typeflag: tar.TypeChar},
	} {
		e, err := entry.FromTar(h)
		if errors.Is(err, entry.ErrDevice) {
			fmt.Println("refused:", err)
			continue
		}
		fmt.Printf("%s %s %v size=%d link=%q\n", e.Path, e.Type, e.Mode, e.Size, e.Link)
	}
	// Output:
	// ./usr/local/cuda-12.6/bin/nvcc file urwxr-xr-x size=1234 link=""
	// ./usr/local/cuda-12.6/lib64 symlink -rwxrwxrwx size=0 link="targets/aarch64-linux/lib"
	// ./usr/local/cuda-12.6/ dir -rwxr-xr-x size=0 link=""
	// refused: device or fifo entry: tar type '3'
}

// Parse reads a type name, as profile rules ("types") and JSON write it.
func ExampleParse() {
	for _, s := range []string{"file", "dir", "symlink", "hardlink", "fifo"} {
		t, ok := entry.Parse(s)
		fmt.Println(s, t, ok)
	}
	// Output:
	// file file true
	// dir dir true
	// symlink symlink true
	// hardlink hardlink true
	// fifo file false
}
