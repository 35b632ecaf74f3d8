package event_test

import (
	"fmt"

	"github.com/debredist/debredist/debredist/event"
)

// Downloads counts what a call's events report: a caller's OnEvent can
// keep its own tally while the call runs.
func ExampleDownloads_Count() {
	var d event.Downloads
	for _, e := range []event.Event{
		{Kind: event.FetchPlan, URL: "https://repo.download.nvidia.com/jetson", Total: 3},
		{Kind: event.CacheHit, Package: "cuda-cudart-12-6"},
		{Kind: event.FetchDone, Package: "libcublas-12-6", Bytes: 1 << 20},
		{Kind: event.FetchDone, Package: "libcublas-dev-12-6", Bytes: 2 << 20},
	} {
		d.Count(e)
	}
	fmt.Printf("%d downloaded (%d bytes), %d from the cache, local mirror: %v\n", d.Downloaded, d.Bytes, d.Cached, d.Local)
	// Output: 2 downloaded (3145728 bytes), 1 from the cache, local mirror: false
}
