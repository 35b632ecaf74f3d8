package fetch

// CacheDir is the cache root this Fetcher uses: Options.CacheDir, or the
// default derived in New ($XDG_CACHE_HOME/debredist).
func (f *Fetcher) CacheDir() string { return f.cache }

// Mirror is the mirror debs and indexes come from (Options.Base); Local
// reports whether it is a directory or file:// mirror, whose files are read
// (and verified into the cache), not downloaded.
func (f *Fetcher) Mirror() string { return f.base }

// Local reports whether the mirror is a directory or a file:// URL.
func (f *Fetcher) Local() bool { return !isHTTP(f.base) }
