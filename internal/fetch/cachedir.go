package fetch

// CacheDir is the cache root this Fetcher uses: Options.CacheDir, or the
// default derived in New ($XDG_CACHE_HOME/debredist).
func (f *Fetcher) CacheDir() string { return f.cache }

// Mirror is the mirror debs and indexes come from (Options.Base).
func (f *Fetcher) Mirror() string { return f.base }
