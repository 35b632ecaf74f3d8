// Package event is debredist's progress vocabulary: the events ([Event])
// a call of package debredist reports through debredist.Options.OnEvent
// while it runs, and the [Downloads] it counts from them. It only names things;
// nothing here runs.
package event

import "strings"

// Kind says what an Event reports.
type Kind string

// The kinds of Event, in the order a conversion meets them.
const (
	Index   Kind = "index"   // an index was read: Package is its repo, URL where from, Total its packages
	Plan    Kind = "plan"    // the plan is made: Total redist packages (Message: the profile)
	Warning Kind = "warning" // something the user should act on (Code: the output warning's code, if any)
	Notice  Kind = "notice"  // something worth knowing that needs no action (signatures not checked)
	// downloads are about to start: Total debs of Bytes bytes from the mirror
	// URL (a directory: read, not downloaded) into the cache Message
	FetchPlan   Kind = "fetch-plan"
	FetchStart  Kind = "fetch-start"  // a download started
	FetchBytes  Kind = "fetch-bytes"  // download progress
	FetchDone   Kind = "fetch-done"   // a deb is in the cache
	FetchRetry  Kind = "fetch-retry"  // a download is retried (Attempt, Err)
	FetchFailed Kind = "fetch-failed" // a download failed for good (Err)
	CacheHit    Kind = "cache-hit"    // a deb was already cached
	BuildPlan   Kind = "build-plan"   // Total redist packages are to be built (not up to date) from Bytes bytes of debs
	BuildStart  Kind = "build-start"  // a redist package is being built
	BuildDone   Kind = "build-done"   // its archive is written: Bytes, made from Total bytes of debs
	UpToDate    Kind = "up-to-date"   // its archive is current: kept
	OutBusy     Kind = "out-busy"     // another process is writing the output directory: waiting for it to finish
)

// Event is one progress report. Which fields are set depends on Kind.
type Event struct {
	Kind    Kind
	Package string // redist package or deb package
	URL     string
	Bytes   int64
	Total   int64
	Attempt int
	Message string
	// Err is a FetchRetry's or FetchFailed's error; for a Warning or
	// Notice, when set, the Message as an error whose options a front end
	// words its own way (fault.Render).
	Err error
	// Code is a Warning's code (redist.Warning's) when the warning is
	// about the output; "" for warnings about the run itself (a cache
	// entry repaired, debs not read).
	Code string
}

// Downloads counts what one call got from the mirror and from the cache.
type Downloads struct {
	Downloaded int   `json:"downloaded"` // files downloaded (FetchDone events)
	Bytes      int64 `json:"bytes"`      // bytes downloaded
	Cached     int   `json:"cached"`     // debs already in the cache (CacheHit events)
	// Local is true when the mirror is a directory (or file://): then
	// Downloaded counts the debs read from it (and verified into the
	// cache), nothing came over the network.
	Local bool `json:"local"`
}

// Count adds what e reports to d. It is not safe for concurrent use:
// events arrive from several goroutines, so the caller serializes.
func (d *Downloads) Count(e Event) {
	switch e.Kind {
	case FetchDone:
		d.Downloaded++
		d.Bytes += e.Bytes
	case CacheHit:
		d.Cached++
	case FetchPlan:
		d.Local = e.URL != "" && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://")
	}
}
