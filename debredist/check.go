package debredist

import (
	"sync"

	"github.com/debredist/debredist/debredist/fault"
)

// Check reports the first option that does not make sense (a *UsageError
// naming the CLI flag): not exactly one release selector (JetPack, L4T,
// ProfileFile, or LockFile alone), a negative Jobs, an unknown Compression,
// or a Preset outside its range. Plan, Fetch and Convert call it first; the
// CLI calls it so that its answers are the library's.
func (o Options) Check() error {
	n := 0
	for _, s := range []string{o.JetPack, o.L4T, o.ProfileFile} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return fault.Usagef("give only one of --jetpack, --l4t and --profile")
	case n == 0 && o.LockFile == "":
		return fault.Usagef("select a release with --jetpack, --l4t, --profile or --lock")
	}
	if err := checkJobs(o.Jobs); err != nil {
		return err
	}
	if _, err := compression(o.Compression); err != nil {
		return err
	}
	zstd := o.Compression == "zstd" || o.Compression == "zst"
	if o.Preset < 0 || o.Preset > 6 || zstd && o.Preset > 4 {
		return fault.Usagef("--preset %d: want 1..6 for xz, 1..4 for zstd", o.Preset)
	}
	return nil
}

// CheckConvert is Check plus what only Convert needs (Out). Convert
// calls it first.
func CheckConvert(o Options) error {
	if o.Out == "" {
		return fault.Usagef("missing required flag --out")
	}
	return o.Check()
}

// DownloadStats counts what one Fetch or Convert call got from the mirror
// and from the cache (Result.Downloads, FetchResult.Downloads).
type DownloadStats struct {
	Downloaded int   `json:"downloaded"` // files downloaded (EventFetchDone)
	Bytes      int64 `json:"bytes"`      // bytes downloaded
	Cached     int   `json:"cached"`     // debs already in the cache (EventCacheHit)
}

// downloadCounter is shared by the copies of the Options of one call.
type downloadCounter struct {
	mu sync.Mutex
	s  DownloadStats
}

func (c *downloadCounter) count(e Event) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case EventFetchDone:
		c.s.Downloaded++
		c.s.Bytes += e.Bytes
	case EventCacheHit:
		c.s.Cached++
	}
}

func (c *downloadCounter) stats() DownloadStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.s
}

// counting returns a copy of o that counts its downloads (unless o
// already does, as when Convert calls Plan).
func (o Options) counting() Options {
	if o.downloads == nil {
		o.downloads = &downloadCounter{}
	}
	return o
}

func checkJobs(n int) error {
	if n < 0 {
		return fault.Usagef("--jobs %d: want a positive number", n)
	}
	return nil
}

// Check reports options Diff cannot use (a negative Jobs); the releases
// are its arguments. Diff calls it first.
func (o DiffOptions) Check() error { return checkJobs(o.Jobs) }
