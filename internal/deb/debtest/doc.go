// Package debtest builds small, deterministic .deb files in memory for tests
// and for the sample-mirror generator, in the same shape as dpkg-deb --build.
// It also has knobs for producing hostile or malformed debs; it is not a
// general packaging tool and does not read or validate debs.
package debtest
