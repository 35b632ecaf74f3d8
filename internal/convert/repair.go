package convert

import (
	"context"
	"errors"
	"fmt"

	"github.com/debredist/debredist/debredist/event"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/fetch"
)

// repairCache handles a build that failed on a corrupt cache entry (a
// *fault.CorruptCacheError in err): it removes the entry and downloads the deb
// again into the same cache path. It returns nil when the build may be
// retried, else the error that stands: err itself when it is not about
// the cache, or the corruption and why it could not be repaired
// (--offline removes the entry and downloads nothing).
func (o *Run) repairCache(ctx context.Context, f *fetch.Fetcher, debs []apt.Package, err error) error {
	var ce *fault.CorruptCacheError
	if !errors.As(err, &ce) || f == nil {
		return err
	}
	if eerr := f.Evict(ctx, ce.Expected); eerr != nil {
		return fmt.Errorf("%w; removing it: %v", ce, eerr)
	}
	if o.Source.Offline {
		return fault.Errorf("%w; removed it (%s: not downloading it again)", ce, fault.RefOffline)
	}
	o.emit(
		event.Event{Kind: event.Warning, Package: ce.Package, Message: ce.Error() + "; removed it, downloading it again"},
	)
	var again []apt.Package
	for _, d := range debs {
		if d.SHA256 == ce.Expected {
			again = append(again, d)
		}
	}
	if _, ferr := f.Fetch(ctx, again); ferr != nil {
		return fmt.Errorf("%w; removed it, downloading it again: %v", ce, ferr)
	}
	return nil
}
