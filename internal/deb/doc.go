// Package deb streams a Debian binary package (.deb) apart without writing it
// to disk: the ar container, control.tar and data.tar with their compressions,
// and a safety check of every data entry. It does not decide where files go.
package deb
