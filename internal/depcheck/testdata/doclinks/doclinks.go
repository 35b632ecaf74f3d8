// Package doclinks is TestDocNamesFixture's package: its docs hold one
// name of each kind the check knows, right and wrong.
//
// Right: [T.F], [*T], [T.M], [io.Reader], [Inner], T.Inner.X in a chain,
// "T.F" quoted, path.Join(a, b) called, MAJOR.MINOR a placeholder.
//
// Wrong: [T.Gone], [io.Gone], [nopkg.X], T.F unlinked, T.Inner.Gone,
// Nope.X, [T]s.
package doclinks

import "io"

// T is a type.
type T struct {
	F     io.Reader // see [T.M]
	Inner Inner     // its X is T.Inner.X; not [Inner.Y]
}

// M is a method.
func (T) M() {}

// Inner is a type inside T.
type Inner struct{ X int }
