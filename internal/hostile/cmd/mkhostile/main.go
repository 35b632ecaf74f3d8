// Command mkhostile writes the hostile-input corpus out as files, with
// cases.json listing their labels, to look at with other tools (dpkg-deb
// -c, xxd). The tests need no such copy: they build the cases themselves.
//
//	go run ./internal/hostile/cmd/mkhostile -o DIR [-corpus testdata/hostile]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/debredist/debredist/internal/hostile"
)

func main() {
	out := flag.String("o", "", "output directory (required)")
	corpus := flag.String("corpus", "testdata/hostile", "directory of the text cases (txtar archives)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "mkhostile: -o DIR is required")
		os.Exit(2)
	}
	cases, err := hostile.Load(*corpus)
	if err == nil {
		err = hostile.Generate(*out, cases)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkhostile:", err)
		os.Exit(1)
	}
}
