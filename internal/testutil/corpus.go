package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// BinaryCorpus fills dir/lib with at least size bytes of real shared
// libraries and Go tool binaries found on the machine (copied round after
// round, sorted, so the same machine always gives the same corpus): data
// that compresses like the CUDA libraries debredist converts. A finished
// corpus is marked with dir/.complete and reused as it is.
func BinaryCorpus(dir string, size int64) error {
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return nil
	}
	var srcs []string
	for _, pat := range []string{"/usr/lib/x86_64-linux-gnu/*.so*", "/usr/lib/aarch64-linux-gnu/*.so*",
		"/usr/local/go/pkg/tool/*/*", "/usr/local/go/bin/*"} {
		m, _ := filepath.Glob(pat)
		srcs = append(srcs, m...)
	}
	sort.Strings(srcs)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		return err
	}
	var total int64
	for round := 0; total < size; round++ {
		before := total
		for _, s := range srcs {
			if total >= size {
				break
			}
			fi, err := os.Stat(s)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
				continue
			}
			data, err := os.ReadFile(s)
			if err != nil {
				continue
			}
			name := filepath.Join(dir, "lib", fmt.Sprintf("r%d-%s", round, filepath.Base(s)))
			if err := os.WriteFile(name, data, 0o755); err != nil {
				return err
			}
			total += int64(len(data))
		}
		if total == before {
			return fmt.Errorf("no source binaries found")
		}
	}
	return os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
}
