//go:build !linux

package publish

import "os"

// exchange swaps two paths; without renameat2 it takes three renames, so
// the migration of an OUT from before generations is not atomic here.
func exchange(a, b string) error {
	tmp := b + ".exchange"
	if err := os.Rename(b, tmp); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(tmp, b)
		return err
	}
	return os.Rename(tmp, a)
}
