// Package convert runs a release through debredist's pipeline: it plans
// the release (its apt indexes or a lock file, grouped by package plan),
// fetches the debs into the cache (internal/fetch), decides which archives
// are up to date, builds the others (internal/build), writes the manifests
// and provenance, and publishes them as OUT's next generation
// (internal/publish), checked before the switch. It also loads the sides
// of a release comparison. A Run is one call: the facade (package
// debredist) translates its options into Options, calls one method and
// reports the outcome; progress arrives as event.Events.
//
// It prints nothing and decides nothing about a single package's layout:
// that is internal/build's, per package.
package convert
