package layout

import "github.com/debredist/debredist/internal/deb"

// FromDeb describes a data.tar entry of the deb of binary package debName
// as an Input. Content identity (Digest, Ref) of regular files is the
// caller's to fill: it is where the caller keeps the bytes.
func FromDeb(debName string, e *deb.Entry) Input {
	return Input{Deb: debName, Header: e.Header}
}
