package convert

import (
	"fmt"

	"github.com/debredist/debredist/debredist/event"

	"github.com/debredist/debredist/debredist/apt"
)

// errReadOnly is why a run on a read-only OUT stops.
func errReadOnly(out, what string) error {
	return fmt.Errorf(
		"output directory %s is not writable, and %s (a run with everything up to date needs no write access)",
		out,
		what,
	)
}

// warnUnread says when packages are kept as up to date by the inputs
// recorded in OUT alone: their debs are not in the cache (--offline, a
// lock naming debs never downloaded), so nothing was read to confirm it.
func (o *Run) warnUnread(jobs []*job) {
	var debs []apt.Package
	n := 0
	for _, j := range jobs {
		if j.upToDate {
			debs = append(debs, j.pkg.Debs...)
			n++
		}
	}
	if len(debs) == 0 {
		return
	}
	f, err := o.fetcher()
	if err != nil {
		return // the run needs no fetcher; Missing is only a report
	}
	if missing := f.Missing(debs); len(missing) > 0 {
		o.emit(event.Event{Kind: event.Warning, Package: missing[0].Name, Message: fmt.Sprintf(
			"%d redist package(s) are up to date by the inputs OUT's provenance records; %d of their debs are not in the "+
				"cache and were not read (first: %s %s); provenance is left as the run that read them wrote it",
			n,
			len(missing),
			missing[0].Name,
			missing[0].Version,
		)})
	}
}
